// A tuning job (configs/*.toml): which kernels and shapes, and how to measure. Strict: unknown
// keys, wrong types and a missing or unsupported `version` are errors that name the key.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune {

struct JobConfig {
  std::string origin;                 // file path or "built-in default.toml"
  std::vector<std::string> kernels;   // family names, validated against the registry
  std::vector<Shape> shapes;
  int min_tile = 0;                   // 0: the family's default
  std::optional<std::string> device;  // selector
  std::optional<std::string> db;      // path
  TimingPolicy policy;
};

inline constexpr int kJobConfigVersion = 1;

JobConfig parse_job_config(std::string_view toml_text, const std::string& origin);
// Empty path: the built-in configs/default.toml. Throws Error(kUsage) for a missing file.
JobConfig load_job_config(const std::string& path);
// Throws Error(kUsage) listing the known kernels when `name` is not a registered family.
void validate_kernel_name(const std::string& name);

}  // namespace occtune
