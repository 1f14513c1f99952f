// Export and import of stored runs as one JSON document (docs/schema/export.schema.json): every
// run with all its candidates, samples and provenance, so results travel between machines (a GPU
// runner and a CPU-only CI job) and merge into another store without duplicates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace occtune::db {

// Version of the export document's layout (its "schema_version"); bump on incompatible change.
// 2 (issue #12): runs and measurements in the model's one JSON codec (autotuner/core/model_json),
// the names `--format json` and the service use. Import and compare still read 1
// (db/export_v1.hpp).
inline constexpr int kExportSchemaVersion = 2;

struct ExportProvenance {
  std::string tool_version;
  std::vector<std::string> argv;
};

// All runs of the store, newest first, read in one snapshot, each with all its measurements, as
// the typed model's codec writes them (model::to_json(RunRecord)); devices with their stored
// properties and when they were first and last seen.
struct ExportResult {
  std::string json;
  int runs = 0;
  int measurements = 0;
};
ExportResult export_runs(Store& store, const ExportProvenance& provenance);

struct ImportSummary {
  int runs_added = 0;
  int runs_replaced = 0;  // a run stored as `running` that the document has finished
  int runs_skipped = 0;   // already present: importing the same document again adds nothing
  int measurements_added = 0;
  std::vector<std::string> dropped_fields;  // fields the model has no member for
};

// Merges a document into the store in one BEGIN IMMEDIATE transaction (all or nothing). A run's
// identity is its device key, kernel, build id, dtype, shape and start time (milliseconds): a run
// already present is skipped. Throws Error: kUsage for malformed input (naming `origin` and the
// offending field), kNotFound for a newer export schema, kRuntime for database failures.
ImportSummary import_runs(Store& store, const std::string& json_text, const std::string& origin);

// The checks import_runs makes before its transaction (db/import_validation.hpp), alone: a
// front end runs them before it opens or creates a store, so a bad file touches nothing.
void check_export(const std::string& json_text, const std::string& origin);

// A run with its measurements as the regression gate reads them (from a store or an export).
using occtune::RunRecord;

// The runs of an export document, newest first. Same errors as import_runs.
std::vector<RunRecord> read_export(const std::string& json_text, const std::string& origin);

}  // namespace occtune::db
