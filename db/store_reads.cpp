// The reads that derive the best configuration and the history from stored rows: best(),
// measurements, reuse, runs, devices and the keys near a miss.
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
#include "db/codec.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

using namespace sql;  // the shared SQL plumbing of db/store_sql.hpp

std::optional<BestEntry> Store::best(const CacheKey& key) {
  return read_snapshot(
      *db_, path_, "looking up the best configuration", [&]() -> std::optional<BestEntry> {
        SQLite::Statement find_run(
            *db_, fmt::format("SELECT {} FROM runs r JOIN devices d ON d.id = r.device_id "
                              "WHERE {} AND r.status = 'complete' "
                              "ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
                              kRunColumns, kKeyWhere));
        Binder bind(find_run);
        bind_key(bind, key);
        if (!find_run.executeStep()) return std::nullopt;
        BestEntry entry;
        entry.run = read_run(find_run);

        // A zero median is not a timing (an ok row without samples); it must not win.
        SQLite::Statement find_best(*db_,
                                    fmt::format("SELECT {} FROM measurements WHERE run_id = ? AND "
                                                "outcome = 'ok' AND median_ms > 0 "
                                                "ORDER BY winner DESC, median_ms, id LIMIT 1",
                                                kMeasurementColumns));
        Binder{find_best}(entry.run.id);
        if (!find_best.executeStep()) return std::nullopt;
        entry.best = read_measurement(find_best);
        return entry;
      });
}

std::vector<StoredMeasurement> Store::measurements(std::int64_t run_id) {
  return read_snapshot(*db_, path_, "reading measurements", [&] {
    SQLite::Statement query(*db_,
                            fmt::format("SELECT {} FROM measurements WHERE run_id = ? ORDER BY id",
                                        kMeasurementColumns));
    Binder{query}(run_id);
    std::vector<StoredMeasurement> out;
    while (query.executeStep()) out.push_back(read_measurement(query));
    return out;
  });
}

std::vector<StoredMeasurement> Store::reusable_measurements(const CacheKey& key,
                                                            const TimingPolicy& policy,
                                                            const std::string& strategy) {
  return read_snapshot(*db_, path_, "looking up reusable measurements", [&] {
    // The newest row per candidate identity; `max(m.id)` picks the whole row in SQLite's
    // bare-column aggregate semantics.
    SQLite::Statement query(
        *db_,
        fmt::format("SELECT {}, max(id) FROM (SELECT m.* FROM measurements m "
                    "JOIN runs r ON r.id = m.run_id JOIN devices d ON d.id = r.device_id "
                    "WHERE {} AND r.policy_json = ? AND m.outcome = 'ok' AND m.sample_count > 0 "
                    "AND (m.stop_reason IN ('converged', 'timeout', 'max_samples') OR "
                    "(m.stop_reason IN ('eliminated', 'dropped') AND r.strategy = ?))) "
                    "GROUP BY variant, threads, dynamic_smem ORDER BY variant, threads",
                    kMeasurementColumns, kKeyWhere));
    Binder bind(query);
    bind_key(bind, key);
    bind(codec::policy_json(policy))(strategy);
    std::vector<StoredMeasurement> out;
    while (query.executeStep()) out.push_back(read_measurement(query));
    return out;
  });
}

std::vector<StoredRun> Store::runs() {
  return read_snapshot(*db_, path_, "reading runs", [&] {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM runs r JOIN devices d ON d.id = r.device_id "
                          "ORDER BY r.started_at DESC, r.id DESC",
                          kRunColumns));
    std::vector<StoredRun> out;
    while (query.executeStep()) out.push_back(read_run(query));
    return out;
  });
}

std::vector<DeviceInfo> Store::devices() {
  return read_snapshot(*db_, path_, "reading devices", [&] {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM devices d {}", kDeviceColumns, kDeviceOrder));
    std::vector<DeviceInfo> out;
    while (query.executeStep()) out.push_back(read_device(query));
    return out;
  });
}

std::optional<DeviceInfo> Store::device_by_uuid(const std::string& uuid) {
  return read_snapshot(*db_, path_, "looking up a device", [&]() -> std::optional<DeviceInfo> {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM devices d WHERE d.uuid = ? {} LIMIT 1", kDeviceColumns,
                          kDeviceOrder));
    Binder{query}(uuid);
    if (!query.executeStep()) return std::nullopt;
    return read_device(query);
  });
}

std::vector<CacheKey> Store::near_keys(const CacheKey& key) {
  return read_snapshot(*db_, path_, "looking up related entries", [&] {
    SQLite::Statement query(
        *db_,
        "SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
        "d.runtime_version, r.build_id, r.dtype, r.kernel, MAX(r.id) AS newest "
        "FROM runs r JOIN devices d ON d.id = r.device_id "
        "WHERE (? = '' OR r.kernel = ?) AND r.m = ? AND r.n = ? AND r.k = ? AND r.layout = ? "
        "AND r.status = 'complete' "
        "GROUP BY d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
        "d.runtime_version, r.build_id, r.dtype, r.kernel ORDER BY newest DESC");
    Binder{query}(key.kernel)(key.kernel)(key.shape.m)(key.shape.n)(key.shape.k)(key.layout);
    std::vector<CacheKey> out;
    while (query.executeStep()) {
      Row row(query);
      CacheKey near;
      near.device_uuid = row.next_string();
      near.device_name = row.next_string();
      near.cc_major = row.next_int();
      near.cc_minor = row.next_int();
      near.sm_count = row.next_int();
      near.driver_version = row.next_int();
      near.runtime_version = row.next_int();
      near.build_id = row.next_string();
      near.dtype = row.next_string();
      near.kernel = row.next_string();
      near.shape = key.shape;
      near.layout = key.layout;
      if (!same_key(near, key)) out.push_back(std::move(near));
    }
    return out;
  });
}

int Store::schema_version() {
  return read_snapshot(*db_, path_, "reading the schema version",
                       [&] { return db_->execAndGet("PRAGMA user_version").getInt(); });
}

}  // namespace occtune::db
