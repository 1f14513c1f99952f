// Concurrent imports (issue #16, defect 4): 16 `occtune import` processes merge 16 large
// exports into one store at once, while another writer holds the lock for longer than the busy
// timeout. Each import is one write transaction that waits for the others; without the busy
// retry every other write has (db/retry.hpp), those queued longer than the busy timeout failed
// with "database is locked" (exit 4). Nothing may be lost and no import may fail.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "db/exchange.hpp"
#include "tests/support/gate_fixtures.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;

constexpr int kImports = 16;
constexpr int kRunsPerExport = 60;
constexpr int kSamples = 1000;

TEST(ImportConcurrency, SixteenLargeImportsIntoOneStoreLoseNothing) {
  const fs::path dir =
      fs::temp_directory_path() / ("occtune_import_concurrency_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // One large export, written 16 times with shapes no other copy has, so every run is new to
  // the target.
  nlohmann::json doc;
  {
    Store source = Store::open(dir / "source.db");
    std::mt19937_64 rng{16};
    for (int r = 0; r < kRunsPerExport; ++r)
      testing::add_tuning_run(source, testing::gate_device(), {1000 + r, 512, 512},
                              {{32, 0.26}, {16, 0.29}, {8, 0.43}, {4, 1.1}}, rng,
                              testing::NoiseModel{}, /*samples=*/kSamples);
    doc = nlohmann::json::parse(export_runs(source, {"t", {}}).json);
  }
  std::size_t measurements = 0;
  for (int i = 0; i < kImports; ++i) {
    for (auto& run : doc["runs"]) {
      run["m"] = run["m"].get<std::int64_t>() % 1000 + 1000 * (i + 1);
      measurements += run["measurements"].size();
    }
    std::ofstream(dir / ("export" + std::to_string(i) + ".json")) << doc.dump();
  }
  const fs::path target = dir / "target.db";
  Store::open(target);

  // Another writer holds the write lock longer than the busy timeout (5 s) while the imports
  // start, as a long import or tune write does: every import must wait it out and then succeed.
  SQLite::Database holder(target.string(), SQLite::OPEN_READWRITE);
  holder.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::seconds(8));
    holder.exec("ROLLBACK");
  });

  std::vector<testing::CliResult> results(kImports);
  std::vector<std::thread> threads;
  for (int i = 0; i < kImports; ++i)
    threads.emplace_back([&, i] {
      results[std::size_t(i)] =
          testing::run_cli("import " + (dir / ("export" + std::to_string(i) + ".json")).string() +
                           " --db " + target.string());
    });
  for (auto& t : threads) t.join();
  release.join();
  for (int i = 0; i < kImports; ++i)
    EXPECT_EQ(results[std::size_t(i)].code, 0)
        << "import " << i << ": " << results[std::size_t(i)].err;

  Store store = Store::open(target);
  const auto runs = store.runs();
  EXPECT_EQ(runs.size(), std::size_t(kImports * kRunsPerExport));
  std::size_t stored = 0;
  for (auto& run : runs) stored += store.measurements(run.id).size();
  EXPECT_EQ(stored, measurements);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace occtune::db
