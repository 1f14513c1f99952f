// Definitions of db/store_sql.hpp: error mapping and row mapping.
#include "db/store_sql.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "db/codec.hpp"

namespace occtune::db::sql {

[[noreturn]] void cannot_open(const fs::path& path, const std::string& reason) {
  fail(ExitCode::kRuntime,
       fmt::format("cannot open database '{}': {}; pass --db with a writable file path or set "
                   "OCCTUNE_DB",
                   path.string(), reason));
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

RunStatus stored_run_status(const std::string& text) {
  if (const auto status = run_status_from_string(text)) return *status;
  fail(ExitCode::kRuntime, fmt::format("a run has the status '{}', which no occtune writes; run "
                                       "`occtune db doctor` on the database",
                                       text));
}

Outcome stored_outcome(const std::string& text) {
  if (const auto outcome = outcome_from_string(text)) return *outcome;
  fail(ExitCode::kRuntime, fmt::format("a measurement has the outcome '{}', which no occtune "
                                       "writes; run `occtune db doctor` on the database",
                                       text));
}

bool is_damage(const SQLite::Exception& e) {
  const int code = e.getErrorCode() & 0xff;
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

std::string sqlite_reason(const SQLite::Exception& e) {
  switch (e.getErrorCode()) {
    case SQLITE_NOTADB:
      return "the file is not an SQLite database";
    case SQLITE_CORRUPT:
      return "the database file is corrupt";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("the database is locked by another process (waited up to {} ms)",
                         kBusyTimeoutMs);
    case SQLITE_READONLY:
      return "the database is read-only";
    case SQLITE_FULL:
      return "the disk is full";
    default:
      return one_line(e.what());
  }
}

std::string_view sqlite_hint(const SQLite::Exception& e) {
  switch (e.getErrorCode()) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "retry when the other occtune process is done, or pass --db with another path";
    case SQLITE_READONLY:
      return "open it for writing, or pass --db with a writable file path";
    case SQLITE_FULL:
      return "free disk space, or pass --db with a path on another disk";
    default:
      return "check the file and its directory, or pass --db with another path or set "
             "OCCTUNE_DB";
  }
}

[[noreturn]] void io_failure(const fs::path& path, std::string_view what,
                             const SQLite::Exception& e) {
  const std::string hint =
      is_damage(e) ? fmt::format(
                         "run `occtune db doctor --db {} --repair` to move it aside and "
                         "start a fresh store",
                         path.string())
                   : std::string(sqlite_hint(e));
  fail(ExitCode::kRuntime, fmt::format("database '{}': {} failed: {}; {}", path.string(), what,
                                       sqlite_reason(e), hint));
}

[[noreturn]] void no_such_run(const fs::path& path, std::int64_t run_id) {
  fail(ExitCode::kNotFound,
       fmt::format("no run with id {} in database '{}'; start the run with begin_run first", run_id,
                   path.string()));
}

void bind_key(Binder& bind, const CacheKey& key) {
  bind(key.device_uuid)(key.device_name)(key.cc_major)(key.cc_minor)(key.sm_count)(
      key.driver_version)(key.runtime_version)(key.kernel)(key.build_id)(key.dtype)(key.shape.m)(
      key.shape.n)(key.shape.k)(key.layout);
}

CacheKey read_key(Row& row) {
  CacheKey key;
  key.device_uuid = row.next_string();
  key.device_name = row.next_string();
  key.cc_major = row.next_int();
  key.cc_minor = row.next_int();
  key.sm_count = row.next_int();
  key.driver_version = row.next_int();
  key.runtime_version = row.next_int();
  key.kernel = row.next_string();
  key.build_id = row.next_string();
  key.dtype = row.next_string();
  key.shape.m = row.next_int64();
  key.shape.n = row.next_int64();
  key.shape.k = row.next_int64();
  key.layout = row.next_string();
  return key;
}

// A timing summary's seven columns (count, min, q1, median, q3, max, mean), in the order both
// the runs' cuBLAS columns and the measurements' columns keep them.
static Summary read_summary(Row& row) {
  Summary s;
  s.count = static_cast<std::size_t>(row.next_int64());
  s.min = row.next_double();
  s.q1 = row.next_double();
  s.median = row.next_double();
  s.q3 = row.next_double();
  s.max = row.next_double();
  s.mean = row.next_double();
  return s;
}

StoredRun read_run(SQLite::Statement& statement) {
  Row row(statement);
  StoredRun run;
  run.id = row.next_int64();
  run.key = read_key(row);
  run.status = stored_run_status(row.next_string());
  run.started_at = row.next_string();
  run.finished_at = row.next_string();
  run.tool_version = row.next_string();
  run.argv_json = row.next_string();
  run.policy_json = row.next_string();
  run.cublas = read_summary(row);
  run.strategy = row.next_string();
  run.reference_clock_mhz = row.next_int();
  run.cublas_samples_ms = codec::samples_from_json(row.next_string());
  run.cublas_sm_clock_mhz = row.next_int();
  return run;
}

StoredMeasurement read_measurement(SQLite::Statement& statement) {
  Row row(statement);
  StoredMeasurement m;
  m.id = row.next_int64();
  m.run_id = row.next_int64();
  m.variant = row.next_string();
  m.params = row.next_string();
  m.threads = row.next_int();
  m.tile = row.next_int();
  m.dynamic_smem = row.next_int64();
  m.registers = row.next_int();
  m.active_blocks_per_sm = row.next_int();
  m.occupancy = row.next_double();
  m.limiter = row.next_string();
  m.origin = row.next_string();
  m.grid_x = row.next_int64();
  m.grid_y = row.next_int64();
  m.waves = row.next_double();
  m.outcome = stored_outcome(row.next_string());
  m.error = row.next_string();
  // A candidate refused before launch carries its reason as the rejection; readers see one
  // "why it did not run" text either way.
  std::string rejection = row.next_string();
  if (m.error.empty()) m.error = std::move(rejection);
  const bool unchecked = row.next_is_null();
  const double rel_error = row.next_double();
  m.rel_error = unchecked ? -1.0 : rel_error;
  m.summary = read_summary(row);
  m.samples_ms = codec::samples_from_json(row.next_string());
  m.gflops = row.next_double();
  m.sm_clock_mhz = row.next_int();
  m.noise = row.next_double();
  m.median_ci.low = row.next_double();
  m.median_ci.high = row.next_double();
  m.sm_clock_min_mhz = row.next_int();
  m.sm_clock_max_mhz = row.next_int();
  m.throttled = row.next_int() != 0;
  m.throttled_batches = row.next_int();
  m.stop_reason = row.next_string();
  m.search_round = row.next_int();
  m.tie = row.next_int() != 0;
  m.winner = row.next_int() != 0;
  m.reused_from = row.next_int64();
  m.step = row.next_int();
  m.suggested_block = row.next_int();
  m.block_limit = row.next_int();
  m.flops = row.next_double();
  return m;
}

void bind_result(Binder& bind, const Measurement& m) {
  const Timing& t = m.timing;
  const Summary& s = t.summary;
  bind(to_string(m.outcome))(m.error);
  if (m.rel_error < 0) {
    bind.null();
  } else {
    bind(m.rel_error);
  }
  bind(s.count)(s.min)(s.q1)(s.median)(s.q3)(s.max)(s.mean)(codec::samples_json(t.samples_ms))(
      m.flops)(m.gflops())(t.sm_clock_mhz)(t.noise)(t.median_ci.low)(t.median_ci.high)(
      t.sm_clock_min_mhz)(t.sm_clock_max_mhz)(t.throttled ? 1 : 0)(t.throttled_batches)(
      to_string(t.stop))(m.search_round)(m.tie ? 1 : 0)(m.winner ? 1 : 0);
  if (m.reused_from > 0) {
    bind(m.reused_from);
  } else {
    bind.null();
  }
}

DeviceInfo read_device(SQLite::Statement& statement) {
  Row row(statement);
  DeviceInfo device = codec::device_from_json(row.next_string());
  // The key columns are authoritative: they are what lookups match on.
  device.uuid = row.next_string();
  device.name = row.next_string();
  device.cc_major = row.next_int();
  device.cc_minor = row.next_int();
  device.sm_count = row.next_int();
  device.driver_version = row.next_int();
  device.runtime_version = row.next_int();
  return device;
}

bool same_key(const CacheKey& a, const CacheKey& b) {
  return a.device_uuid == b.device_uuid && a.device_name == b.device_name &&
         a.cc_major == b.cc_major && a.cc_minor == b.cc_minor && a.sm_count == b.sm_count &&
         a.driver_version == b.driver_version && a.runtime_version == b.runtime_version &&
         a.kernel == b.kernel && a.build_id == b.build_id && a.dtype == b.dtype &&
         a.shape == b.shape && a.layout == b.layout;
}

std::vector<std::string> column_texts(SQLite::Database& db, const std::string& sql) {
  SQLite::Statement query(db, sql);
  std::vector<std::string> out;
  while (query.executeStep()) out.push_back(one_line(query.getColumn(0).getString()));
  return out;
}

}  // namespace occtune::db::sql
