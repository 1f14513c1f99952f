// The service's limits where issue #16 (defect 6) found holes, against the real server: a
// cursor past INT64_MAX, repeated identical parameters (httplib drops the repeat), 1,500
// empty-valued headers (httplib drops those too), an answer cached under the raw query text
// and served to an invalid request, a per-worker cache that grew by count rather than bytes,
// and slow clients holding every worker while a fast one waited.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
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

class ServiceLimits : public ::testing::Test {
 protected:
  void start(std::size_t threads, int shapes = 1) {
    {
      auto store = db::Store::open(dir_.path / "serve.db");
      for (int s = 0; s < shapes; ++s)
        seed_run(store, seed_device(kDevice), Shape{1024, 1024, 1024 + s}, 0.25);
    }
    service::ServiceOptions options;
    options.db = dir_.path / "serve.db";
    options.threads = threads;
    options.queue = 256;
    server_ = std::make_unique<RunningService>(options);
    host_ = "Host: " + server_->host() + "\r\n";
  }
  std::string get(const std::string& target, const std::string& extra = "") const {
    return "GET " + target + " HTTP/1.1\r\n" + host_ + extra + "\r\n";
  }
  // One request on its own connection; the response.
  std::string ask(const std::string& request) {
    RawConnection c(server_->port());
    EXPECT_TRUE(c.connected());
    c.send(request);
    return c.read_response(seconds(10));
  }
  static std::string best(const std::string& query) { return "/v1/best?" + query; }

  TempDir dir_;
  std::unique_ptr<RunningService> server_;
  std::string host_;
};

const std::string kGood =
    "device=" + std::string(kDevice) + "&kernel=tiled_dynamic&m=1024&n=1024&k=1024";

TEST_F(ServiceLimits, CursorPastInt64IsRefused) {
  start(2);
  for (const char* cursor :
       {"9223372036854775808", "9999999999999999999", "18446744073709551617"}) {
    const std::string r = ask(get(std::string("/v1/configs?cursor=") + cursor));
    EXPECT_EQ(status_of(r), 400) << cursor << ": " << r;
    EXPECT_NE(body_of(r).find("cursor"), std::string::npos) << r;
  }
  EXPECT_EQ(status_of(ask(get("/v1/configs?cursor=9223372036854775807"))), 200);
}

TEST_F(ServiceLimits, RepeatedParametersAreRefusedEvenWhenIdentical) {
  start(2);
  for (const std::string& query :
       {kGood + "&m=1024", kGood + "&%6D=1024", kGood + "&k=1024&k=1024"}) {
    const std::string r = ask(get(best(query)));
    EXPECT_EQ(status_of(r), 400) << query << ": " << r;
    EXPECT_NE(body_of(r).find("more than once"), std::string::npos) << r;
  }
  EXPECT_EQ(status_of(ask(get("/v1/configs?limit=5&limit=5"))), 400);
  EXPECT_EQ(status_of(ask(get(best(kGood)))), 200);
}

TEST_F(ServiceLimits, EmptyValuedHeadersCountTowardsTheFieldCap) {
  start(2);
  std::string empty;
  for (int i = 0; i < 1500; ++i) empty += "X:\r\n";  // 6 KB: under the head's byte cap
  const std::string r = ask(get("/healthz", empty));
  EXPECT_EQ(status_of(r), 431) << r.substr(0, 300);
  EXPECT_EQ(status_of(ask(get("/healthz"))), 200);
}

// One worker, one connection: the second request would have found the first one's answer under
// the same raw-text key ("device=<uuid>\nk=1024" decoded from %0Ak%3D1024).
TEST_F(ServiceLimits, TheCacheIsKeyedOnValidatedParameters) {
  start(1);
  RawConnection c(server_->port());
  ASSERT_TRUE(c.connected());
  c.send(get(best(kGood)));
  ASSERT_EQ(status_of(c.read_response(seconds(10))), 200);
  c.send(get(
      best("device=" + std::string(kDevice) + "%0Ak%3D1024&kernel=tiled_dynamic&m=1024&n=1024")));
  const std::string r = c.read_response(seconds(10));
  EXPECT_EQ(status_of(r), 400) << r;
}

// Large pages under distinct cursors: the worker's cache keeps at most a few MB of them.
TEST_F(ServiceLimits, TheAnswerCacheIsBoundedInBytes) {
  start(1, 300);
  const std::string first = ask(get("/v1/configs?limit=500"));
  ASSERT_EQ(status_of(first), 200);
  ASSERT_GT(body_of(first).size(), 200000u);
  const long before = resident_kib();
  RawConnection c(server_->port());
  for (int i = 0; i < 200; ++i) {
    c.send(get("/v1/configs?limit=500&cursor=" + std::to_string(1000000 + i)));
    ASSERT_EQ(status_of(c.read_response(seconds(10))), 200) << i;
  }
  const long grown_mib = (resident_kib() - before) / 1024;
  EXPECT_LT(grown_mib, 40) << "200 cached pages of " << body_of(first).size() / 1024 << " KiB";
}

// 40 clients sending their head a byte at a time against 4 workers: a fast client is still
// answered at once (before: each slow one held a worker for the 5 s head deadline, in order).
TEST_F(ServiceLimits, SlowClientsDoNotHoldWorkersWhileFastOnesWait) {
  start(4);
  const std::string head = get("/healthz");
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 40; ++i) slow.push_back(std::make_unique<RawConnection>(server_->port()));
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    for (std::size_t at = 0; at + 1 < head.size() && !done; ++at) {
      for (auto& c : slow) c->send(head.substr(at, 1));
      std::this_thread::sleep_for(milliseconds(200));
    }
  });
  std::this_thread::sleep_for(milliseconds(500));  // every worker has a slow one by now
  for (int i = 0; i < 3; ++i) {
    const auto start_time = std::chrono::steady_clock::now();
    const std::string r = ask(get(best(kGood)));
    const auto took = std::chrono::steady_clock::now() - start_time;
    EXPECT_EQ(status_of(r), 200) << r;
    EXPECT_LT(took, milliseconds(1500)) << "a fast client waited behind slow ones";
  }
  done = true;
  trickle.join();
}

}  // namespace
}  // namespace occtune::testing
