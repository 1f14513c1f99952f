// Export and import (db/exchange.hpp). Rows are copied column by column by name, so the document
// follows the schema without a hand-kept field list: a `*_json` text column travels as decoded
// JSON under the name without the suffix, and is encoded again on import.
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
#include <optional>
#include <set>

#include "autotuner/core/error.hpp"
#include "db/import_validation.hpp"
#include "db/retry.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

struct StoreAccess {
  static SQLite::Database& database(Store& store) { return *store.db_; }
};

namespace {

using nlohmann::json;

constexpr std::string_view kJsonSuffix = "_json";
// The device columns that belong to the cache key; a run names its device by them.
const std::vector<std::string> kDeviceKeyFields = {
    "uuid", "name", "cc_major", "cc_minor", "sm_count", "driver_version", "runtime_version"};
const std::set<std::string> kDeviceIntFields = {"cc_major", "cc_minor", "sm_count",
                                                "driver_version", "runtime_version"};

bool ends_with_json(const std::string& name) {
  return name.size() > kJsonSuffix.size() &&
         name.compare(name.size() - kJsonSuffix.size(), kJsonSuffix.size(), kJsonSuffix) == 0;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

[[noreturn]] void db_failure(const Store& store, std::string_view what,
                             const SQLite::Exception& e) {
  fail(ExitCode::kRuntime, fmt::format("database '{}': {} failed: {}; check the file or pass --db "
                                       "with another path",
                                       store.path().string(), what, e.what()));
}

// One row as a JSON object: every column by name except those in `skip`.
json row_to_json(SQLite::Statement& statement, const std::set<std::string>& skip) {
  json row = json::object();
  for (int i = 0; i < statement.getColumnCount(); ++i) {
    const std::string name = statement.getColumnName(i);
    if (skip.count(name)) continue;
    SQLite::Column column = statement.getColumn(i);
    switch (column.getType()) {
      case SQLITE_INTEGER:
        row[name] = column.getInt64();
        break;
      case SQLITE_FLOAT:
        row[name] = column.getDouble();
        break;
      case SQLITE_TEXT: {
        std::string text = column.getString();
        if (ends_with_json(name)) {
          json decoded = json::parse(text, nullptr, /*allow_exceptions=*/false);
          if (!decoded.is_discarded()) {
            row[name.substr(0, name.size() - kJsonSuffix.size())] = std::move(decoded);
            break;
          }
        }
        row[name] = std::move(text);
        break;
      }
      case SQLITE_NULL:
        row[name] = nullptr;
        break;
      default:  // no occtune column holds a BLOB
        break;
    }
  }
  return row;
}

// --- reading and checking a document ---------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void bad(const std::string& where, const std::string& what) const {
    fail(ExitCode::kUsage, fmt::format("export '{}': {} {}; pass a file written by `occtune "
                                       "export`",
                                       origin_, where, what));
  }

  // The whole document, checked field by field before anything of it is used.
  json parse(const std::string& text) const {
    json doc = parse_export_json(text, origin_);
    validate_export(doc, origin_);
    return doc;
  }

 private:
  std::string origin_;
};

// Typed reads with a default, for the gate's view of a run; types were checked where it matters.
template <typename T>
T get_or(const json& object, const char* name, T fallback) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

CacheKey key_of(const json& run) {
  const json& d = run["device"];
  CacheKey key;
  key.device_uuid = d["uuid"].get<std::string>();
  key.device_name = d["name"].get<std::string>();
  key.cc_major = d["cc_major"].get<int>();
  key.cc_minor = d["cc_minor"].get<int>();
  key.sm_count = d["sm_count"].get<int>();
  key.driver_version = d["driver_version"].get<int>();
  key.runtime_version = d["runtime_version"].get<int>();
  key.kernel = run["kernel"].get<std::string>();
  key.build_id = run["build_id"].get<std::string>();
  key.dtype = run["dtype"].get<std::string>();
  key.shape = Shape{run["m"].get<std::int64_t>(), run["n"].get<std::int64_t>(),
                    run["k"].get<std::int64_t>()};
  key.layout = get_or<std::string>(run, "layout", "nn");  // older exports: all nn
  return key;
}

std::vector<double> samples_of(const json& object, const char* name) {
  std::vector<double> out;
  auto it = object.find(name);
  if (it == object.end() || !it->is_array()) return out;
  for (auto& v : *it)
    if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

StoredMeasurement measurement_of(const json& m, std::int64_t fallback_id) {
  StoredMeasurement out;
  out.id = get_or<std::int64_t>(m, "id", fallback_id);
  out.run_id = get_or<std::int64_t>(m, "run_id", 0);
  out.variant = get_or<std::string>(m, "variant", "");
  out.params = get_or<std::string>(m, "params", "");
  out.threads = get_or<int>(m, "threads", 0);
  out.tile = get_or<int>(m, "tile", 0);
  out.dynamic_smem = get_or<std::int64_t>(m, "dynamic_smem", 0);
  out.registers = get_or<int>(m, "registers", 0);
  out.active_blocks_per_sm = get_or<int>(m, "active_blocks_per_sm", 0);
  out.occupancy = get_or<double>(m, "occupancy", 0);
  out.limiter = get_or<std::string>(m, "limiter", "");
  out.origin = get_or<std::string>(m, "origin", "");
  out.grid_x = get_or<std::int64_t>(m, "grid_x", 0);
  out.grid_y = get_or<std::int64_t>(m, "grid_y", 0);
  out.waves = get_or<double>(m, "waves", 0);
  out.outcome = sql::stored_outcome(get_or<std::string>(m, "outcome", ""));
  out.error = get_or<std::string>(m, "error", "");
  if (out.error.empty()) out.error = get_or<std::string>(m, "rejection", "");
  out.rel_error = get_or<double>(m, "rel_error", -1.0);
  out.samples_ms = samples_of(m, "samples");
  // The stored summary is authoritative when present (it is what the tuner saw).
  const Summary s = summarize(out.samples_ms);
  out.summary.count = std::size_t(get_or<std::int64_t>(m, "sample_count", std::int64_t(s.count)));
  out.summary.min = get_or<double>(m, "min_ms", s.min);
  out.summary.q1 = get_or<double>(m, "q1_ms", s.q1);
  out.summary.median = get_or<double>(m, "median_ms", s.median);
  out.summary.q3 = get_or<double>(m, "q3_ms", s.q3);
  out.summary.max = get_or<double>(m, "max_ms", s.max);
  out.summary.mean = get_or<double>(m, "mean_ms", s.mean);
  out.winner = get_or<std::int64_t>(m, "winner", 0) != 0;
  out.gflops = get_or<double>(m, "gflops", 0);
  out.sm_clock_mhz = get_or<int>(m, "sm_clock_mhz", 0);
  return out;
}

// --- writing ----------------------------------------------------------------------------------

std::set<std::string> table_columns(SQLite::Database& db, const std::string& table) {
  std::set<std::string> out;
  SQLite::Statement info(db, fmt::format("PRAGMA table_info({})", table));
  while (info.executeStep()) out.insert(info.getColumn(1).getString());
  return out;
}

// Binds a JSON value to parameter `index`; objects and arrays go to *_json text columns.
void bind_value(SQLite::Statement& statement, int index, const json& value) {
  if (value.is_null()) {
    statement.bind(index);
  } else if (value.is_boolean()) {
    statement.bind(index, value.get<bool>() ? 1 : 0);
  } else if (value.is_number_integer()) {
    statement.bind(index, value.get<std::int64_t>());
  } else if (value.is_number()) {
    statement.bind(index, value.get<double>());
  } else if (value.is_string()) {
    statement.bind(index, value.get<std::string>());
  } else {
    statement.bind(index, dump(value));
  }
}

// Inserts `object` into `table`: each field goes to the column of its name or to `<name>_json`;
// fields with no column are reported in `dropped`. `fixed` columns (foreign keys) come first.
std::int64_t insert_row(SQLite::Database& db, const std::string& table,
                        const std::set<std::string>& columns, const json& object,
                        const std::set<std::string>& skip,
                        const std::vector<std::pair<std::string, std::int64_t>>& fixed,
                        std::set<std::string>& dropped) {
  std::vector<std::string> names;
  std::vector<const json*> values;
  for (auto& [name, value] : object.items()) {
    if (skip.count(name)) continue;
    std::string column;
    if (columns.count(name) && !ends_with_json(name)) {
      column = name;
    } else if (columns.count(name + std::string(kJsonSuffix))) {
      column = name + std::string(kJsonSuffix);
    } else if (columns.count(name)) {
      column = name;  // a *_json column exported as raw text because it held invalid JSON
    } else {
      dropped.insert(table + "." + name);
      continue;
    }
    if (column == "id") continue;
    names.push_back(column);
    values.push_back(&value);
  }
  std::string column_list, placeholders;
  for (auto& [name, id] : fixed) {
    column_list += (column_list.empty() ? "" : ", ") + name;
    placeholders += placeholders.empty() ? "?" : ", ?";
  }
  for (auto& name : names) {
    column_list += (column_list.empty() ? "" : ", ") + name;
    placeholders += placeholders.empty() ? "?" : ", ?";
  }
  SQLite::Statement insert(
      db, fmt::format("INSERT INTO {} ({}) VALUES ({})", table, column_list, placeholders));
  int index = 0;
  for (auto& [name, id] : fixed) insert.bind(++index, id);
  for (auto* value : values) {
    const std::string& column = names[std::size_t(index) - fixed.size()];
    // A decoded JSON column whose value is a plain string was text that was not JSON: keep it.
    if (ends_with_json(column) && !value->is_string())
      insert.bind(++index, dump(*value));
    else
      bind_value(insert, ++index, *value);
  }
  insert.exec();
  return db.getLastInsertRowid();
}

std::int64_t find_device(SQLite::Database& db, const json& key) {
  SQLite::Statement find(db,
                         "SELECT id FROM devices WHERE uuid = ? AND name = ? AND cc_major = ? AND "
                         "cc_minor = ? AND sm_count = ? AND driver_version = ? AND "
                         "runtime_version = ?");
  int index = 0;
  for (auto& name : kDeviceKeyFields) bind_value(find, ++index, key[name]);
  return find.executeStep() ? find.getColumn(0).getInt64() : 0;
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
    json devices = json::array();
    SQLite::Statement device_rows(db, "SELECT * FROM devices ORDER BY id");
    while (device_rows.executeStep()) devices.push_back(row_to_json(device_rows, {"id"}));
    doc["devices"] = std::move(devices);

    json runs = json::array();
    SQLite::Statement run_rows(
        db,
        "SELECT r.*, d.uuid AS uuid_, d.name AS name_, d.cc_major AS cc_major_, "
        "d.cc_minor AS cc_minor_, d.sm_count AS sm_count_, d.driver_version AS driver_version_, "
        "d.runtime_version AS runtime_version_ FROM runs r JOIN devices d ON d.id = r.device_id "
        "ORDER BY r.started_at DESC, r.id DESC");
    SQLite::Statement measurement_rows(db,
                                       "SELECT * FROM measurements WHERE run_id = ? ORDER BY id");
    while (run_rows.executeStep()) {
      json run = row_to_json(run_rows, {"device_id", "uuid_", "name_", "cc_major_", "cc_minor_",
                                        "sm_count_", "driver_version_", "runtime_version_"});
      const std::int64_t id = run["id"].get<std::int64_t>();
      run.erase("id");
      run["source_id"] = id;  // the run id in the exporting store; informational only
      json device = json::object();
      for (auto& name : kDeviceKeyFields) {
        SQLite::Column column = run_rows.getColumn((name + "_").c_str());
        if (kDeviceIntFields.count(name))
          device[name] = column.getInt64();
        else
          device[name] = column.getString();
      }
      run["device"] = std::move(device);
      json measurements = json::array();
      measurement_rows.reset();
      measurement_rows.bind(1, id);
      while (measurement_rows.executeStep()) {
        measurements.push_back(row_to_json(measurement_rows, {"id", "run_id"}));
        ++result.measurements;
      }
      ++result.runs;
      run["measurements"] = std::move(measurements);
      runs.push_back(std::move(run));
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
  Reader reader(origin);
  const json doc = reader.parse(json_text);
  SQLite::Database& db = StoreAccess::database(store);
  std::size_t run_index = 0;
  // Retried whole when SQLite stays busy past its timeout, like every other write
  // (db/retry.hpp): a failed attempt rolled back, so the summary is built inside.
  auto attempt = [&] {
    ImportSummary summary;
    std::set<std::string> dropped;
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    const auto device_columns = table_columns(db, "devices");
    const auto run_columns = table_columns(db, "runs");
    const auto measurement_columns = table_columns(db, "measurements");

    // Devices first, with their full properties; the key decides identity.
    std::map<std::string, const json*> device_docs;
    const json no_devices = json::array();
    for (auto& device : doc.contains("devices") ? doc["devices"] : no_devices) {
      if (!device.is_object()) continue;
      json key = json::object();
      bool complete = true;
      for (auto& name : kDeviceKeyFields) {
        if (!device.contains(name))
          complete = false;
        else
          key[name] = device[name];
      }
      if (complete) device_docs[dump(key)] = &device;
    }

    // Oldest first, so run ids in this store follow time like those of its own runs.
    const json& runs = doc["runs"];
    for (std::size_t back = runs.size(); back-- > 0;) {
      run_index = back;
      const json& run = runs[back];
      const json& key = run["device"];
      std::int64_t device_id = find_device(db, key);
      if (device_id == 0) {
        json device = json::object();
        if (auto it = device_docs.find(dump(key)); it != device_docs.end()) device = *it->second;
        for (auto& name : kDeviceKeyFields) device[name] = key[name];
        if (!device.contains("properties")) device["properties"] = json::object();
        if (!device.contains("first_seen_at")) device["first_seen_at"] = run["started_at"];
        if (!device.contains("last_seen_at")) device["last_seen_at"] = run["started_at"];
        device_id = insert_row(db, "devices", device_columns, device, {"id"}, {}, dropped);
      }

      SQLite::Statement existing(db,
                                 "SELECT id, status FROM runs WHERE device_id = ? AND kernel = ? "
                                 "AND build_id = ? AND dtype = ? AND m = ? AND n = ? AND k = ? "
                                 "AND started_at = ? AND layout = ?");
      existing.bind(1, device_id);
      int index = 1;
      for (auto name : {"kernel", "build_id", "dtype", "m", "n", "k", "started_at"})
        bind_value(existing, ++index, run[name]);
      existing.bind(++index, get_or<std::string>(run, "layout", "nn"));  // older exports: nn
      if (existing.executeStep()) {
        const std::int64_t id = existing.getColumn(0).getInt64();
        const std::string status = existing.getColumn(1).getString();
        // A run exported while it was still running comes back finished: take the newer copy.
        if (status == "running" && run["status"] != "running") {
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
      const std::int64_t run_id =
          insert_row(db, "runs", run_columns, run, {"id", "source_id", "device", "measurements"},
                     {{"device_id", device_id}}, dropped);
      for (auto& m : run["measurements"]) {
        // Row ids of the exporting database mean nothing here: reused_from (schema 2) is not kept.
        insert_row(db, "measurements", measurement_columns, m, {"id", "run_id", "reused_from"},
                   {{"run_id", run_id}}, dropped);
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
      reader.bad(fmt::format("runs[{}]", run_index),
                 fmt::format("does not fit the database schema ({})", e.what()));
    db_failure(store, "importing runs", e);
  }
}

void check_export(const std::string& json_text, const std::string& origin) {
  Reader(origin).parse(json_text);
}

std::vector<RunRecord> read_export(const std::string& json_text, const std::string& origin) {
  const json doc = Reader(origin).parse(json_text);
  std::vector<RunRecord> out;
  std::int64_t next_id = 1;
  for (auto& run : doc["runs"]) {
    RunRecord record;
    StoredRun& r = record.run;
    r.id = get_or<std::int64_t>(run, "source_id", 0);
    r.key = key_of(run);
    r.status = sql::stored_run_status(run["status"].get<std::string>());
    r.started_at = run["started_at"].get<std::string>();
    r.finished_at = get_or<std::string>(run, "finished_at", "");
    r.tool_version = get_or<std::string>(run, "tool_version", "");
    r.argv_json = dump(run.value("argv", json::array()));
    r.policy_json = dump(run.value("policy", json::object()));
    r.cublas.count = std::size_t(get_or<std::int64_t>(run, "cublas_count", 0));
    r.cublas.min = get_or<double>(run, "cublas_min_ms", 0);
    r.cublas.q1 = get_or<double>(run, "cublas_q1_ms", 0);
    r.cublas.median = get_or<double>(run, "cublas_median_ms", 0);
    r.cublas.q3 = get_or<double>(run, "cublas_q3_ms", 0);
    r.cublas.max = get_or<double>(run, "cublas_max_ms", 0);
    r.cublas.mean = get_or<double>(run, "cublas_mean_ms", 0);
    for (auto& m : run["measurements"]) {
      record.measurements.push_back(measurement_of(m, next_id++));
      record.measurements.back().run_id = r.id;
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
