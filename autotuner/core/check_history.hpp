// What `occtune check` records about each of its runs (schema 4): the verdict of every key with
// a summary of both sample sets, so the report can draw verdicts over time. Plain data; the
// store writes and reads it (Store::record_check, Store::checks). Absent values are nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/shape.hpp"

namespace occtune {

struct CheckKeyRecord {
  std::string kernel;
  std::string dtype = "f32";
  Shape shape;
  std::string launched_kernel;  // differs from kernel only with --kernel-override
  std::string verdict;          // "SAME", "SLOW", ... (Verdict text)
  std::string reason;
  std::optional<std::string> config;  // "tile=32" of the cached winner
  std::optional<int> threads;
  std::optional<std::int64_t> baseline_run_id;
  std::optional<std::string> baseline_build_id;
  std::optional<std::int64_t> baseline_count;
  std::optional<double> baseline_median_ms, baseline_low_ms, baseline_high_ms;
  std::optional<std::string> current_outcome;
  std::optional<double> current_rel_error;
  std::optional<std::int64_t> current_count;
  std::optional<double> current_min_ms, current_q1_ms, current_median_ms, current_q3_ms,
      current_max_ms, current_low_ms, current_high_ms;
  std::optional<double> ratio;    // current / baseline median
  std::optional<double> p_value;  // Mann-Whitney, two-sided
};

struct CheckRecord {
  std::int64_t id = 0;      // assigned by the store
  std::string recorded_at;  // ISO 8601 UTC, stamped by the store
  std::string device_uuid;
  std::string device_name;
  std::string platform;     // gate::platform_of of the device checked
  std::string build_id;
  std::string tool_version;
  std::string argv_json;
  double threshold = 0.05;
  bool strict = false;
  int exit_code = 0;
  std::vector<CheckKeyRecord> keys;
};

}  // namespace occtune
