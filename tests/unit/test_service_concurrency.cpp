// The service reads while a writer imports runs into the same database: every answer is a
// correct one, each committed run is seen by the very next request, and the writer is never
// blocked. And a locked store is a 503 with Retry-After, not an error page or a hang.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "db/store.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/service_harness.hpp"

namespace occtune::testing {
namespace {

using nlohmann::json;

constexpr const char* kDevice = "GPU-aaaaaaaa-0000-4000-8000-000000000001";
const std::string kBest =
    std::string("/v1/best?device=") + kDevice + "&kernel=tiled_dynamic&m=1024&n=1024&k=1024";

TEST(ServiceConcurrency, ReadersSeeEachCommitAtTheNextRequestWhileTheWriterIsNeverBlocked) {
  TempDir dir;
  const auto db_path = dir.path / "serve.db";
  const DeviceInfo device = seed_device(kDevice);
  const Shape shape{1024, 1024, 1024};
  {
    auto store = db::Store::open(db_path);
    seed_run(store, device, shape, 1.0);
  }
  service::ServiceOptions options;
  options.db = db_path;
  options.threads = 8;
  RunningService server(options);

  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(10, 0);
      while (!stop.load()) {
        auto res = client.Get(r % 2 ? kBest.c_str() : "/v1/configs?limit=5");
        if (!res || res->status != 200) {
          ++wrong;
          continue;
        }
        ++answered;
      }
    });
  }

  auto writer = db::Store::open(db_path);
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(10, 0);
  double best_ms = 1.0;
  for (int i = 0; i < 25; ++i) {
    best_ms *= 0.9;  // each run is faster, so each is the new best
    std::int64_t run = 0;
    ASSERT_NO_THROW(run = seed_run(writer, device, shape, best_ms)) << "run " << i;
    auto res = client.Get(kBest.c_str());
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    const json j = json::parse(res->body);
    EXPECT_EQ(j["entry"]["run"]["id"].get<std::int64_t>(), run) << "run " << i;
    EXPECT_DOUBLE_EQ(j["entry"]["best"]["timing"]["median_ms"].get<double>(), best_ms);
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(answered.load(), 0);
}

TEST(ServiceConcurrency, ALockedStoreIs503WithRetryAfterAndRecovers) {
  TempDir dir;
  const auto db_path = dir.path / "serve.db";
  {
    auto store = db::Store::open(db_path);
    seed_run(store, seed_device(kDevice), Shape{1024, 1024, 1024}, 1.0);
  }
  {
    // In WAL mode a reader is never locked out; a rollback-journal file under an exclusive
    // transaction is the dependable way to lock one out.
    SQLite::Database raw(db_path.string(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA journal_mode = DELETE");
  }
  service::ServiceOptions options;
  options.db = db_path;
  options.threads = 1;  // one worker, whose connection is already open when the lock comes
  options.busy_timeout_ms = 50;
  RunningService server(options);
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(10, 0);
  ASSERT_EQ(client.Get(kBest.c_str())->status, 200);

  SQLite::Database locker(db_path.string(), SQLite::OPEN_READWRITE);
  locker.exec("BEGIN EXCLUSIVE");
  for (const char* path : {kBest.c_str(), "/v1/devices", "/v1/configs", "/healthz"}) {
    auto res = client.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 503) << path << " " << res->body;
    EXPECT_EQ(res->get_header_value("Retry-After"), "1") << path;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/problem+json");
    EXPECT_EQ(json::parse(res->body)["type"], "urn:occtune:problem:store-busy") << path;
    EXPECT_EQ(res->body.find("locked by another process (waited"), std::string::npos);
  }
  locker.exec("COMMIT");
  auto res = client.Get(kBest.c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  auto metrics = client.Get("/metrics");
  EXPECT_NE(metrics->body.find("occtune_store_busy_total 4"), std::string::npos);
}

}  // namespace
}  // namespace occtune::testing
