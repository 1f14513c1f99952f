// Hostile and broken clients against the real server: oversized heads, chunked bodies, bad
// encodings, slow and idle connections, random bytes. Each case is bounded in time (every read
// has a deadline), and afterwards the server must still answer correctly, with its memory
// bounded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "db/store.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/service_harness.hpp"

namespace occtune::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kDevice = "GPU-aaaaaaaa-0000-4000-8000-000000000001";

class Malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = db::Store::open(dir_.path / "serve.db");
    seed_run(store, seed_device(kDevice), Shape{1024, 1024, 1024}, 0.25);
    service::ServiceOptions options;
    options.db = dir_.path / "serve.db";
    options.threads = 4;
    options.queue = 4;
    server_ = std::make_unique<RunningService>(options);
    host_ = "Host: " + server_->host() + "\r\n";
  }

  std::string good_request() const {
    return "GET /v1/best?device=" + std::string(kDevice) +
           "&kernel=tiled_dynamic&m=1024&n=1024&k=1024 HTTP/1.1\r\n" + host_ + "\r\n";
  }

  // The server still gives the right answer to a well-formed request.
  void expect_healthy() {
    RawConnection c(server_->port());
    ASSERT_TRUE(c.connected());
    c.send(good_request());
    const std::string r = c.read_response(seconds(10));
    ASSERT_EQ(status_of(r), 200) << r;
    EXPECT_EQ(json::parse(body_of(r))["config"]["tile"], 16);
  }

  // Sends `request` on a fresh connection; the response (the server must also close).
  std::string exchange(const std::string& request, bool expect_close = true) {
    RawConnection c(server_->port());
    EXPECT_TRUE(c.connected());
    c.send(request);
    const std::string r = c.read_response(seconds(10));
    if (expect_close) {
      EXPECT_TRUE(c.closed_by_server(seconds(10))) << r.substr(0, 200);
    }
    return r;
  }

  TempDir dir_;
  std::unique_ptr<RunningService> server_;
  std::string host_;
};

TEST_F(Malformed, OversizedHeadsAreRefusedWithoutBeingRead) {
  // One huge header, many small ones, a huge request line, and a head that never ends.
  std::string r = exchange("GET /healthz HTTP/1.1\r\n" + host_ +
                           "X-Big: " + std::string(10000, 'a') + "\r\n\r\n");
  EXPECT_EQ(status_of(r), 431) << r.substr(0, 300);
  std::string many;
  for (int i = 0; i < 100; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  r = exchange("GET /healthz HTTP/1.1\r\n" + host_ + many + "\r\n");
  EXPECT_EQ(status_of(r), 431) << r.substr(0, 300);
  r = exchange("GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n" + host_ + "\r\n");
  EXPECT_EQ(status_of(r), 414) << r.substr(0, 300);
  {
    RawConnection c(server_->port());
    std::string endless = "GET /healthz HTTP/1.1\r\n";
    for (int i = 0; i < 2000; ++i) endless += "X-Filler-" + std::to_string(i) + ": x\r\n";
    c.send(endless);  // may fail part-way once the server has closed: that is the point
    const std::string answer = c.read_response(seconds(10));
    EXPECT_EQ(status_of(answer), 431) << answer.substr(0, 300);
    EXPECT_TRUE(c.closed_by_server(seconds(10)));
  }
  expect_healthy();
}

TEST_F(Malformed, ChunkedAndOtherBodiesAreRefused) {
  for (const std::string& framing : std::vector<std::string>{
           std::string("Transfer-Encoding: chunked\r\n"),
           std::string("Transfer-Encoding: gzip, chunked\r\n"),
           std::string("Content-Length: 100000000\r\n"),
           std::string("Content-Length: 5\r\nContent-Length: 6\r\n"),
           std::string("Content-Length: -1\r\n"),
           std::string("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")}) {
    const std::string r = exchange("GET /v1/devices HTTP/1.1\r\n" + host_ + framing + "\r\n" +
                                   "5\r\nhello\r\n0\r\n\r\n");
    EXPECT_EQ(status_of(r), 413) << framing << r.substr(0, 300);
  }
  // A POST with a large body it is still sending: refused early, never read whole.
  {
    RawConnection c(server_->port());
    c.send("POST /v1/best HTTP/1.1\r\n" + host_ + "Content-Length: 10000000\r\n\r\n" +
           std::string(65536, 'x'));
    const std::string r = c.read_response(seconds(10));
    EXPECT_EQ(status_of(r), 405) << r.substr(0, 300);
    EXPECT_TRUE(c.closed_by_server(seconds(10)));
  }
  expect_healthy();
}

TEST_F(Malformed, BadEncodingsAre400sNotCrashes) {
  const std::string base = "GET /v1/best?device=" + std::string(kDevice) + "&kernel=";
  for (const std::string& kernel : std::vector<std::string>{
           std::string("%zz"), std::string("%"), std::string("%00"), std::string("%C3%28"),
           std::string("%FF%FE"), std::string("\xff\xfe"),
           std::string("tiled_dynamic%0d%0aX-Injected:%201"), std::string("%25%32%35")}) {
    const std::string r =
        exchange(base + kernel + "&m=1&n=1&k=1 HTTP/1.1\r\n" + host_ + "\r\n", false);
    EXPECT_EQ(status_of(r), 400) << kernel << "\n" << r.substr(0, 300);
    EXPECT_EQ(header_of(r, "X-Injected"), "");
    EXPECT_TRUE(json::accept(body_of(r))) << r;  // valid JSON, whatever came in
  }
  // Broken request lines and header syntax.
  for (const std::string& broken : std::vector<std::string>{
           std::string("GET\r\n\r\n"), std::string("GET / HTTP/9.9\r\n\r\n"),
           std::string("GET / HTTP/1.1 extra\r\n\r\n"), std::string("\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\r\n" + host_ + "Bad Header\r\n\r\n"),
           std::string("GET /healthz HTTP/1.1\n\n"),
           std::string("G\x00T / HTTP/1.1\r\n\r\n", 18)}) {
    const std::string r = exchange(broken, false);
    EXPECT_LT(status_of(r), 500) << broken << "\n" << r;
  }
  expect_healthy();
}

TEST_F(Malformed, SlowClientsAreCutOffAtTheHeadDeadline) {
  RawConnection c(server_->port());
  c.send("GET /healthz HTTP/1.1\r\n");  // and then nothing
  const std::string r = c.read_response(seconds(15));
  EXPECT_EQ(status_of(r), 408) << r;
  EXPECT_TRUE(c.closed_by_server(seconds(5)));
  expect_healthy();
}

TEST_F(Malformed, HundredIdleKeepAliveConnectionsDoNotStarveNewClients) {
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 100; ++i) {
    auto c = std::make_unique<RawConnection>(server_->port());
    ASSERT_TRUE(c->connected()) << i;
    if (i % 2 == 0) {
      // Half have asked once and now sit on the kept-alive connection; half never ask. An
      // answer comes either way: 200, or 503 when workers and queue are momentarily full.
      c->send("GET /healthz HTTP/1.1\r\n" + host_ + "\r\n");
      const int status = status_of(c->read_response(seconds(15)));
      EXPECT_TRUE(status == 200 || status == 503) << i << ": " << status;
    }
    idle.push_back(std::move(c));
  }
  // With 4 workers and 100 idle connections, a new client is still answered: idle connections
  // give their worker up when others wait, and time out on their own.
  expect_healthy();
  // Every idle connection is eventually closed by the server (keep-alive and first-byte
  // timeouts), none is left holding a worker.
  int closed = 0;
  for (auto& c : idle) closed += c->closed_by_server(seconds(15));
  EXPECT_EQ(closed, 100);
  expect_healthy();
}

TEST_F(Malformed, RandomBytesNeverBreakTheServer) {
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(1, 65536);
  const long before = resident_kib();
  for (int i = 0; i < 40; ++i) {
    std::string junk(static_cast<std::size_t>(length(rng)), '\0');
    for (char& ch : junk) ch = static_cast<char>(byte(rng));
    if (i % 4 == 0) junk = "GET /" + junk;  // past the method, into the parser
    RawConnection c(server_->port());
    ASSERT_TRUE(c.connected());
    c.send(junk);
    const std::string r = c.read_response(seconds(10));
    const int status = status_of(r);
    EXPECT_TRUE(status == 0 || (status >= 400 && status < 500)) << status;
    EXPECT_TRUE(c.closed_by_server(seconds(10))) << i;
  }
  expect_healthy();
  // Memory stays bounded: nothing of the junk is retained.
  EXPECT_LT(resident_kib() - before, 64 * 1024);
}

TEST_F(Malformed, ManyConnectionsAtOnceGetAnswersOr503sNeverSilence) {
  // More simultaneous slow connections than workers + queue: the excess is shed with a 503
  // and Retry-After (or waits in the kernel backlog), and the server recovers.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 40; ++i) {
    auto c = std::make_unique<RawConnection>(server_->port());
    c->send("GET /healthz HTTP/1.1\r\n");  // incomplete: holds a worker until the deadline
    slow.push_back(std::move(c));
  }
  int shed = 0, timed_out = 0;
  for (auto& c : slow) {
    const std::string r = c->read_response(seconds(20));
    const int status = status_of(r);
    if (status == 503) {
      ++shed;
      EXPECT_EQ(header_of(r, "Retry-After"), "1");
    } else if (status == 408) {
      ++timed_out;
    } else {
      ADD_FAILURE() << "unexpected answer: " << r.substr(0, 200);
    }
  }
  EXPECT_EQ(shed + timed_out, 40);
  EXPECT_GT(shed, 0);  // 40 > 4 workers + 4 queued
  expect_healthy();
}

}  // namespace
}  // namespace occtune::testing
