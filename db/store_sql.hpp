// The SQL plumbing the store's files share (db/store_*.cpp): SQLite errors mapped to
// occtune::Error naming the path and the fix, transactions with busy retry, and the mapping
// between rows and the typed records (autotuner/core/records.hpp). Private to db/.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/retry.hpp"
#include "db/store.hpp"

namespace occtune::db::sql {

namespace fs = std::filesystem;

inline constexpr int kBusyTimeoutMs = kDefaultBusyTimeoutMs;

// Evaluated by SQLite so every writer stamps with the same clock and format.
inline constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

[[noreturn]] void cannot_open(const fs::path& path, const std::string& reason);

std::string one_line(std::string text);

// SQLITE_CORRUPT or SQLITE_NOTADB: the file itself is damaged (not locked, not missing).
bool is_damage(const SQLite::Exception& e);

// The stored spellings back to the typed model; text no occtune writes is Error(kRuntime).
RunStatus stored_run_status(const std::string& text);
Outcome stored_outcome(const std::string& text);

// The first column of every row of `sql`, one line each.
std::vector<std::string> column_texts(SQLite::Database& db, const std::string& sql);

std::string sqlite_reason(const SQLite::Exception& e);

std::string_view sqlite_hint(const SQLite::Exception& e);

[[noreturn]] void io_failure(const fs::path& path, std::string_view what,
                             const SQLite::Exception& e);

[[noreturn]] void no_such_run(const fs::path& path, std::int64_t run_id);

// Runs `body` in one transaction of `behavior` and commits it; an exception rolls it back.
template <typename Body>
auto committed(SQLite::Database& db, SQLite::TransactionBehavior behavior, Body&& body)
    -> decltype(body()) {
  SQLite::Transaction transaction(db, behavior);
  if constexpr (std::is_void_v<decltype(body())>) {
    body();
    transaction.commit();
  } else {
    auto result = body();
    transaction.commit();
    return result;
  }
}

// Runs `body` in one transaction and maps SQLite errors to Error(kRuntime). The transaction
// rolls back on any exception, so a failed operation leaves the database as it was. Writers take
// the lock up front (IMMEDIATE): a deferred writer that has to upgrade its lock gets SQLITE_BUSY
// without the busy handler being consulted. A transaction that still fails with SQLITE_BUSY
// after the busy timeout is retried whole (db/retry.hpp), so `body` may run more than once and
// must build its result inside.
template <typename Body>
auto in_transaction(SQLite::Database& db, const fs::path& path, std::string_view what,
                    SQLite::TransactionBehavior behavior, Body&& body) -> decltype(body()) {
  try {
    return with_busy_retry(BusyRetry{},
                           [&]() -> decltype(body()) { return committed(db, behavior, body); });
  } catch (const SQLite::Exception& e) {
    io_failure(path, what, e);
  }
}

template <typename Body>
auto write_transaction(SQLite::Database& db, const fs::path& path, std::string_view what,
                       Body&& body) {
  return in_transaction(db, path, what, SQLite::TransactionBehavior::IMMEDIATE,
                        std::forward<Body>(body));
}

// Reads that take several statements see one snapshot.
template <typename Body>
auto read_snapshot(SQLite::Database& db, const fs::path& path, std::string_view what, Body&& body) {
  return in_transaction(db, path, what, SQLite::TransactionBehavior::DEFERRED,
                        std::forward<Body>(body));
}

// Binds parameters in order, so column lists and values cannot drift apart by index.
class Binder {
 public:
  explicit Binder(SQLite::Statement& statement) : statement_(statement) {}
  Binder& operator()(int value) { return bind(value); }
  Binder& operator()(std::int64_t value) { return bind(value); }
  Binder& operator()(std::size_t value) { return bind(static_cast<std::int64_t>(value)); }
  Binder& operator()(double value) { return bind(value); }
  Binder& operator()(const std::string& value) { return bind(value); }
  Binder& operator()(std::string_view value) { return bind(std::string(value)); }
  Binder& null() {
    statement_.bind(++index_);
    return *this;
  }

 private:
  template <typename T>
  Binder& bind(const T& value) {
    statement_.bind(++index_, value);
    return *this;
  }
  SQLite::Statement& statement_;
  int index_ = 0;
};

// Reads columns in order; NULL reads as 0 or "".
class Row {
 public:
  explicit Row(SQLite::Statement& statement) : statement_(statement) {}
  int next_int() { return statement_.getColumn(index_++).getInt(); }
  std::int64_t next_int64() { return statement_.getColumn(index_++).getInt64(); }
  double next_double() { return statement_.getColumn(index_++).getDouble(); }
  std::string next_string() { return statement_.getColumn(index_++).getString(); }
  bool next_is_null() const { return statement_.getColumn(index_).isNull(); }

 private:
  SQLite::Statement& statement_;
  int index_ = 0;
};

inline constexpr const char* kKeyWhere =
    "d.uuid = ? AND d.name = ? AND d.cc_major = ? AND d.cc_minor = ? AND d.sm_count = ? AND "
    "d.driver_version = ? AND d.runtime_version = ? AND r.kernel = ? AND r.build_id = ? AND "
    "r.dtype = ? AND r.m = ? AND r.n = ? AND r.k = ? AND r.layout = ?";

void bind_key(Binder& bind, const CacheKey& key);

inline constexpr const char* kRunColumns =
    "r.id, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
    "d.runtime_version, r.kernel, r.build_id, r.dtype, r.m, r.n, r.k, r.layout, r.status, "
    "r.started_at, "
    "r.finished_at, r.tool_version, r.argv_json, r.policy_json, r.cublas_count, r.cublas_min_ms, "
    "r.cublas_q1_ms, r.cublas_median_ms, r.cublas_q3_ms, r.cublas_max_ms, r.cublas_mean_ms, "
    "r.strategy, r.reference_clock_mhz, r.cublas_samples_json, r.cublas_sm_clock_mhz";

// The cache-key columns, in the order every key-selecting query lists them.
CacheKey read_key(Row& row);

StoredRun read_run(SQLite::Statement& statement);

inline constexpr const char* kMeasurementColumns =
    "id, run_id, variant, params, threads, tile, dynamic_smem, registers, active_blocks_per_sm, "
    "occupancy, limiter, origin, grid_x, grid_y, waves, outcome, error, rejection, rel_error, "
    "sample_count, min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, samples_json, gflops, "
    "sm_clock_mhz, noise, ci_low_ms, ci_high_ms, sm_clock_min_mhz, sm_clock_max_mhz, throttled, "
    "throttled_batches, stop_reason, search_round, tie, winner, reused_from, step, "
    "suggested_block, block_limit, flops";

StoredMeasurement read_measurement(SQLite::Statement& statement);

// What a measurement says about its result, as opposed to which candidate it is: the part that
// update_measurement() may rewrite. Bound by bind_result() in this order.
inline constexpr const char* kResultColumns =
    "outcome, error, rel_error, sample_count, min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, "
    "samples_json, flops, gflops, sm_clock_mhz, noise, ci_low_ms, ci_high_ms, sm_clock_min_mhz, "
    "sm_clock_max_mhz, throttled, throttled_batches, stop_reason, search_round, tie, winner, "
    "reused_from";

inline constexpr const char* kResultPlaceholders =
    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";

void bind_result(Binder& bind, const Measurement& m);

inline constexpr const char* kDeviceColumns =
    "d.properties_json, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
    "d.runtime_version";

// Newest = most recently used by a run; run ids only grow (AUTOINCREMENT), timestamps can tie.
inline constexpr const char* kDeviceOrder =
    "ORDER BY (SELECT MAX(r.id) FROM runs r WHERE r.device_id = d.id) DESC, d.id DESC";

DeviceInfo read_device(SQLite::Statement& statement);

bool same_key(const CacheKey& a, const CacheKey& b);

}  // namespace occtune::db::sql
