// The store under stress, with real processes (fork): eight writers and two readers on one file
// lose nothing and never fail with SQLITE_BUSY; a writer killed with SIGKILL at random points,
// one hundred times, always leaves a file that passes integrity_check, with every run either
// complete with all its measurements or interrupted, and nothing committed ever lost.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/retry.hpp"
#include "db/store.hpp"
#include "tests/support/store_builders.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_complete_run;

constexpr int kMeasurementsPerRun = 4;

// Children report through their exit status and stderr only: no gtest after fork().
[[noreturn]] void child_exit(const char* who, const std::exception* e) {
  if (e != nullptr) std::fprintf(stderr, "%s %d: %s\n", who, ::getpid(), e->what());
  ::_exit(e == nullptr ? 0 : 1);
}

void wait_for(int fd) {
  char byte;
  while (::read(fd, &byte, 1) < 0 && errno == EINTR) {
  }
}

bool exited_cleanly(pid_t child) {
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::int64_t scalar(SQLite::Database& db, const std::string& sql) {
  return db.execAndGet(sql).getInt64();
}

TEST(StoreStress, EightWritersAndTwoReadersLoseNothingAndNeverSeeBusy) {
  TempDir dir("stress");
  const fs::path path = dir.path / "fresh" / "occtune.db";  // created by the racing writers
  constexpr int kWriters = 8, kReaders = 2, kRunsEach = 40;
  int start[2], retries[2];
  ASSERT_EQ(::pipe(start), 0);
  ASSERT_EQ(::pipe(retries), 0);
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters + kReaders; ++w) {
    const bool writer = w < kWriters;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(start[1]);
      wait_for(start[0]);  // all start at once
      try {
        if (writer) {
          auto store = Store::open(path);
          for (int i = 0; i < kRunsEach; ++i) write_complete_run(store, kMeasurementsPerRun);
          const std::uint64_t count = busy_retry_count().load();
          (void)!::write(retries[1], &count, sizeof count);
        } else {
          // Readers poll until the writers have created the schema, then read while they write.
          for (int reads = 0; reads < 200;) {
            try {
              auto store = Store::open(path, OpenMode::kReadOnly);
              for (; reads < 200; ++reads) {
                store.best(testing::fake_key());
                store.runs();
              }
            } catch (const Error& e) {
              if (e.code() != ExitCode::kNotFound) throw;
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
          }
        }
      } catch (const std::exception& e) {
        child_exit(writer ? "writer" : "reader", &e);
      }
      child_exit("", nullptr);
    }
    children.push_back(child);
  }
  ::close(start[0]);
  ::close(start[1]);  // go
  for (const pid_t child : children) EXPECT_TRUE(exited_cleanly(child)) << "pid " << child;
  ::close(retries[1]);
  std::uint64_t total_retries = 0, count = 0;
  while (::read(retries[0], &count, sizeof count) == sizeof count) total_retries += count;
  ::close(retries[0]);
  RecordProperty("busy_retries", std::to_string(total_retries));
  std::printf("busy retries over all writers: %llu\n",
              static_cast<unsigned long long>(total_retries));

  SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA integrity_check").getString(), "ok");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs"), kWriters * kRunsEach);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs WHERE status = 'complete'"),
            kWriters * kRunsEach);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM measurements"),
            kWriters * kRunsEach * kMeasurementsPerRun);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM devices"), 1);
  EXPECT_EQ(scalar(db, "SELECT count(DISTINCT owner_pid) FROM runs"), kWriters);
  EXPECT_EQ(scalar(db, "PRAGMA user_version"), kSchemaVersion);
}

// A writer that never stops: complete runs of kMeasurementsPerRun measurements, each write its
// own transaction, until it is killed.
[[noreturn]] void endless_writer(const fs::path& path) {
  try {
    auto store = Store::open(path);
    for (;;) write_complete_run(store, kMeasurementsPerRun);
  } catch (const std::exception& e) {
    child_exit("writer", &e);
  }
}

struct Totals {
  std::int64_t runs = 0, measurements = 0;
  std::int64_t interrupted_with_data = 0;  // interrupted runs that hold measurements
};

// The invariants after a crash. Returns what the file holds, to check that nothing committed
// is ever lost.
Totals check_after_crash(const fs::path& path, int iteration) {
  SCOPED_TRACE("iteration " + std::to_string(iteration));
  if (!fs::exists(path)) return {};  // killed before SQLite created the file
  {
    // Plain SQLite first: the file as the crash left it (after WAL recovery).
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
    SQLite::Statement fk(raw, "PRAGMA foreign_key_check");
    EXPECT_FALSE(fk.executeStep()) << "a row refers to a missing row";
  }
  auto store = Store::open(path);  // marks the dead writer's run 'interrupted'
  SQLite::Database db(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM runs WHERE status NOT IN ('complete', "
                   "'interrupted')"),
            0)
      << "a run of the dead writer is still 'running'";
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM runs r WHERE status = 'complete' AND (SELECT "
                   "count(*) FROM measurements m WHERE m.run_id = r.id) != " +
                       std::to_string(kMeasurementsPerRun)),
            0)
      << "a complete run lacks measurements";
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM measurements m "
                   "WHERE m.run_id = r.id) > " +
                       std::to_string(kMeasurementsPerRun)),
            0);
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM measurements WHERE run_id NOT IN (SELECT id FROM "
                   "runs)"),
            0);
  const std::int64_t complete = scalar(db, "SELECT count(*) FROM runs WHERE status = 'complete'");
  const auto best = store.best(testing::fake_key());
  EXPECT_EQ(best.has_value(), complete > 0);
  if (best) {
    EXPECT_EQ(best->run.status, RunStatus::kComplete);
    EXPECT_EQ(best->run.id, scalar(db, "SELECT max(id) FROM runs WHERE status = 'complete'"));
  }
  return {scalar(db, "SELECT count(*) FROM runs"), scalar(db, "SELECT count(*) FROM measurements"),
          scalar(db,
                 "SELECT count(*) FROM runs r WHERE status = 'interrupted' AND EXISTS (SELECT 1 "
                 "FROM measurements m WHERE m.run_id = r.id)")};
}

TEST(StoreStress, SigkillAtRandomPointsHundredTimesLeavesNoPartialRun) {
  TempDir dir("sigkill");
  const fs::path path = dir.path / "occtune.db";
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> delay_us(1'000, 50'000);
  Totals before;
  int mid_run_kills = 0;  // kills that left a run with some of its measurements
  for (int iteration = 0; iteration < 100; ++iteration) {
    if (iteration % 25 == 0) {
      // Start over now and then, so some kills land while the file is being created.
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
      before = {};
    }
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) endless_writer(path);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself (see its stderr)";
    const Totals after = check_after_crash(path, iteration);
    mid_run_kills += after.interrupted_with_data > before.interrupted_with_data;
    EXPECT_GE(after.runs, before.runs) << "committed runs were lost";
    EXPECT_GE(after.measurements, before.measurements) << "committed measurements were lost";
    before = after;
    if (HasFailure()) break;  // the first broken invariant says it all
  }
  RecordProperty("mid_run_kills", std::to_string(mid_run_kills));
  std::printf("kills that left a run with some of its measurements: %d of 100\n", mid_run_kills);
}

}  // namespace
}  // namespace occtune::db
