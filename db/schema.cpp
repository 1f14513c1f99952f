// Schema versions 1 to 6 and the migration mechanism: an ordered list of steps, each taking the
// file from version v to v+1, all applied in one transaction so a file is never left
// half-migrated. Creating a fresh file is simply the step from version 0.
#include "db/schema.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

#include <array>

#include "autotuner/core/error.hpp"

namespace occtune::db::schema {
namespace {

// Timestamps are ISO 8601 UTC with milliseconds, so text order is time order.
constexpr const char* kCreateV1 = R"sql(
CREATE TABLE devices (
  id               INTEGER PRIMARY KEY,
  uuid             TEXT NOT NULL,
  name             TEXT NOT NULL,
  cc_major         INTEGER NOT NULL,
  cc_minor         INTEGER NOT NULL,
  sm_count         INTEGER NOT NULL,
  driver_version   INTEGER NOT NULL,
  runtime_version  INTEGER NOT NULL,
  properties_json  TEXT NOT NULL,
  first_seen_at    TEXT NOT NULL,
  last_seen_at     TEXT NOT NULL,
  UNIQUE (uuid, name, cc_major, cc_minor, sm_count, driver_version, runtime_version)
);

-- AUTOINCREMENT: run ids appear in reports and must never be reused.
CREATE TABLE runs (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  device_id            INTEGER NOT NULL REFERENCES devices(id),
  kernel               TEXT NOT NULL,
  build_id             TEXT NOT NULL,
  dtype                TEXT NOT NULL,
  m                    INTEGER NOT NULL,
  n                    INTEGER NOT NULL,
  k                    INTEGER NOT NULL,
  status               TEXT NOT NULL DEFAULT 'running'
                       CHECK (status IN ('running', 'complete', 'interrupted', 'failed')),
  started_at           TEXT NOT NULL,
  finished_at          TEXT,
  tool_version         TEXT NOT NULL,
  argv_json            TEXT NOT NULL,
  policy_json          TEXT NOT NULL,
  cublas_count         INTEGER NOT NULL DEFAULT 0,
  cublas_min_ms        REAL,
  cublas_q1_ms         REAL,
  cublas_median_ms     REAL,
  cublas_q3_ms         REAL,
  cublas_max_ms        REAL,
  cublas_mean_ms       REAL,
  cublas_samples_json  TEXT NOT NULL DEFAULT '[]',
  cublas_sm_clock_mhz  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_key ON runs (kernel, m, n, k, dtype, status);
CREATE INDEX runs_by_device ON runs (device_id);

CREATE TABLE measurements (
  id                    INTEGER PRIMARY KEY,
  run_id                INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant               TEXT NOT NULL,
  params                TEXT NOT NULL,
  origin                TEXT NOT NULL,
  step                  INTEGER NOT NULL,
  suggested_block       INTEGER NOT NULL,
  block_limit           INTEGER NOT NULL,
  threads               INTEGER NOT NULL,
  tile                  INTEGER NOT NULL,
  dynamic_smem          INTEGER NOT NULL,
  registers             INTEGER NOT NULL,
  active_blocks_per_sm  INTEGER NOT NULL,
  occupancy             REAL NOT NULL,
  limiter               TEXT NOT NULL,
  grid_x                INTEGER NOT NULL,
  grid_y                INTEGER NOT NULL,
  waves                 REAL NOT NULL,
  rejection             TEXT NOT NULL,
  outcome               TEXT NOT NULL
                        CHECK (outcome IN ('ok', 'invalid_config', 'exceeds_limits',
                                           'launch_failed', 'wrong_result', 'crashed',
                                           'timeout')),
  error                 TEXT NOT NULL,
  rel_error             REAL,  -- NULL when the result was not checked
  sample_count          INTEGER NOT NULL,
  min_ms                REAL NOT NULL,
  q1_ms                 REAL NOT NULL,
  median_ms             REAL NOT NULL,
  q3_ms                 REAL NOT NULL,
  max_ms                REAL NOT NULL,
  mean_ms               REAL NOT NULL,
  samples_json          TEXT NOT NULL,
  flops                 REAL NOT NULL,
  gflops                REAL NOT NULL,
  sm_clock_mhz          INTEGER NOT NULL
);
CREATE INDEX measurements_by_run ON measurements (run_id, outcome, median_ms);
)sql";

// Version 2: the provenance of each sample set and the search's decision (issue #4), and the
// strategy and throttle reference of each run. Older rows read as "unknown" (0, '').
constexpr const char* kAddProvenanceV2 = R"sql(
ALTER TABLE runs ADD COLUMN strategy TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN reference_clock_mhz INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN noise REAL NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN ci_low_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN ci_high_ms REAL NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN sm_clock_min_mhz INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN sm_clock_max_mhz INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN throttled_batches INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN search_round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN tie INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN winner INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN reused_from INTEGER;
)sql";

// Version 3: who writes each run (db/run_owner.hpp), so a run left 'running' by a process that
// no longer exists can be told from one still in progress and marked 'interrupted'. NULL in
// older rows: owner unknown, never touched. The partial index keeps that check cheap.
constexpr const char* kAddRunOwnerV3 = R"sql(
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_boot_id TEXT;
ALTER TABLE runs ADD COLUMN owner_pid_ns TEXT;
ALTER TABLE runs ADD COLUMN owner_start_ticks INTEGER;
CREATE INDEX runs_running ON runs (id) WHERE status = 'running';
)sql";

// Version 4: the history of `occtune check` (issue #15). A check never writes runs or
// measurements (that would change what the cache serves); it records here what it judged, one
// row per check and one per key, so the report can show verdicts over time. Absent values
// (a key without a baseline, a side that failed) are NULL.
constexpr const char* kAddCheckHistoryV4 = R"sql(
CREATE TABLE checks (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at      TEXT NOT NULL,
  device_uuid      TEXT NOT NULL,
  device_name      TEXT NOT NULL,
  platform         TEXT NOT NULL,
  build_id         TEXT NOT NULL,
  tool_version     TEXT NOT NULL,
  argv_json        TEXT NOT NULL,
  threshold        REAL NOT NULL,
  strict           INTEGER NOT NULL,
  exit_code        INTEGER NOT NULL
);
CREATE INDEX checks_by_device ON checks (device_uuid, recorded_at);

CREATE TABLE check_keys (
  id                  INTEGER PRIMARY KEY,
  check_id            INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
  kernel              TEXT NOT NULL,
  dtype               TEXT NOT NULL,
  m                   INTEGER NOT NULL,
  n                   INTEGER NOT NULL,
  k                   INTEGER NOT NULL,
  launched_kernel     TEXT NOT NULL,
  verdict             TEXT NOT NULL,
  reason              TEXT NOT NULL,
  config              TEXT,
  threads             INTEGER,
  baseline_run_id     INTEGER,
  baseline_build_id   TEXT,
  baseline_count      INTEGER,
  baseline_median_ms  REAL,
  baseline_low_ms     REAL,
  baseline_high_ms    REAL,
  current_outcome     TEXT,
  current_rel_error   REAL,
  current_count       INTEGER,
  current_min_ms      REAL,
  current_q1_ms       REAL,
  current_median_ms   REAL,
  current_q3_ms       REAL,
  current_max_ms      REAL,
  current_low_ms      REAL,
  current_high_ms     REAL,
  ratio               REAL,
  p_value             REAL
);
CREATE INDEX check_keys_by_check ON check_keys (check_id);
)sql";

// Version 5 (issue #12 layouts): the operand layout of each run (autotuner/core/layout.hpp), part of the
// cache key. Runs before it were all row-major A times B: 'nn'.
constexpr const char* kAddLayout = R"sql(
ALTER TABLE runs ADD COLUMN layout TEXT NOT NULL DEFAULT 'nn'
  CHECK (layout IN ('nn', 'nt', 'tn', 'tt'));
)sql";

// Version 6 (issue #14): the outcome `compile_failed` (a source kernel's configuration that
// NVRTC refused). SQLite cannot change a CHECK constraint in place, so the table is rebuilt from
// its own stored definition (which holds every column added since version 1) with the constraint
// widened, its rows copied in order, and its index made again.
void widen_outcomes_v6(SQLite::Database& db) {
  std::string sql =
      db.execAndGet("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'measurements'")
          .getString();
  const std::string table = "CREATE TABLE measurements (";
  const std::string last = "'timeout')";
  const auto at = sql.find(last);
  if (sql.rfind(table, 0) != 0 || at == std::string::npos)
    fail(ExitCode::kNotFound,
         "the measurements table's definition is not occtune's (no outcome constraint ending in "
         "'timeout'); this file was changed by another program: restore it from an export");
  sql.replace(at, last.size(), "'timeout', 'compile_failed')");
  sql.replace(0, table.size(), "CREATE TABLE measurements_v6 (");
  db.exec(sql);
  db.exec("INSERT INTO measurements_v6 SELECT * FROM measurements");
  db.exec("DROP TABLE measurements");
  db.exec("ALTER TABLE measurements_v6 RENAME TO measurements");
  db.exec("CREATE INDEX measurements_by_run ON measurements (run_id, outcome, median_ms)");
}

struct Migration {
  int from;  // the step takes the file from `from` to `from + 1`
  void (*apply)(SQLite::Database&);
};

constexpr std::array<Migration, 6> kMigrations = {{
    {0, [](SQLite::Database& db) { db.exec(kCreateV1); }},
    {1, [](SQLite::Database& db) { db.exec(kAddProvenanceV2); }},
    {2, [](SQLite::Database& db) { db.exec(kAddRunOwnerV3); }},
    {3, [](SQLite::Database& db) { db.exec(kAddCheckHistoryV4); }},
    {4, [](SQLite::Database& db) { db.exec(kAddLayout); }},  // issue #12 layouts
    {5, &widen_outcomes_v6},                                  // issue #14 compile_failed
}};
constexpr bool steps_are_contiguous() {
  for (std::size_t i = 0; i < kMigrations.size(); ++i)
    if (kMigrations[i].from != static_cast<int>(i)) return false;
  return kMigrations.size() == kSchemaVersion;
}
static_assert(steps_are_contiguous(), "one migration step per schema version, in order");

int pragma_int(SQLite::Database& db, const char* name) {
  return db.execAndGet(fmt::format("PRAGMA {}", name)).getInt();
}

}  // namespace

FileState inspect(SQLite::Database& db) {
  FileState state;
  state.application_id = pragma_int(db, "application_id");
  state.user_version = pragma_int(db, "user_version");
  state.table_count = db.execAndGet(
                            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                            "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
                          .getInt();
  return state;
}

void check_compatible(const FileState& state, const std::filesystem::path& path, OpenMode mode) {
  if (!state.fresh() && state.application_id != kApplicationId) {
    fail(ExitCode::kNotFound,
         fmt::format("'{}' is not an occtune database (application_id 0x{:08X}, {} table{}); "
                     "pass --db with another path or set OCCTUNE_DB",
                     path.string(), static_cast<unsigned>(state.application_id), state.table_count,
                     state.table_count == 1 ? "" : "s"));
  }
  if (state.user_version < 0) {
    fail(ExitCode::kNotFound,
         fmt::format("database '{}' has an invalid schema version {}; pass --db with another path "
                     "or set OCCTUNE_DB",
                     path.string(), state.user_version));
  }
  if (state.user_version > kSchemaVersion) {
    fail(ExitCode::kNotFound,
         fmt::format("database '{}' was written by a newer occtune (schema {}, this build knows "
                     "{}); upgrade occtune or use another --db",
                     path.string(), state.user_version, kSchemaVersion));
  }
  // A read-only connection cannot create or migrate, so an empty or older file is useless.
  if (mode == OpenMode::kReadOnly && state.user_version < kSchemaVersion) {
    if (state.fresh()) {
      fail(ExitCode::kNotFound,
           fmt::format("database '{}' is empty; run `occtune tune` first or pass --db",
                       path.string()));
    }
    fail(ExitCode::kNotFound,
         fmt::format("database '{}' has schema {} (this build needs {}); open it once for "
                     "writing, e.g. with `occtune tune`, to migrate it, or pass --db",
                     path.string(), state.user_version, kSchemaVersion));
  }
}

void migrate(SQLite::Database& db, const std::filesystem::path& path) {
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  const FileState state = inspect(db);
  check_compatible(state, path, OpenMode::kReadWrite);
  if (state.user_version == kSchemaVersion) return;  // someone else got here first
  for (int version = state.user_version; version < kSchemaVersion; ++version) {
    kMigrations[static_cast<std::size_t>(version)].apply(db);
  }
  // Both pragmas write the header page inside the transaction, so they commit or roll back
  // together with the DDL.
  db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
  db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
  transaction.commit();
}

void create_as_version(SQLite::Database& db, int version) {
  if (version < 1 || version > kSchemaVersion)
    fail(ExitCode::kUsage, fmt::format("no schema version {} to create", version));
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  for (int v = 0; v < version; ++v) kMigrations[static_cast<std::size_t>(v)].apply(db);
  db.exec(fmt::format("PRAGMA user_version = {}", version));
  db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
  transaction.commit();
}

}  // namespace occtune::db::schema
