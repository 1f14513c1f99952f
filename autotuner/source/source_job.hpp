// The `[[kernel]]` tables of a job file: a CUDA source kernel, its parameter space and how to
// launch and check it (docs/source-kernels.md). Strict like the rest of the job file: unknown
// keys, wrong types, missing keys and bad expressions are usage errors naming the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/source/expr.hpp"

namespace occtune::source {

// Element type of a buffer or scalar argument.
enum class ValueType { kInt32, kInt64, kUInt32, kUInt64, kFloat32, kFloat64 };
std::string_view to_string(ValueType type);
std::size_t size_of(ValueType type);
// Whether a scalar argument of `type` can hold `value` (floating types take any integer).
bool fits(ValueType type, std::int64_t value);

enum class ArgKind { kInput, kOutput, kScalar };
std::string_view to_string(ArgKind kind);

// One kernel argument, in launch order. Buffers: `count` elements, known from the problem when
// the file is read; inputs are filled with seeded random values, outputs poisoned with NaN
// before every checked launch. Scalars: `value`, from the problem.
struct Argument {
  std::string name;
  ArgKind kind = ArgKind::kInput;
  ValueType type = ValueType::kFloat32;
  std::int64_t count = 0;  // elements (buffers)
  std::int64_t value = 0;  // scalars
  Expr amount;             // `count` or `value` as written, for another problem (--problem)
};

struct Parameter {
  std::string name;
  std::vector<std::int64_t> values;  // as written, no duplicates
};

// Block (1 to 3 expressions), grid (1 to 3) and dynamic shared memory in bytes. Block
// expressions read the problem and the parameters; grid and smem also read block_x, block_y,
// block_z and threads (their product).
struct Launch {
  std::vector<Expr> block;
  std::vector<Expr> grid;
  Expr smem;
};

// What a configuration's outputs are compared with: a second kernel of the same source,
// compiled once without the parameters, or a file of expected output (the output buffers'
// raw bytes, concatenated in argument order).
struct Reference {
  std::string kernel;  // empty when `file` is used
  Launch launch;
  std::filesystem::path file;
  double tolerance = 1e-5;  // relative Frobenius error
};

struct SourceKernel {
  std::string name;              // the family's name (unique in the job)
  std::filesystem::path source;  // absolute
  std::string kernel;            // a __global__ name or a name expression with {PARAM}s
  std::vector<std::pair<std::string, std::int64_t>> problem;  // dims, in file order
  std::vector<Parameter> parameters;                          // in file order
  std::vector<Expr> constraints;
  std::vector<std::string> options;  // NVRTC options, as written
  Launch launch;
  std::vector<Argument> args;
  Reference reference;

  // Parameters substituted into the name expression ({BX}); every other parameter is passed
  // as -DNAME=value.
  bool in_name(const std::string& parameter) const;
  Bindings problem_bindings() const;
};

struct SourceJob {
  std::string origin;
  std::vector<SourceKernel> kernels;
};

// `base_dir` resolves relative `source` and reference `file` paths (the job file's directory).
SourceJob parse_source_job(std::string_view toml_text, const std::string& origin,
                           const std::filesystem::path& base_dir);
// Throws Error(kUsage) when the file cannot be read.
SourceJob load_source_job(const std::filesystem::path& path);
// Whether the file is a TOML job with [[kernel]] tables. A GEMM job (no `kernel` key), an
// unreadable file or malformed TOML answer false: those are parse_job_config's to report.
bool declares_source_kernels(const std::filesystem::path& path);

// Names the expression language reserves for the launch geometry.
inline constexpr std::string_view kReservedNames[] = {"threads", "block_x", "block_y", "block_z"};

}  // namespace occtune::source
