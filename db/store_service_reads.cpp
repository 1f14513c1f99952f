// Reads for the query service (db/lookup, autotuner/service). Kept apart from the other reads
// because a server must tell "the file is busy, retry" (503, StoreBusy) from other failures
// (500); everything else about them follows the same rules.
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

bool is_busy(const SQLite::Exception& e) {
  return e.getErrorCode() == SQLITE_BUSY || e.getErrorCode() == SQLITE_LOCKED;
}

// Like read_snapshot, but a busy or locked file surfaces as StoreBusy.
template <typename Body>
auto service_read(SQLite::Database& db, const fs::path& path, std::string_view what, Body&& body)
    -> decltype(body()) {
  try {
    return committed(db, SQLite::TransactionBehavior::DEFERRED, body);
  } catch (const SQLite::Exception& e) {
    if (is_busy(e)) {
      throw StoreBusy(
          fmt::format("database '{}': {} failed: the database is locked by another "
                      "connection ({}); retry shortly",
                      path.string(), what, e.getErrorStr()));
    }
    io_failure(path, what, e);
  }
}

}  // namespace

EntryPage Store::entries(const EntryQuery& q) {
  // First the keys, newest complete run first, from one snapshot; then each key's entry through
  // best(), so "the entry of a key" has one definition in this file.
  std::vector<std::pair<CacheKey, std::int64_t>> keys;  // key, id of its newest complete run
  service_read(*db_, path_, "listing cached entries", [&] {
    std::string where = "r.status = 'complete'";
    auto add = [&](bool present, const char* clause) {
      if (present) where += fmt::format(" AND {}", clause);
    };
    add(q.device_uuid.has_value(), "d.uuid = ?");
    add(q.device_name.has_value(), "d.name = ?");
    add(q.cc_major.has_value(), "d.cc_major = ?");
    add(q.cc_minor.has_value(), "d.cc_minor = ?");
    add(q.sm_count.has_value(), "d.sm_count = ?");
    add(q.driver_version.has_value(), "d.driver_version = ?");
    add(q.runtime_version.has_value(), "d.runtime_version = ?");
    add(q.kernel.has_value(), "r.kernel = ?");
    add(q.build_id.has_value(), "r.build_id = ?");
    add(q.dtype.has_value(), "r.dtype = ?");
    add(q.shape.has_value(), "r.m = ? AND r.n = ? AND r.k = ?");
    add(q.layout.has_value(), "r.layout = ?");
    add(q.excluding.has_value(), fmt::format("NOT ({})", kKeyWhere).c_str());
    const bool by_id = q.order == EntryQuery::Order::kRunId;
    SQLite::Statement query(
        *db_,
        fmt::format("SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, "
                    "d.driver_version, d.runtime_version, r.kernel, r.build_id, r.dtype, r.m, "
                    "r.n, r.k, r.layout, MAX(r.started_at) AS newest_at, MAX(r.id) AS newest_id "
                    "FROM runs r JOIN devices d ON d.id = r.device_id WHERE {} "
                    "GROUP BY r.device_id, r.kernel, r.build_id, r.dtype, r.m, r.n, r.k, "
                    "r.layout {} "
                    "ORDER BY {} LIMIT ?",
                    where, q.before_run_id > 0 ? "HAVING newest_id < ?" : "",
                    by_id ? "newest_id DESC" : "newest_at DESC, newest_id DESC"));
    Binder bind(query);
    if (q.device_uuid) bind(*q.device_uuid);
    if (q.device_name) bind(*q.device_name);
    if (q.cc_major) bind(*q.cc_major);
    if (q.cc_minor) bind(*q.cc_minor);
    if (q.sm_count) bind(*q.sm_count);
    if (q.driver_version) bind(*q.driver_version);
    if (q.runtime_version) bind(*q.runtime_version);
    if (q.kernel) bind(*q.kernel);
    if (q.build_id) bind(*q.build_id);
    if (q.dtype) bind(*q.dtype);
    if (q.shape) bind(q.shape->m)(q.shape->n)(q.shape->k);
    if (q.layout) bind(*q.layout);
    if (q.excluding) bind_key(bind, *q.excluding);
    if (q.before_run_id > 0) bind(q.before_run_id);
    bind(std::max(q.limit, 0));
    while (query.executeStep()) {
      Row row(query);
      CacheKey key = read_key(row);
      row.next_string();  // newest_at: ordering only
      const std::int64_t newest_id = row.next_int64();
      keys.emplace_back(std::move(key), newest_id);
    }
  });

  EntryPage page;
  for (auto& [key, newest_id] : keys) {
    std::optional<BestEntry> entry;
    try {
      entry = best(key);
    } catch (const StoreBusy&) {
      throw;
    } catch (const Error&) {
      // best() reports every SQLite failure alike; ask the file again so a busy one still
      // reads as StoreBusy (this read throws it), and anything else keeps its own message.
      data_version();
      throw;
    }
    if (entry) page.entries.push_back(std::move(*entry));
  }
  if (q.limit > 0 && keys.size() == static_cast<std::size_t>(q.limit))
    page.next_before_run_id = keys.back().second;
  return page;
}

std::vector<DeviceInfo> Store::device_records(const std::string& uuid) {
  return service_read(*db_, path_, "reading devices", [&] {
    SQLite::Statement query(*db_,
                            fmt::format("SELECT {} FROM devices d {} {}", kDeviceColumns,
                                        uuid.empty() ? "" : "WHERE d.uuid = ?", kDeviceOrder));
    if (!uuid.empty()) Binder{query}(uuid);
    std::vector<DeviceInfo> out;
    while (query.executeStep()) out.push_back(read_device(query));
    return out;
  });
}

std::int64_t Store::data_version() {
  try {
    return db_->execAndGet("PRAGMA data_version").getInt64();
  } catch (const SQLite::Exception& e) {
    if (is_busy(e)) {
      throw StoreBusy(
          fmt::format("database '{}': reading the data version failed: the "
                      "database is locked by another connection ({}); retry shortly",
                      path_.string(), e.getErrorStr()));
    }
    io_failure(path_, "reading the data version", e);
  }
}

void Store::set_busy_timeout(int milliseconds) { db_->setBusyTimeout(milliseconds); }

}  // namespace occtune::db
