// A tuning job (configs/*.toml): which kernels and shapes, and how to measure. Strict: unknown
// keys, wrong types and a missing or unsupported `version` are errors that name the key.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <functional>

#include "autotuner/core/layout.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/search_strategy.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune {

// [check]: how `occtune check` judges this job (docs/ci.md).
struct CheckSettings {
  double threshold = 0.05;  // relative median change that can fail the gate (percent in the file)
  int runners_up = 2;       // configurations after the cached winner re-measured for DRIFT
};

struct JobConfig {
  std::string origin;                 // file path or "built-in default.toml"
  std::vector<std::string> kernels;   // family names, validated against the registry
  std::vector<Shape> shapes;
  Layout layout = Layout::kNN;        // of every shape ([job] layout = "nt")
  int min_tile = 0;                   // 0: the family's default
  std::optional<std::string> device;  // selector
  std::optional<std::string> db;      // path
  TimingPolicy policy;                // [measure]
  SearchSettings search;              // [search]
  CheckSettings check;
  // [measure] candidate_timeout_s: wall-clock limit of one launch of a candidate in the worker
  // process (docs/architecture.md, "Worker isolation"); unset here = flag, env or the default.
  std::optional<double> candidate_timeout_s;

  // [job] problem = { nx = 4096, ny = 4096 } or problems = [{ ... }, ...]: problems of user kernel
  // families (docs/user-kernels.md), each written "nx=4096,ny=4096" as --problem takes it. Only
  // the values' types are checked here; the names are checked against the family where the
  // kernels are known (cli/job_selection), with the errors of --problem.
  std::vector<std::string> problems;
};

inline constexpr double kDefaultCandidateTimeoutS = 10.0;
inline constexpr double kMaxCandidateTimeoutS = 86400.0;

inline constexpr int kJobConfigVersion = 1;

JobConfig parse_job_config(std::string_view toml_text, const std::string& origin);
// Empty path: the built-in configs/default.toml. Throws Error(kUsage) for a missing file.
JobConfig load_job_config(const std::string& path);
// How a setting is named in an error message: "'measure.samples'" in a config file, "--samples"
// on the command line. Takes the TimingPolicy / SearchSettings field name.
using SettingNames = std::function<std::string(std::string_view field)>;
SettingNames config_key_names();
// Ranges and relations of the measurement protocol and search settings (each setting's own
// range and type are checked where it is read). Throws Error(kUsage) naming the setting.
void validate_protocol(const TimingPolicy& policy, const SearchSettings& search,
                       const SettingNames& name);
// Throws Error(kUsage) listing the known kernels when `name` is not a registered family.
void validate_kernel_name(const std::string& name);

}  // namespace occtune
