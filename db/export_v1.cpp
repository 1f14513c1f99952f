// Renames an export of schema_version 1 into the current layout (db/export_v1.hpp). The table
// is docs/schema/export.schema.json's migration note, in code.
#include "db/export_v1.hpp"

#include <string>
#include <utility>

#include "autotuner/core/model_json.hpp"
#include "db/exchange.hpp"

namespace occtune::db {
namespace {

using nlohmann::json;

// Moves `from` of `src` to `to` of `dst` when present.
void move_field(json& src, const char* from, json& dst, const char* to) {
  if (auto it = src.find(from); it != src.end()) {
    json value = std::move(*it);
    src.erase(from);
    dst[to] = std::move(value);
  }
}

// 0 / 1 integers became booleans; anything else stays for the validation to name.
void to_boolean(json& object, const char* name) {
  if (auto it = object.find(name); it != object.end() && it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    if (v == 0 || v == 1) *it = v == 1;
  }
}

void upgrade_measurement(json& m, const json& kernel) {
  if (!m.is_object()) return;
  m["family"] = kernel;
  if (auto it = m.find("params"); it != m.end()) {
    json label = std::move(*it);
    if (label.is_string()) m["params"] = model::params_json(label.get<std::string>());
    m["label"] = std::move(label);
  }
  if (auto it = m.find("tile"); it != m.end() && it->is_number_integer() && *it == 0)
    *it = nullptr;
  // One "why it did not run" text: a refused candidate's rejection became its error.
  if (auto rejection = m.find("rejection"); rejection != m.end()) {
    const auto error = m.find("error");
    const bool no_error =
        error == m.end() || (error->is_string() && error->get_ref<const std::string&>().empty());
    if (no_error && rejection->is_string() && !rejection->get_ref<const std::string&>().empty())
      m["error"] = *rejection;
    m.erase("rejection");
  }
  json timing = json::object();
  move_field(m, "sample_count", timing, "count");
  for (auto name : {"min_ms", "q1_ms", "median_ms", "q3_ms", "max_ms", "mean_ms", "noise",
                    "ci_low_ms", "ci_high_ms"})
    move_field(m, name, timing, name);
  m["timing"] = std::move(timing);
  move_field(m, "samples", m, "samples_ms");
  for (auto name : {"throttled", "tie", "winner"}) to_boolean(m, name);
}

void upgrade_run(json& run) {
  if (!run.is_object()) return;
  move_field(run, "source_id", run, "id");
  if (!run.contains("layout")) run["layout"] = "nn";  // before layouts, every run was nn
  json timing = json::object();
  move_field(run, "cublas_count", timing, "count");
  for (auto name : {"min_ms", "q1_ms", "median_ms", "q3_ms", "max_ms", "mean_ms"}) {
    const std::string column = std::string("cublas_") + name;
    move_field(run, column.c_str(), timing, name);
    if (timing.contains(name) && timing[name].is_null()) timing[name] = 0;  // no reference
  }
  json cublas = json::object();
  cublas["timing"] = std::move(timing);
  move_field(run, "cublas_samples", cublas, "samples_ms");
  move_field(run, "cublas_sm_clock_mhz", cublas, "sm_clock_mhz");
  run["cublas"] = std::move(cublas);
  for (auto name : {"owner_pid", "owner_host", "owner_boot_id", "owner_pid_ns",
                    "owner_start_ticks"})
    run.erase(name);
  if (auto it = run.find("measurements"); it != run.end() && it->is_array()) {
    const json kernel = run.value("kernel", json());
    for (auto& m : *it) upgrade_measurement(m, kernel);
  }
}

}  // namespace

json upgrade_export_v1(json doc) {
  if (!doc.is_object()) return doc;
  if (auto it = doc.find("runs"); it != doc.end() && it->is_array())
    for (auto& run : *it) upgrade_run(run);
  doc["schema_version"] = kExportSchemaVersion;
  return doc;
}

}  // namespace occtune::db
