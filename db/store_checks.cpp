// The history of `occtune check` (schema 4): one check with its keys per transaction.
#include "db/store.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

using namespace sql;  // the shared SQL plumbing of db/store_sql.hpp

namespace {

constexpr const char* kCheckKeyColumns =
    "kernel, dtype, m, n, k, launched_kernel, verdict, reason, config, threads, baseline_run_id, "
    "baseline_build_id, baseline_count, baseline_median_ms, baseline_low_ms, baseline_high_ms, "
    "current_outcome, current_rel_error, current_count, current_min_ms, current_q1_ms, "
    "current_median_ms, current_q3_ms, current_max_ms, current_low_ms, current_high_ms, ratio, "
    "p_value";
constexpr int kCheckKeyColumnCount = 28;

template <typename T>
void bind_optional(Binder& bind, const std::optional<T>& value) {
  if (value)
    bind(*value);
  else
    bind.null();
}

template <typename T>
std::optional<T> read_optional(SQLite::Statement& statement, int& index) {
  const SQLite::Column column = statement.getColumn(index++);
  if (column.isNull()) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>)
    return column.getString();
  else if constexpr (std::is_same_v<T, double>)
    return column.getDouble();
  else if constexpr (std::is_same_v<T, int>)
    return column.getInt();
  else
    return column.getInt64();
}

CheckKeyRecord read_check_key(SQLite::Statement& q) {
  CheckKeyRecord k;
  int i = 1;  // column 0 is check_id
  k.kernel = q.getColumn(i++).getString();
  k.dtype = q.getColumn(i++).getString();
  k.shape.m = q.getColumn(i++).getInt64();
  k.shape.n = q.getColumn(i++).getInt64();
  k.shape.k = q.getColumn(i++).getInt64();
  k.launched_kernel = q.getColumn(i++).getString();
  k.verdict = q.getColumn(i++).getString();
  k.reason = q.getColumn(i++).getString();
  k.config = read_optional<std::string>(q, i);
  k.threads = read_optional<int>(q, i);
  k.baseline_run_id = read_optional<std::int64_t>(q, i);
  k.baseline_build_id = read_optional<std::string>(q, i);
  k.baseline_count = read_optional<std::int64_t>(q, i);
  for (auto* v : {&k.baseline_median_ms, &k.baseline_low_ms, &k.baseline_high_ms})
    *v = read_optional<double>(q, i);
  k.current_outcome = read_optional<std::string>(q, i);
  k.current_rel_error = read_optional<double>(q, i);
  k.current_count = read_optional<std::int64_t>(q, i);
  for (auto* v : {&k.current_min_ms, &k.current_q1_ms, &k.current_median_ms, &k.current_q3_ms,
                  &k.current_max_ms, &k.current_low_ms, &k.current_high_ms, &k.ratio, &k.p_value})
    *v = read_optional<double>(q, i);
  return k;
}

}  // namespace

std::int64_t Store::record_check(const CheckRecord& check) {
  return write_transaction(*db_, path_, "recording a check", [&] {
    SQLite::Statement insert(
        *db_, fmt::format("INSERT INTO checks (recorded_at, device_uuid, device_name, platform, "
                          "build_id, tool_version, argv_json, threshold, strict, exit_code) "
                          "VALUES ({}, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          kNow));
    Binder{insert}(check.device_uuid)(check.device_name)(check.platform)(check.build_id)(
        check.tool_version)(check.argv_json)(check.threshold)(check.strict ? 1 : 0)(
        check.exit_code);
    insert.exec();
    const std::int64_t id = db_->getLastInsertRowid();
    std::string placeholders;
    for (int i = 0; i < kCheckKeyColumnCount; ++i) placeholders += ", ?";
    SQLite::Statement key_insert(
        *db_, fmt::format("INSERT INTO check_keys (check_id, {}) VALUES (?{})", kCheckKeyColumns,
                          placeholders));
    for (const CheckKeyRecord& k : check.keys) {
      key_insert.reset();
      key_insert.clearBindings();
      Binder bind(key_insert);
      bind(id)(k.kernel)(k.dtype)(k.shape.m)(k.shape.n)(k.shape.k)(k.launched_kernel)(k.verdict)(
          k.reason);
      bind_optional(bind, k.config);
      bind_optional(bind, k.threads);
      bind_optional(bind, k.baseline_run_id);
      bind_optional(bind, k.baseline_build_id);
      bind_optional(bind, k.baseline_count);
      for (auto* v : {&k.baseline_median_ms, &k.baseline_low_ms, &k.baseline_high_ms})
        bind_optional(bind, *v);
      bind_optional(bind, k.current_outcome);
      bind_optional(bind, k.current_rel_error);
      bind_optional(bind, k.current_count);
      for (auto* v : {&k.current_min_ms, &k.current_q1_ms, &k.current_median_ms, &k.current_q3_ms,
                      &k.current_max_ms, &k.current_low_ms, &k.current_high_ms, &k.ratio,
                      &k.p_value})
        bind_optional(bind, *v);
      key_insert.exec();
    }
    return id;
  });
}

std::vector<CheckRecord> Store::checks(const std::string& device_uuid) {
  return read_snapshot(*db_, path_, "reading the check history", [&] {
    SQLite::Statement query(
        *db_,
        "SELECT id, recorded_at, device_uuid, device_name, platform, build_id, tool_version, "
        "argv_json, threshold, strict, exit_code FROM checks WHERE ?1 = '' OR device_uuid = ?1 "
        "ORDER BY recorded_at, id");
    Binder{query}(device_uuid);
    std::vector<CheckRecord> out;
    while (query.executeStep()) {
      Row row(query);
      CheckRecord c;
      c.id = row.next_int64();
      c.recorded_at = row.next_string();
      c.device_uuid = row.next_string();
      c.device_name = row.next_string();
      c.platform = row.next_string();
      c.build_id = row.next_string();
      c.tool_version = row.next_string();
      c.argv_json = row.next_string();
      c.threshold = row.next_double();
      c.strict = row.next_int() != 0;
      c.exit_code = row.next_int();
      out.push_back(std::move(c));
    }
    SQLite::Statement keys(
        *db_, fmt::format("SELECT check_id, {} FROM check_keys WHERE check_id = ? ORDER BY id",
                          kCheckKeyColumns));
    for (CheckRecord& c : out) {
      keys.reset();
      Binder{keys}(c.id);
      while (keys.executeStep()) c.keys.push_back(read_check_key(keys));
    }
    return out;
  });
}

}  // namespace occtune::db
