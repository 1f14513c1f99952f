// The store under adverse conditions (issue #5): bounded busy retry, abandoned runs of dead
// writers, damaged files (detected, moved aside with their -wal/-shm, never when not ours),
// network filesystems, schema migration in one transaction and newer schemas left untouched,
// and the `db doctor` checks behind the CLI.
#include <SQLiteCpp/Database.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/doctor.hpp"
#include "db/file_probe.hpp"
#include "db/recovery.hpp"
#include "db/retry.hpp"
#include "db/run_owner.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "tests/support/store_builders.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;
using testing::files_containing;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;
using testing::write_complete_run;

template <typename F>
ExitCode code_of(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no occtune::Error was thrown";
  return ExitCode::kOk;
}

std::int64_t count(const fs::path& path, const std::string& sql) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  return raw.execAndGet(sql).getInt64();
}

// A store with `runs` complete runs, closed (so its WAL is checkpointed into the file).
void populate(const fs::path& path, int runs = 20) {
  auto store = Store::open(path);
  for (int i = 0; i < runs; ++i) write_complete_run(store, 5);
}

// --- bounded busy retry ---------------------------------------------------------------------

SQLite::Exception busy() { return SQLite::Exception("database is locked", SQLITE_BUSY); }

TEST(BusyRetry, RetriesBusyUntilItSucceeds) {
  const auto before = busy_retry_count().load();
  int calls = 0;
  const BusyRetry quick{8, std::chrono::milliseconds(1), std::chrono::milliseconds(2)};
  const int result = with_busy_retry(quick, [&] {
    if (++calls < 4) throw busy();
    return 42;
  });
  EXPECT_EQ(result, 42);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(busy_retry_count().load() - before, 3u);
}

TEST(BusyRetry, GivesUpAfterTheLastAttemptWithTheBusyError) {
  int calls = 0;
  const BusyRetry quick{5, std::chrono::milliseconds(1), std::chrono::milliseconds(1)};
  try {
    with_busy_retry(quick, [&] {
      ++calls;
      throw busy();
    });
    ADD_FAILURE() << "no exception";
  } catch (const SQLite::Exception& e) {
    EXPECT_EQ(e.getErrorCode(), SQLITE_BUSY);
  }
  EXPECT_EQ(calls, 5);
}

TEST(BusyRetry, OtherErrorsAreNotRetried) {
  int calls = 0;
  EXPECT_THROW(with_busy_retry(BusyRetry{},
                               [&] {
                                 ++calls;
                                 throw SQLite::Exception("constraint failed", SQLITE_CONSTRAINT);
                               }),
               SQLite::Exception);
  EXPECT_EQ(calls, 1);
  calls = 0;
  EXPECT_THROW(with_busy_retry(BusyRetry{},
                               [&] {
                                 ++calls;
                                 fail(ExitCode::kNotFound, "no such run");
                               }),
               Error);
  EXPECT_EQ(calls, 1);
}

TEST(BusyRetry, PausesGrowExponentiallyWithJitterAndACap) {
  const BusyRetry policy{8, std::chrono::milliseconds(10), std::chrono::milliseconds(100)};
  std::minstd_rand random(7);
  std::vector<std::int64_t> seen;
  for (int round = 0; round < 200; ++round) {
    for (int attempt = 1; attempt <= 6; ++attempt) {
      const std::int64_t step = std::min<std::int64_t>(100'000, 10'000LL << (attempt - 1));
      const auto pause = policy.pause(attempt, random).count();
      EXPECT_GE(pause, step / 2) << attempt;
      EXPECT_LE(pause, step) << attempt;
      if (attempt == 1) seen.push_back(pause);
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_LT(seen.front(), seen.back()) << "no jitter";
}

TEST(BusyRetry, AWriteWaitsOutALockHeldLongerThanTheBusyTimeout) {
  TempDir dir("retry");
  const fs::path path = dir.path / "occtune.db";
  auto store = Store::open(path);
  store.set_busy_timeout(0);  // every attempt fails at once while the lock is held
  SQLite::Database holder(path.string(), SQLite::OPEN_READWRITE);
  holder.exec("BEGIN IMMEDIATE");
  const auto before = busy_retry_count().load();
  // Released once the store has been refused at least once; the six retries left pause at
  // least 10 + 20 + ... + 320 = 630 ms in all, far longer than the release takes.
  std::thread release([&] {
    while (busy_retry_count().load() == before)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    holder.exec("COMMIT");
  });
  EXPECT_NO_THROW(write_complete_run(store));
  release.join();
  EXPECT_GT(busy_retry_count().load(), before);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST(BusyRetry, ALockNeverReleasedFailsBoundedAndWritesNothing) {
  TempDir dir("retry");
  const fs::path path = dir.path / "occtune.db";
  auto store = Store::open(path);
  store.set_busy_timeout(0);
  SQLite::Database holder(path.string(), SQLite::OPEN_READWRITE);
  holder.exec("BEGIN IMMEDIATE");
  std::string message;
  EXPECT_EQ(code_of([&] { store.begin_run(testing::fake_run_start()); }, &message),
            ExitCode::kRuntime);
  EXPECT_NE(message.find("locked by another process"), std::string::npos) << message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  holder.exec("ROLLBACK");
  EXPECT_TRUE(store.runs().empty());
}

// --- abandoned runs -------------------------------------------------------------------------

owner::ProcessIdentity here() {
  owner::ProcessIdentity id;
  id.pid = 1000;
  id.host = "gpu-box";
  id.boot_id = "boot-a";
  id.pid_ns = "pid:[1]";
  id.start_ticks = 5;
  return id;
}

owner::PidProbe probe(bool exists, bool zombie = false, std::int64_t start = 77) {
  return [=](std::int64_t) { return owner::PidState{exists, zombie, start}; };
}

TEST(RunOwner, JudgesOnlyWhatItCanKnow) {
  using owner::Liveness;
  owner::ProcessIdentity writer = here();
  writer.pid = 4242;
  writer.start_ticks = 77;
  std::string why;
  EXPECT_EQ(owner::judge(writer, here(), probe(true), &why), Liveness::kAlive) << why;
  EXPECT_EQ(owner::judge(writer, here(), probe(false), &why), Liveness::kDead);
  EXPECT_NE(why.find("4242"), std::string::npos) << why;
  EXPECT_EQ(owner::judge(writer, here(), probe(true, true), &why), Liveness::kDead) << why;
  // The pid was reused by a process that started at another time.
  EXPECT_EQ(owner::judge(writer, here(), probe(true, false, 78), &why), Liveness::kDead) << why;
  // Start time unknown on either side: trust the pid.
  EXPECT_EQ(owner::judge(writer, here(), probe(true, false, 0), &why), Liveness::kAlive);

  owner::ProcessIdentity other = writer;
  other.host = "other-box";
  EXPECT_EQ(owner::judge(other, here(), probe(false), &why), Liveness::kUnknown);
  EXPECT_NE(why.find("other-box"), std::string::npos) << why;
  other = writer;
  other.pid_ns = "pid:[2]";  // a container sharing the volume: its pids mean nothing here
  EXPECT_EQ(owner::judge(other, here(), probe(false), &why), Liveness::kUnknown);
  other = writer;
  other.boot_id = "boot-b";  // the machine rebooted since: nothing survives that
  EXPECT_EQ(owner::judge(other, here(), probe(true), &why), Liveness::kDead);
  EXPECT_NE(why.find("reboot"), std::string::npos) << why;
  EXPECT_EQ(owner::judge(owner::ProcessIdentity{}, here(), probe(false), &why), Liveness::kUnknown);
}

TEST(RunOwner, CurrentProcessIsAliveToItself) {
  const owner::ProcessIdentity self = owner::current_process();
  EXPECT_EQ(self.pid, ::getpid());
  EXPECT_FALSE(self.host.empty());
  EXPECT_GT(self.start_ticks, 0);
  EXPECT_FALSE(self.boot_id.empty());
  EXPECT_EQ(owner::judge(self, owner::current_process(), owner::system_probe()),
            owner::Liveness::kAlive);
}

// A pid that certainly belonged to a process that is gone now.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(AbandonedRuns, WriteOpenMarksRunsOfDeadWritersInterruptedOnly) {
  TempDir dir("abandoned");
  const fs::path path = dir.path / "occtune.db";
  std::int64_t live = 0, dead = 0, elsewhere = 0, legacy = 0, done = 0;
  {
    auto store = Store::open(path);
    done = write_complete_run(store, 3, 0.5);
    live = store.begin_run(testing::fake_run_start());
    dead = store.begin_run(testing::fake_run_start());
    store.add_measurement(dead, testing::fake_measurement(0.01));  // fast, but never the best
    elsewhere = store.begin_run(testing::fake_run_start());
    legacy = store.begin_run(testing::fake_run_start());
  }
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE runs SET owner_pid = " + std::to_string(dead_pid()) +
             " WHERE id = " + std::to_string(dead));
    raw.exec("UPDATE runs SET owner_host = 'another-host' WHERE id = " + std::to_string(elsewhere));
    raw.exec("UPDATE runs SET owner_pid = NULL, owner_host = NULL WHERE id = " +
             std::to_string(legacy));
  }
  auto status_of = [&](std::int64_t id) {
    SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
    return raw.execAndGet("SELECT status FROM runs WHERE id = " + std::to_string(id)).getString();
  };
  { auto reader = Store::open(path, OpenMode::kReadOnly); }  // a reader changes nothing
  EXPECT_EQ(status_of(dead), "running");

  const DoctorReport report = diagnose(path);
  EXPECT_EQ(report.state, DoctorReport::State::kHealthy) << report.summary;
  ASSERT_EQ(report.running.size(), 4u);
  EXPECT_EQ(report.running[1].liveness, owner::Liveness::kDead);

  auto store = Store::open(path);
  EXPECT_EQ(status_of(live), "running");  // this very process: alive
  EXPECT_EQ(status_of(dead), "interrupted");
  EXPECT_EQ(status_of(elsewhere), "running");
  EXPECT_EQ(status_of(legacy), "running");
  EXPECT_EQ(status_of(done), "complete");
  EXPECT_EQ(store.measurements(dead).size(), 1u);  // nothing measured is lost
  const auto best = store.best(testing::fake_key());
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->run.id, done);
  for (const auto& run : store.runs())
    if (run.id == dead) {
      EXPECT_FALSE(run.finished_at.empty());
    }
}

TEST(AbandonedRuns, RunsRecordTheirWriter) {
  auto memory = Store::open(":memory:");
  EXPECT_GT(memory.begin_run(testing::fake_run_start()), 0);
  TempDir dir("owner");
  const fs::path path = dir.path / "occtune.db";
  {
    auto file_store = Store::open(path);
    file_store.begin_run(testing::fake_run_start());
  }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(raw, "SELECT owner_pid, owner_host, owner_start_ticks FROM runs");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt64(), ::getpid());
  EXPECT_EQ(q.getColumn(1).getString(), owner::current_process().host);
  EXPECT_EQ(q.getColumn(2).getInt64(), owner::current_process().start_ticks);
}

// --- schema migration -----------------------------------------------------------------------

// A file as an occtune of schema `version` left it, with one complete run of 2 measurements
// and one run still 'running'; written with plain SQL, valid for every schema >= 1.
void make_old_file(const fs::path& path, int version) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  schema::create_as_version(raw, version);
  raw.exec(R"sql(
    INSERT INTO devices VALUES (1, 'GPU-00000000-robu-stne-ss00-000000000000',
      'NVIDIA H100 80GB HBM3', 9, 0, 132, 13000, 13000, '{}', '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z');
    INSERT INTO runs (id, device_id, kernel, build_id, dtype, m, n, k, status, started_at,
      finished_at, tool_version, argv_json, policy_json, cublas_count, cublas_median_ms)
      VALUES (1, 1, 'tiled_dynamic', 'build-robustness', 'f32', 256, 256, 256, 'complete',
      '2025-01-01T00:00:01.000Z', '2025-01-01T00:00:02.000Z', '0.0.1', '[]', '{}', 3, 0.5),
      (2, 1, 'tiled_dynamic', 'build-robustness', 'f32', 256, 256, 256, 'running',
      '2025-01-01T00:00:03.000Z', NULL, '0.0.1', '[]', '{}', 0, NULL);
  )sql");
  for (int i = 1; i <= 2; ++i) {
    raw.exec(fmt::format(
        "INSERT INTO measurements (run_id, variant, params, origin, step, suggested_block, "
        "block_limit, threads, tile, dynamic_smem, registers, active_blocks_per_sm, occupancy, "
        "limiter, grid_x, grid_y, waves, rejection, outcome, error, rel_error, sample_count, "
        "min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, samples_json, flops, gflops, "
        "sm_clock_mhz) VALUES (1, 'TiledDynamic<16>', 'tile=16', 'old', 1, 256, 1024, 256, 16, "
        "2048, 38, 8, 1.0, 'warps', 16, 16, 0.5, '', 'ok', '', 1e-7, 3, {0}, {0}, {0}, {0}, "
        "{0}, {0}, '[{0},{0},{0}]', 33554432, 33.5, 1980)",
        i * 1.5));
  }
}

// Schema 6 (issue #14) widens the outcome constraint by rebuilding the measurements table: the
// rows keep their ids and values, the index is back, and compile_failed is accepted only after.
TEST(Migration, Schema6AcceptsCompileFailedAndKeepsTheRows) {
  TempDir dir("migrate6");
  const fs::path path = dir.path / "v5.db";
  make_old_file(path, 5);
  const std::string insert_failed =
      "INSERT INTO measurements (run_id, variant, params, origin, step, suggested_block, "
      "block_limit, threads, tile, dynamic_smem, registers, active_blocks_per_sm, occupancy, "
      "limiter, grid_x, grid_y, waves, rejection, outcome, error, rel_error, sample_count, "
      "min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, samples_json, flops, gflops, "
      "sm_clock_mhz) VALUES (1, 'k<A=1>/8x8', 'A=1', 'registered', 0, 0, 0, 64, 0, 0, 0, 0, 0, "
      "'none', 1, 1, 0, '', 'compile_failed', 'error: expected a ;', NULL, 0, 0, 0, 0, 0, 0, 0, "
      "'[]', 0, 0, 0)";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    EXPECT_THROW(raw.exec(insert_failed), SQLite::Exception) << "schema 5 refuses it";
  }
  { auto store = Store::open(path); EXPECT_EQ(store.schema_version(), kSchemaVersion); }
  SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
  EXPECT_EQ(raw.execAndGet("SELECT group_concat(id) FROM measurements").getString(), "1,2");
  EXPECT_DOUBLE_EQ(raw.execAndGet("SELECT median_ms FROM measurements WHERE id = 2").getDouble(),
                   3.0);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
                           "'measurements_by_run'")
                .getInt(),
            1);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM sqlite_master WHERE name = 'measurements_v6'")
                .getInt(),
            0);
  raw.exec(insert_failed);
  EXPECT_EQ(raw.execAndGet("SELECT outcome FROM measurements WHERE id = 3").getString(),
            "compile_failed");
  EXPECT_THROW(raw.exec("UPDATE measurements SET outcome = 'exploded' WHERE id = 3"),
               SQLite::Exception)
      << "the constraint is still there";
}

TEST(Migration, OlderFilesMigrateWithTheirDataIntact) {
  for (int version = 1; version < kSchemaVersion; ++version) {
    SCOPED_TRACE("from schema " + std::to_string(version));
    TempDir dir("migrate");
    const fs::path path = dir.path / "old.db";
    make_old_file(path, version);
    // A reader cannot migrate, and says how to.
    std::string message;
    EXPECT_EQ(code_of([&] { Store::open(path, OpenMode::kReadOnly); }, &message),
              ExitCode::kNotFound);
    EXPECT_NE(message.find("schema " + std::to_string(version)), std::string::npos) << message;

    auto store = Store::open(path);
    EXPECT_EQ(store.schema_version(), kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, RunStatus::kRunning);  // owner unknown: left alone
    EXPECT_EQ(runs[1].status, RunStatus::kComplete);
    EXPECT_EQ(runs[1].tool_version, "0.0.1");
    EXPECT_EQ(runs[1].key.layout, "nn");  // runs from before layouts were all nn
    const auto measured = store.measurements(1);
    ASSERT_EQ(measured.size(), 2u);
    EXPECT_DOUBLE_EQ(measured[1].summary.median, 3.0);
    EXPECT_EQ(measured[1].samples_ms, (std::vector<double>{3.0, 3.0, 3.0}));
    const auto best = store.best(testing::fake_key());
    ASSERT_TRUE(best.has_value());
    EXPECT_DOUBLE_EQ(best->best.summary.median, 1.5);
    // The new columns exist, and new runs use them.
    const auto id = store.begin_run(testing::fake_run_start());
    EXPECT_EQ(count(path, "SELECT owner_pid FROM runs WHERE id = " + std::to_string(id)),
              ::getpid());
    // Schema 4's check history exists, starts empty and takes a check.
    EXPECT_TRUE(store.checks().empty());
    db::CheckRecord check;
    check.device_uuid = "GPU-1";
    check.keys.push_back({});
    store.record_check(check);
    EXPECT_EQ(count(path, "SELECT count(*) FROM check_keys"), 1);
  }
}

// The issue #12 layouts step, from a file of the previous version: every old run becomes an
// nn entry (its key still answers), the column refuses other spellings, and a tn run of the
// same shape is a separate entry.
TEST(Migration, LayoutStepKeepsOldRunsAsNn) {
  TempDir dir("migrate");
  const fs::path path = dir.path / "v4.db";
  make_old_file(path, 4);  // the last schema without layouts (5 added them)
  EXPECT_EQ(count(path, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'layout'"),
            0);
  auto store = Store::open(path);
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  EXPECT_EQ(count(path, "SELECT count(*) FROM runs WHERE layout = 'nn'"), 2);
  const auto best = store.best(testing::fake_key());
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->run.key.layout, "nn");
  auto tn = testing::fake_run_start();
  tn.layout = "tn";
  const auto id = store.begin_run(tn);
  EXPECT_EQ(count(path, "SELECT count(*) FROM runs WHERE layout = 'tn' AND id = " +
                            std::to_string(id)),
            1);
  auto tn_key = testing::fake_key();
  tn_key.layout = "tn";
  EXPECT_FALSE(store.best(tn_key).has_value());  // that run is not complete
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    EXPECT_THROW(raw.exec("UPDATE runs SET layout = 'xx' WHERE id = 1"), SQLite::Exception);
  }
}

TEST(Migration, AFailingStepLeavesTheFileAtItsOldVersionWithItsData) {
  TempDir dir("migrate");
  const fs::path path = dir.path / "old.db";
  make_old_file(path, 1);
  {
    // An object in the way of the last step (its partial index) makes that step fail after
    // the earlier steps already ran inside the same transaction.
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("CREATE INDEX runs_running ON runs (kernel)");
  }
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(path); }, &message), ExitCode::kRuntime);
  EXPECT_NE(message.find("migrating the schema"), std::string::npos) << message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;

  EXPECT_EQ(count(path, "PRAGMA user_version"), 1);
  // No column of any step survived: the steps before the failing one were rolled back too.
  EXPECT_EQ(count(path,
                  "SELECT count(*) FROM pragma_table_info('runs') WHERE name IN "
                  "('strategy', 'owner_pid')"),
            0);
  EXPECT_EQ(count(path, "SELECT count(*) FROM sqlite_master WHERE name = 'checks'"), 0);
  EXPECT_EQ(count(path, "SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count(path, "SELECT count(*) FROM measurements"), 2);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
  }

  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("DROP INDEX runs_running");
  }
  auto store = Store::open(path);  // with the obstacle gone it migrates
  EXPECT_EQ(store.schema_version(), kSchemaVersion);
  EXPECT_EQ(store.runs().size(), 2u);
}

TEST(Migration, NewerSchemaIsNeverWrittenNotEvenWalFiles) {
  TempDir dir("newer");
  const fs::path path = dir.path / "newer.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE future (x INTEGER)");
    raw.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    raw.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  }
  const std::string before = read_bytes(path);
  std::string message;
  EXPECT_EQ(code_of([&] { Store::open(path); }, &message), ExitCode::kNotFound);
  EXPECT_NE(message.find("newer occtune"), std::string::npos) << message;
  EXPECT_NE(message.find("upgrade occtune"), std::string::npos) << message;
  EXPECT_EQ(diagnose(path).state, DoctorReport::State::kNewer);
  const DoctorReport repaired = repair(path);
  EXPECT_EQ(repaired.state, DoctorReport::State::kNewer);
  EXPECT_EQ(repaired.exit_code(), ExitCode::kNotFound);
  EXPECT_TRUE(repaired.actions.empty());
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(path.string() + "-shm"));
  EXPECT_TRUE(files_containing(dir.path, ".corrupt-").empty());
}

// --- damaged files --------------------------------------------------------------------------

struct Damage {
  std::string name;
  void (*apply)(const fs::path&);
  bool found_at_open;  // SQLite notices it when opening; otherwise only integrity_check does
};

void overwrite_header(const fs::path& p) { write_bytes(p, "garbage-garbage!"); }
void truncate_half(const fs::path& p) { fs::resize_file(p, fs::file_size(p) / 2); }
void truncate_100(const fs::path& p) { fs::resize_file(p, 100); }
void zero_middle_page(const fs::path& p) {
  const auto pages = fs::file_size(p) / 4096;
  write_bytes(p, std::string(4096, '\0'), (pages / 2) * 4096);
}

class DamagedStore : public ::testing::TestWithParam<Damage> {};

TEST_P(DamagedStore, IsMovedAsideWithItsCompanionsAndReplacedByAFreshStore) {
  TempDir dir("damaged");
  const fs::path path = dir.path / "occtune.db";
  populate(path);
  ASSERT_GE(fs::file_size(path), 8u * 4096) << "too small to damage a middle page";
  GetParam().apply(path);
  const std::string damaged = read_bytes(path);

  // Readers report and change nothing.
  if (GetParam().found_at_open) {
    std::string message;
    EXPECT_EQ(code_of([&] { Store::open(path, OpenMode::kReadOnly); }, &message),
              ExitCode::kRuntime);
    EXPECT_NE(message.find("damaged"), std::string::npos) << message;
    EXPECT_NE(message.find("occtune db doctor --db " + path.string() + " --repair"),
              std::string::npos)
        << message;
    EXPECT_EQ(read_bytes(path), damaged);
  }
  const DoctorReport report = diagnose(path);
  EXPECT_EQ(report.state, DoctorReport::State::kDamaged) << report.summary;
  EXPECT_EQ(report.exit_code(), ExitCode::kRuntime);
  EXPECT_NE(report.summary.find("--repair"), std::string::npos) << report.summary;
  EXPECT_EQ(read_bytes(path), damaged);
  EXPECT_TRUE(files_containing(dir.path, ".corrupt-").empty());

  if (GetParam().found_at_open) {
    auto store = Store::open(path);  // a writer moves it aside and starts afresh
    EXPECT_TRUE(store.runs().empty());
    write_complete_run(store);
  } else {
    const DoctorReport repaired = repair(path);
    EXPECT_EQ(repaired.state, DoctorReport::State::kHealthy) << repaired.summary;
    ASSERT_FALSE(repaired.actions.empty());
    EXPECT_NE(repaired.actions[0].find(".corrupt-"), std::string::npos) << repaired.actions[0];
  }
  // The file, and the -wal/-shm that SQLite may have created while readers looked at it.
  const std::regex aside(R"(occtune\.db\.corrupt-\d{8}T\d{6}Z)");
  const std::regex companion(R"(occtune\.db\.corrupt-\d{8}T\d{6}Z-(wal|shm))");
  fs::path main;
  for (const auto& p : files_containing(dir.path, ".corrupt-")) {
    const std::string name = p.filename().string();
    if (std::regex_match(name, aside)) {
      EXPECT_TRUE(main.empty()) << "moved twice: " << name;
      main = p;
    } else {
      EXPECT_TRUE(std::regex_match(name, companion)) << name;
    }
  }
  ASSERT_FALSE(main.empty());
  EXPECT_EQ(read_bytes(main), damaged);  // kept byte for byte
  EXPECT_EQ(diagnose(path).state, DoctorReport::State::kHealthy);
}

INSTANTIATE_TEST_SUITE_P(Kinds, DamagedStore,
                         ::testing::Values(Damage{"OverwrittenHeader", overwrite_header, true},
                                           Damage{"TruncatedToHalf", truncate_half, true},
                                           Damage{"TruncatedTo100Bytes", truncate_100, true},
                                           Damage{"ZeroedMiddlePage", zero_middle_page, false}),
                         [](const ::testing::TestParamInfo<Damage>& p) { return p.param.name; });

TEST(DamagedStore, WalAndShmMoveTogetherWithTheFile) {
  TempDir dir("damaged");
  const fs::path path = dir.path / "occtune.db";
  populate(path, 5);
  // A writer killed mid-way leaves its -wal (with committed runs) and -shm behind.
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      auto store = Store::open(path);
      write_complete_run(store);
      ::kill(::getpid(), SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(fs::exists(path.string() + "-wal"));
  ASSERT_TRUE(fs::exists(path.string() + "-shm"));
  const std::string wal = read_bytes(path.string() + "-wal");
  overwrite_header(path);

  auto store = Store::open(path);
  EXPECT_TRUE(store.runs().empty());  // the old WAL was not replayed onto the fresh file
  const auto moved = files_containing(dir.path, ".corrupt-");
  ASSERT_EQ(moved.size(), 3u);
  int wal_count = 0, shm_count = 0;
  for (const auto& p : moved) {
    wal_count += p.string().ends_with("-wal");
    shm_count += p.string().ends_with("-shm");
    if (p.string().ends_with("-wal")) {
      EXPECT_EQ(read_bytes(p), wal);
    }
  }
  EXPECT_EQ(wal_count, 1);
  EXPECT_EQ(shm_count, 1);
}

TEST(DamagedStore, ConcurrentWritersMoveItOnceAndAllCarryOn) {
  TempDir dir("damaged");
  const fs::path path = dir.path / "occtune.db";
  populate(path, 5);
  overwrite_header(path);
  constexpr int kWriters = 4;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t child = ::fork();
    if (child == 0) {
      try {
        auto store = Store::open(path);
        write_complete_run(store);
        ::_exit(0);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer: %s\n", e.what());
      }
      ::_exit(1);
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(files_containing(dir.path, ".corrupt-").size(), 1u);
  EXPECT_EQ(count(path, "SELECT count(*) FROM runs WHERE status = 'complete'"), kWriters);
}

TEST(DamagedStore, AFileThatIsNotOursIsNeverMoved) {
  TempDir dir("foreign");
  const fs::path random_file = dir.path / "random.bin";
  {
    std::mt19937 random(5);
    std::string bytes(64 * 1024, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    std::ofstream(random_file, std::ios::binary) << bytes;
  }
  // An SQLite file of another application, damaged.
  const fs::path foreign = dir.path / "photos.db";
  {
    SQLite::Database raw(foreign.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, blob BLOB)");
    for (int i = 0; i < 40; ++i) raw.exec("INSERT INTO photos (blob) VALUES (zeroblob(2000))");
  }
  truncate_half(foreign);
  for (const fs::path& path : {random_file, foreign}) {
    SCOPED_TRACE(path.string());
    const std::string before = read_bytes(path);
    for (auto mode : {OpenMode::kReadWrite, OpenMode::kReadOnly}) {
      std::string message;
      EXPECT_EQ(code_of([&] { Store::open(path, mode); }, &message), ExitCode::kRuntime);
      EXPECT_NE(message.find(path.string()), std::string::npos) << message;
      EXPECT_NE(message.find("leaves it untouched"), std::string::npos) << message;
    }
    const DoctorReport repaired = repair(path);
    EXPECT_EQ(repaired.state, DoctorReport::State::kNotDatabase) << repaired.summary;
    EXPECT_EQ(repaired.exit_code(), ExitCode::kRuntime);
    EXPECT_TRUE(repaired.actions.empty());
    EXPECT_EQ(read_bytes(path), before);
  }
  EXPECT_TRUE(files_containing(dir.path, ".corrupt-").empty());
}

TEST(Recovery, OtherUserSeesAnotherProcessHoldingTheDatabase) {
  TempDir dir("inuse");
  const fs::path path = dir.path / "occtune.db";
  populate(path, 1);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    auto store = Store::open(path);
    store.runs();
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  EXPECT_EQ(recovery::other_user(path), child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_EQ(recovery::other_user(path), 0);
}

TEST(Recovery, NamesAreUtcTimestampsAndNeverReplaceAnything) {
  using namespace std::chrono;
  const auto when = sys_days{year{2025} / 3 / 9} + hours(7) + minutes(5) + seconds(1);
  EXPECT_EQ(recovery::aside_name("/x/occtune.db", when),
            fs::path("/x/occtune.db.corrupt-20250309T070501Z"));

  TempDir dir("aside");
  const fs::path path = dir.path / "occtune.db";
  std::ofstream(path) << "damaged";
  const fs::path taken = recovery::aside_name(path, system_clock::now());
  std::ofstream(taken) << "an earlier one";
  std::ofstream(fs::path(taken.string() + "-wal")) << "its wal";
  const auto moved = recovery::move_aside(path, [] { return true; });
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(read_bytes(taken), "an earlier one");
  EXPECT_EQ(read_bytes(moved->main()), "damaged");
  EXPECT_NE(moved->main(), taken);
  EXPECT_FALSE(fs::exists(path));
  // Nothing to move, or no longer damaged: nothing happens.
  EXPECT_FALSE(recovery::move_aside(path, [] { return true; }).has_value());
  std::ofstream(path) << "fine now";
  EXPECT_FALSE(recovery::move_aside(path, [] { return false; }).has_value());
  EXPECT_TRUE(fs::exists(path));
}

// --- the header probe and network filesystems ------------------------------------------------

TEST(FileProbe, ReadsOurHeader) {
  TempDir dir("probe");
  const fs::path path = dir.path / "occtune.db";
  populate(path, 1);
  const auto header = probe::read_header(path);
  ASSERT_TRUE(header.has_value());
  EXPECT_TRUE(header->sqlite_magic);
  EXPECT_TRUE(header->occtune_id);
  EXPECT_EQ(header->page_size, 4096u);
  EXPECT_EQ(header->user_version, kSchemaVersion);
  EXPECT_EQ(header->file_size, fs::file_size(path));
  overwrite_header(path);  // the application_id at offset 68 survives a damaged magic
  EXPECT_FALSE(probe::read_header(path)->sqlite_magic);
  EXPECT_TRUE(probe::read_header(path)->occtune_id);
  EXPECT_FALSE(probe::read_header(dir.path / "missing").has_value());
}

TEST(NetworkFilesystem, KnownMagicsAreNetworkOthersAreNot) {
  EXPECT_EQ(probe::network_filesystem(0x6969), "NFS");
  EXPECT_EQ(probe::network_filesystem(0xFF534D42), "CIFS/SMB");
  EXPECT_EQ(probe::network_filesystem(static_cast<std::int32_t>(0xFF534D42)), "CIFS/SMB");
  EXPECT_EQ(probe::network_filesystem(0xFE534D42), "SMB2/SMB3");
  EXPECT_EQ(probe::network_filesystem(0x517B), "SMB");
  EXPECT_EQ(probe::network_filesystem(0x01021997), "9P (v9fs)");
  EXPECT_EQ(probe::network_filesystem(0x00C36400), "CephFS");
  EXPECT_EQ(probe::network_filesystem(0x0BD00BD0), "Lustre");
  for (std::int64_t local : std::initializer_list<std::int64_t>{0xEF53, 0x01021994, 0x58465342,
                                                                0x9123683E, 0x794C7630, 0x65735546})
    EXPECT_FALSE(probe::network_filesystem(local).has_value()) << std::hex << local;
}

TEST(NetworkFilesystem, RefusedWithTheReasonUnlessAllowed) {
  const fs::path path = "/mnt/share/occtune.db";
  std::string message;
  EXPECT_EQ(code_of([&] { probe::check_local_filesystem(path, 0x6969, false); }, &message),
            ExitCode::kRuntime);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("NFS"), std::string::npos) << message;
  EXPECT_NE(message.find("WAL"), std::string::npos) << message;
  EXPECT_NE(message.find("OCCTUNE_ALLOW_NETWORK_FS=1"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_EQ(probe::check_local_filesystem(path, 0x6969, true), "NFS");
  EXPECT_FALSE(probe::check_local_filesystem(path, 0xEF53, false).has_value());
}

TEST(NetworkFilesystem, TheTestDirectoryIsLocalAndTheOverrideIsExplicit) {
  TempDir dir("fs");
  const auto type = probe::filesystem_type(dir.path / "not" / "yet" / "there.db");
  ASSERT_TRUE(type.has_value());
  EXPECT_FALSE(probe::network_filesystem(*type).has_value()) << std::hex << *type;
  ::setenv("OCCTUNE_ALLOW_NETWORK_FS", "1", 1);
  EXPECT_TRUE(probe::network_filesystem_allowed());
  ::setenv("OCCTUNE_ALLOW_NETWORK_FS", "yes", 1);
  EXPECT_FALSE(probe::network_filesystem_allowed());
  ::unsetenv("OCCTUNE_ALLOW_NETWORK_FS");
  EXPECT_FALSE(probe::network_filesystem_allowed());
}

// --- doctor ---------------------------------------------------------------------------------

TEST(Doctor, HealthyStoreReportsItsContents) {
  TempDir dir("doctor");
  const fs::path path = dir.path / "occtune.db";
  populate(path, 3);
  const DoctorReport report = diagnose(path);
  EXPECT_EQ(report.state, DoctorReport::State::kHealthy) << report.summary;
  EXPECT_EQ(report.exit_code(), ExitCode::kOk);
  EXPECT_TRUE(report.summary.empty());
  EXPECT_TRUE(report.integrity.empty());
  EXPECT_TRUE(report.foreign_keys.empty());
  EXPECT_TRUE(report.counted);
  EXPECT_EQ(report.devices, 1);
  EXPECT_EQ(report.runs.at("complete"), 3);
  EXPECT_EQ(report.measurements, 15);
  EXPECT_EQ(report.user_version, kSchemaVersion);
}

TEST(Doctor, MissingDirectoryAndOrphansAreReportedWithTheirCodes) {
  TempDir dir("doctor");
  EXPECT_EQ(diagnose(dir.path / "missing.db").exit_code(), ExitCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir.path / "missing.db"));
  EXPECT_EQ(repair(dir.path / "missing.db").exit_code(), ExitCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir.path / "missing.db"));
  const DoctorReport directory = diagnose(dir.path);
  EXPECT_EQ(directory.state, DoctorReport::State::kUnusable);
  EXPECT_NE(directory.summary.find("a directory"), std::string::npos) << directory.summary;

  const fs::path path = dir.path / "occtune.db";
  populate(path, 2);
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);  // foreign_keys off here
    raw.exec("DELETE FROM runs WHERE id = 1");
  }
  const DoctorReport report = diagnose(path);
  EXPECT_EQ(report.state, DoctorReport::State::kInconsistent) << report.summary;
  EXPECT_EQ(report.foreign_keys.size(), 5u);
  const DoctorReport repaired = repair(path);
  EXPECT_EQ(repaired.state, DoctorReport::State::kHealthy) << repaired.summary;
  EXPECT_EQ(repaired.measurements, 5);
  EXPECT_EQ(repaired.runs.at("complete"), 1);
}

}  // namespace
}  // namespace occtune::db
