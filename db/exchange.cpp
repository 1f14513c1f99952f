// Export and import (db/exchange.hpp). Runs and measurements are read through the store's row
// mapping into the typed model and written with its one JSON codec (autotuner/core/model_json);
// import decodes them with the same codec after validation and writes the typed records back.
#include "db/exchange.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "autotuner/core/error.hpp"
#include "autotuner/core/model_json.hpp"
#include "db/codec.hpp"
#include "db/export_v1.hpp"
#include "db/import_validation.hpp"
#include "db/retry.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

struct StoreAccess {
  static SQLite::Database& database(Store& store) { return *store.db_; }
};

namespace {

using nlohmann::json;
using sql::Binder;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

[[noreturn]] void db_failure(const Store& store, std::string_view what,
                             const SQLite::Exception& e) {
  fail(ExitCode::kRuntime, fmt::format("database '{}': {} failed: {}; check the file or pass --db "
                                       "with another path",
                                       store.path().string(), what, e.what()));
}

// The whole document, checked field by field before anything of it is used; a document of the
// previous layout is renamed into the current one first (db/export_v1.hpp).
json read_document(const std::string& text, const std::string& origin) {
  json doc = parse_export_json(text, origin);
  if (doc.is_object()) {
    const auto version = doc.find("schema_version");
    if (version != doc.end() && version->is_number_integer() && *version == 1 &&
        doc.value("kind", json()) == "export")
      doc = upgrade_export_v1(std::move(doc));
  }
  validate_export(doc, origin);
  return doc;
}

// The devices section: the key columns, the stored properties as JSON, when the device was seen.
json device_rows(SQLite::Database& db) {
  json devices = json::array();
  SQLite::Statement rows(db,
                         "SELECT uuid, name, cc_major, cc_minor, sm_count, driver_version, "
                         "runtime_version, properties_json, first_seen_at, last_seen_at FROM "
                         "devices ORDER BY id");
  while (rows.executeStep()) {
    sql::Row row(rows);
    json d = json::object();
    d["uuid"] = row.next_string();
    d["name"] = row.next_string();
    for (auto name : {"cc_major", "cc_minor", "sm_count", "driver_version", "runtime_version"})
      d[name] = row.next_int64();
    const std::string properties = row.next_string();
    json decoded = json::parse(properties, nullptr, /*allow_exceptions=*/false);
    d["properties"] = decoded.is_discarded() ? json::object() : std::move(decoded);
    d["first_seen_at"] = row.next_string();
    d["last_seen_at"] = row.next_string();
    devices.push_back(std::move(d));
  }
  return devices;
}

std::int64_t find_device(SQLite::Database& db, const CacheKey& key) {
  SQLite::Statement find(db,
                         "SELECT id FROM devices WHERE uuid = ? AND name = ? AND cc_major = ? AND "
                         "cc_minor = ? AND sm_count = ? AND driver_version = ? AND "
                         "runtime_version = ?");
  Binder{find}(key.device_uuid)(key.device_name)(key.cc_major)(key.cc_minor)(key.sm_count)(
      key.driver_version)(key.runtime_version);
  return find.executeStep() ? find.getColumn(0).getInt64() : 0;
}

// A device of the document's devices section, with its properties; the key is what a run names.
struct DeviceDoc {
  std::string properties_json = "{}";
  std::string first_seen_at, last_seen_at;
};

std::string device_key_text(const json& d) {
  json key = json::object();
  for (auto name : {"uuid", "name", "cc_major", "cc_minor", "sm_count", "driver_version",
                    "runtime_version"})
    key[name] = d.value(name, json());
  return dump(key);
}

std::int64_t insert_device(SQLite::Database& db, const CacheKey& key, const DeviceDoc* doc,
                           const std::string& run_started_at) {
  SQLite::Statement insert(db,
                           "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, "
                           "driver_version, runtime_version, properties_json, first_seen_at, "
                           "last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Binder{insert}(key.device_uuid)(key.device_name)(key.cc_major)(key.cc_minor)(key.sm_count)(
      key.driver_version)(key.runtime_version)(doc ? doc->properties_json : std::string("{}"))(
      doc ? doc->first_seen_at : run_started_at)(doc ? doc->last_seen_at : run_started_at);
  insert.exec();
  return db.getLastInsertRowid();
}

std::int64_t insert_run(SQLite::Database& db, std::int64_t device_id, const StoredRun& r) {
  SQLite::Statement insert(
      db,
      "INSERT INTO runs (device_id, kernel, build_id, dtype, m, n, k, layout, status, started_at, "
      "finished_at, tool_version, argv_json, policy_json, cublas_count, cublas_min_ms, "
      "cublas_q1_ms, cublas_median_ms, cublas_q3_ms, cublas_max_ms, cublas_mean_ms, "
      "cublas_samples_json, cublas_sm_clock_mhz, strategy, reference_clock_mhz) VALUES (?, ?, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const CacheKey& k = r.key;
  Binder bind(insert);
  bind(device_id)(k.kernel)(k.build_id)(k.dtype)(k.shape.m)(k.shape.n)(k.shape.k)(k.layout)(
      std::string(to_string(r.status)))(r.started_at);
  if (r.finished_at.empty()) {
    bind.null();
  } else {
    bind(r.finished_at);
  }
  bind(r.tool_version)(r.argv_json.empty() ? std::string("[]") : r.argv_json)(
      r.policy_json.empty() ? std::string("{}") : r.policy_json);
  const Summary& c = r.cublas;
  bind(c.count);
  if (c.count == 0) {
    for (int i = 0; i < 6; ++i) bind.null();  // no reference was measured
  } else {
    bind(c.min)(c.q1)(c.median)(c.q3)(c.max)(c.mean);
  }
  bind(codec::samples_json(r.cublas_samples_ms))(r.cublas_sm_clock_mhz)(r.strategy)(
      r.reference_clock_mhz);
  insert.exec();
  return db.getLastInsertRowid();
}

void insert_measurement(SQLite::Database& db, std::int64_t run_id, const StoredMeasurement& m) {
  // The store reads error and rejection as one text: it is written as the error. Row ids of the
  // exporting database mean nothing here: reused_from is not kept.
  SQLite::Statement insert(
      db,
      "INSERT INTO measurements (run_id, variant, params, origin, step, suggested_block, "
      "block_limit, threads, tile, dynamic_smem, registers, active_blocks_per_sm, occupancy, "
      "limiter, grid_x, grid_y, waves, rejection, outcome, error, rel_error, sample_count, min_ms, "
      "q1_ms, median_ms, q3_ms, max_ms, mean_ms, samples_json, flops, gflops, sm_clock_mhz, "
      "noise, ci_low_ms, ci_high_ms, sm_clock_min_mhz, sm_clock_max_mhz, throttled, "
      "throttled_batches, stop_reason, search_round, tie, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?, ?)");
  Binder bind(insert);
  bind(run_id)(m.variant)(m.params)(m.origin)(m.step)(m.suggested_block)(m.block_limit)(
      m.threads)(m.tile)(m.dynamic_smem)(m.registers)(m.active_blocks_per_sm)(m.occupancy)(
      m.limiter)(m.grid_x)(m.grid_y)(m.waves)(std::string(to_string(m.outcome)))(m.error);
  if (m.rel_error < 0) {
    bind.null();
  } else {
    bind(m.rel_error);
  }
  const Summary& s = m.summary;
  bind(s.count)(s.min)(s.q1)(s.median)(s.q3)(s.max)(s.mean)(codec::samples_json(m.samples_ms))(
      m.flops)(m.gflops)(m.sm_clock_mhz)(m.noise)(m.median_ci.low)(m.median_ci.high)(
      m.sm_clock_min_mhz)(m.sm_clock_max_mhz)(m.throttled ? 1 : 0)(m.throttled_batches)(
      m.stop_reason)(m.search_round)(m.tie ? 1 : 0)(m.winner ? 1 : 0);
  insert.exec();
}

}  // namespace

ExportResult export_runs(Store& store, const ExportProvenance& provenance) {
  SQLite::Database& db = StoreAccess::database(store);
  ExportResult result;
  json doc;
  try {
    // One read transaction: the document is one consistent snapshot even while a tuner writes.
    SQLite::Transaction snapshot(db, SQLite::TransactionBehavior::DEFERRED);
    doc = {
        {"schema_version", kExportSchemaVersion},
        {"kind", "export"},
        {"exported_at", db.execAndGet("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").getString()},
        {"tool_version", provenance.tool_version},
        {"argv", provenance.argv},
        {"store_schema_version", db.execAndGet("PRAGMA user_version").getInt()}};
    doc["devices"] = device_rows(db);

    json runs = json::array();
    SQLite::Statement run_rows(
        db, fmt::format("SELECT {} FROM runs r JOIN devices d ON d.id = r.device_id "
                        "ORDER BY r.started_at DESC, r.id DESC",
                        sql::kRunColumns));
    SQLite::Statement measurement_rows(
        db, fmt::format("SELECT {} FROM measurements WHERE run_id = ? ORDER BY id",
                        sql::kMeasurementColumns));
    while (run_rows.executeStep()) {
      RunRecord record;
      record.run = sql::read_run(run_rows);
      measurement_rows.reset();
      measurement_rows.bind(1, record.run.id);
      while (measurement_rows.executeStep())
        record.measurements.push_back(sql::read_measurement(measurement_rows));
      result.measurements += int(record.measurements.size());
      ++result.runs;
      runs.push_back(model::to_json(record));
    }
    doc["runs"] = std::move(runs);
    snapshot.commit();
  } catch (const SQLite::Exception& e) {
    db_failure(store, "exporting runs", e);
  }
  result.json = dump(doc) + "\n";
  return result;
}

ImportSummary import_runs(Store& store, const std::string& json_text, const std::string& origin) {
  const json doc = read_document(json_text, origin);
  // Decoded once, outside the retried transaction; validation has checked every field.
  std::vector<RunRecord> records;
  std::set<std::string> dropped;
  for (auto& run : doc["runs"]) {
    records.push_back(model::run_record_from_json(run, model::Missing::kDefault));
    model::unknown_fields(run, dropped);
  }
  std::map<std::string, DeviceDoc> device_docs;
  for (auto& d : doc["devices"])
    device_docs[device_key_text(d)] = {dump(d["properties"]), d["first_seen_at"].get<std::string>(),
                                       d["last_seen_at"].get<std::string>()};

  SQLite::Database& db = StoreAccess::database(store);
  std::size_t run_index = 0;
  // Retried whole when SQLite stays busy past its timeout, like every other write
  // (db/retry.hpp): a failed attempt rolled back, so the summary is built inside.
  auto attempt = [&] {
    ImportSummary summary;
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    // Oldest first, so run ids in this store follow time like those of its own runs.
    for (std::size_t back = records.size(); back-- > 0;) {
      run_index = back;
      const StoredRun& run = records[back].run;
      const CacheKey& key = run.key;
      std::int64_t device_id = find_device(db, key);
      if (device_id == 0) {
        const json key_doc = doc["runs"][back]["device"];
        auto it = device_docs.find(device_key_text(key_doc));
        device_id = insert_device(db, key, it == device_docs.end() ? nullptr : &it->second,
                                  run.started_at);
      }

      SQLite::Statement existing(db,
                                 "SELECT id, status FROM runs WHERE device_id = ? AND kernel = ? "
                                 "AND build_id = ? AND dtype = ? AND m = ? AND n = ? AND k = ? "
                                 "AND started_at = ? AND layout = ?");
      Binder{existing}(device_id)(key.kernel)(key.build_id)(key.dtype)(key.shape.m)(key.shape.n)(
          key.shape.k)(run.started_at)(key.layout);
      if (existing.executeStep()) {
        const std::int64_t id = existing.getColumn(0).getInt64();
        const std::string status = existing.getColumn(1).getString();
        // A run exported while it was still running comes back finished: take the newer copy.
        if (status == to_string(RunStatus::kRunning) && run.status != RunStatus::kRunning) {
          existing.reset();
          SQLite::Statement remove(db, "DELETE FROM runs WHERE id = ?");
          remove.bind(1, id);
          remove.exec();
          ++summary.runs_replaced;
        } else {
          ++summary.runs_skipped;
          continue;
        }
      } else {
        ++summary.runs_added;
      }
      const std::int64_t run_id = insert_run(db, device_id, run);
      for (auto& m : records[back].measurements) {
        insert_measurement(db, run_id, m);
        ++summary.measurements_added;
      }
    }
    transaction.commit();
    summary.dropped_fields.assign(dropped.begin(), dropped.end());
    return summary;
  };
  try {
    return with_busy_retry(BusyRetry{}, attempt);
  } catch (const SQLite::Exception& e) {
    const int code = e.getErrorCode();
    if (code == SQLITE_CONSTRAINT || code == SQLITE_MISMATCH)
      fail(ExitCode::kUsage,
           fmt::format("export '{}': runs[{}] does not fit the database schema ({}); pass a file "
                       "written by `occtune export`",
                       origin, run_index, e.what()));
    db_failure(store, "importing runs", e);
  }
}

void check_export(const std::string& json_text, const std::string& origin) {
  read_document(json_text, origin);
}

std::vector<RunRecord> read_export(const std::string& json_text, const std::string& origin) {
  const json doc = read_document(json_text, origin);
  std::vector<RunRecord> out;
  std::int64_t next_id = 1;
  for (auto& run : doc["runs"]) {
    RunRecord record = model::run_record_from_json(run, model::Missing::kDefault);
    for (auto& m : record.measurements) {
      if (m.id == 0) m.id = next_id;  // documents of the previous layout carry no row ids
      ++next_id;
      m.run_id = record.run.id;
    }
    out.push_back(std::move(record));
  }
  // Newest first, as Store::runs() orders them.
  std::stable_sort(out.begin(), out.end(), [](const RunRecord& a, const RunRecord& b) {
    return a.run.started_at > b.run.started_at;
  });
  return out;
}

}  // namespace occtune::db
