// Validation of an export document before anything of it reaches a store (import) or a report
// (compare, check --baseline): the export schema (docs/schema/export.schema.json) plus the
// store's own rules, with bounded nesting, sizes and string lengths. The first problem is
// reported with its JSON path, e.g. runs[3].measurements[0].timing.median_ms. A document of
// the previous layout is renamed into the current one before it is checked (db/export_v1.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace occtune::db {

// Bounds on what an import accepts; a tuner writes far less than any of them.
struct ImportLimits {
  std::size_t max_depth = 32;              // nesting of arrays and objects (the format uses 6)
  std::size_t max_samples = 100000;        // samples of one measurement or reference
  std::size_t max_measurements = 100000;   // candidates of one run
  std::size_t max_string = 65536;          // bytes of any string (error texts, argv items)
  std::size_t max_name = 256;              // bytes of names: kernel, device, build id, ...
  std::chrono::seconds future_skew{3600};  // how far ahead of this clock a timestamp may be
};

// Parses `text` as JSON after checking its nesting depth without recursion (a deeply nested
// value would exhaust the stack of any recursive reader or writer). Throws Error(kUsage) naming
// `origin` and, for a bad number or syntax, the JSON path where it occurred.
nlohmann::json parse_export_json(const std::string& text, const std::string& origin,
                                 const ImportLimits& limits = {});

// Checks every field of a parsed export document. Throws Error(kUsage) naming `origin` and the
// JSON path of the first problem, Error(kNotFound) for a newer export schema_version.
void validate_export(const nlohmann::json& doc, const std::string& origin,
                     const ImportLimits& limits = {});

}  // namespace occtune::db
