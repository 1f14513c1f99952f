// Registering your own CUDA kernels with occtune (docs/user-kernels.md): a kernel family is a
// name and a version, named integer problem dimensions, the compiled configurations (one
// __global__ function each), their shared memory as a function of the block, the grid, the
// buffers and a reference (a host function, or device work such as a simple kernel).
// occtune::main (occtune/main.hpp) then tunes it like a built-in family, and occtune::launch
// (occtune/launch.hpp) launches the tuned winner. C++17, no CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "occtune/error.hpp"
#include "occtune/model.hpp"

namespace occtune {

// A problem of a user family: named integer dimensions in the family's declared order
// ({"nx", 4096}, {"ny", 4096}). Written "nx=4096,ny=4096" on the command line (--problem).
struct Dims {
  std::vector<std::pair<std::string, std::int64_t>> values;
  // The problem's value of the family's KernelFamily::modes ("nt"); empty for a family without.
  // (Initialised here so that `Dims{{{"nx", 4096}}}` stays free of -Wmissing-field-initializers.)
  std::string mode = {};

  // The value of `name`; throws Error(kUsage) naming it and the dimensions there are.
  std::int64_t operator[](const std::string& name) const;
  std::string str() const;  // "nx=4096,ny=4096"
};

// How the occupancy API's block size becomes a block (docs/architecture.md, "User kernels").
enum class BlockRule {
  kLinear,  // 1D: threads snapped down to a power of two, block (threads, 1)
  kSquare,  // square 2D: threads snapped down to a power of four, block (w, w), w = sqrt(threads)
  kFixed,   // each configuration's own KernelConfig::block, no occupancy walk (source kernels)
  kAspect,  // fixed-aspect 2D: block (aspect.x * s, aspect.y * s), s a power of two, so threads
            // are snapped down to aspect.x * aspect.y * 4^k (KernelFamily::aspect)
};

// The shape of every block of a BlockRule::kAspect family, in lowest terms: {4, 1} gives the
// blocks 4x1, 8x2, 16x4, 32x8, 64x16; {1, 2} gives 1x2, 2x4, ..., 16x32.
struct Aspect {
  int x = 1, y = 1;
};

struct Block {
  int x = 1, y = 1;
  int threads() const { return x * y; }
};

struct Grid {
  std::int64_t x = 1, y = 1, z = 1;
};

// One compiled configuration of a family: its parameter values and the function that
// implements them. The function is what cudaLaunchKernel and cudaFuncGetAttributes take: a
// __global__ function's address (`reinterpret_cast<const void*>(&stencil<16>)`) or a handle
// obtained at run time (a cudaKernel_t from cudaLibraryGetKernel); `resolve`, when set instead,
// is asked for it the first time it is needed, in the process that runs the GPU work.
struct KernelConfig {
  std::vector<Param> params;  // e.g. {{"ept", 4}}; names unique, values any integer
  const void* function = nullptr;
  std::function<const void*()> resolve;
  // Optional: offline planning (`plan --profile`) reads registers and static shared memory
  // from the program's compiled code for the profile's architecture; these declared values
  // (what nvcc --resource-usage reports) are used only where it has no code for it or the
  // function comes from `resolve`. 0: not declared.
  int registers = 0;
  int static_smem = 0;
  // The block this configuration launches with, for BlockRule::kFixed, or for a configuration
  // with a `symbol` under any rule (otherwise unused).
  Block block;
  // Optional, occtune's built-in families only in this version (register_family refuses it):
  // the name of the configuration's one variant instead of "family<p=v,...>/XxY", the name the
  // store has always keyed it by ("TiledStatic<16>"). Such a configuration is specialised to
  // its `block`, which must be one of the rule's blocks, and exists for that block only.
  std::string symbol = {};
  // Optional, built-in families only in this version: the value of KernelFamily::modes this
  // configuration computes ("nt"); only the configurations of a problem's mode are its
  // candidates. Empty for a family without modes.
  std::string mode = {};

  // The value of parameter `name`; throws Error(kUsage) naming it.
  std::int64_t param(const std::string& name) const;
};

// A device buffer of `count` floats that occtune allocates for tuning. Inputs are filled with
// seeded uniform values in [low, high); outputs are poisoned with NaN before every checked
// launch, so an element the kernel never writes fails the check; scratch buffers (a kernel's
// workspace, e.g. per-block partial results) are allocated and neither filled nor compared.
struct Buffer {
  enum class Role { kInput, kOutput, kScratch };
  std::string name;
  std::size_t count = 0;
  Role role = Role::kInput;
  float low = -1.0f, high = 1.0f;
};

// What a family's launch function is handed: the buffers in declared order, the problem, the
// configuration with its function, and the block, grid, dynamic shared memory and stream to
// launch with. occtune/launch.cuh's launch_kernel() turns it into a cudaLaunchKernel call.
struct LaunchArgs {
  const Dims* problem = nullptr;
  const KernelConfig* config = nullptr;
  const void* function = nullptr;  // config->function, or what config->resolve returned
  Block block;
  Grid grid;
  std::size_t dynamic_smem = 0;
  void* stream = nullptr;  // a cudaStream_t
  std::vector<float*> buffers;
  // The configuration's own scratch memory (KernelFamily::workspace), at least as many bytes as
  // it asked for; nullptr and 0 when it asks for none.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// What a family's device reference is handed (KernelFamily::device_reference): the problem, the
// stream, and the buffers in declared order. The inputs are the very buffers the configurations
// read; every output and scratch buffer is the reference's own copy, allocated by occtune and
// filled with NaN, so the reference's results never share memory with a configuration's.
struct ReferenceArgs {
  const Dims* problem = nullptr;
  void* stream = nullptr;  // a cudaStream_t
  std::vector<float*> buffers;
};

// The CUDA runtime calls occtune makes on a configuration's function, compiled into the
// program's own .cu code (`family.cuda = occtune::cuda_hooks();` from occtune/launch.cuh): a
// __global__ function is known only to the CUDA runtime linked into the program that defines
// it, which is not the one inside libocctune. Each returns the cudaError_t as an int.
struct CudaHooks {
  int (*attributes)(const void* function, int* registers, int* static_smem,
                    int* max_threads) = nullptr;
  int (*max_active_blocks)(const void* function, int threads, std::size_t dynamic_smem,
                           int* blocks) = nullptr;
  int (*set_max_dynamic_smem)(const void* function, int bytes) = nullptr;
};

// How an output is compared with the reference's. A result outside the tolerance is
// `wrong_result` and never wins.
struct Comparison {
  enum class Norm {
    kRelativeFrobenius,  // ||out - ref|| / ||ref|| over every output element
    kMaxAbsolute,        // max |out - ref|
  };
  Norm norm = Norm::kRelativeFrobenius;
  double tolerance = 1e-5;
};

// A named enumeration of a family's problem beside its integer dimensions, kept in the store's
// key: the GEMM operand layout, {"layout", {"nn", "nt", "tn", "tt"}}. The key has one such
// column, the layout, so a family has at most one mode and it is the layout. Built-in families
// only in this version (docs/architecture.md, "Issue #13: the built-in families through the
// registration API").
struct Modes {
  std::string name;  // empty: the family has no modes
  std::vector<std::string> values;
};

struct KernelFamily {
  std::string name;     // [a-z0-9_], unique among every family (built-in ones included)
  std::string version;  // part of the cache key: change it when the kernel changes
  std::string description;
  std::vector<std::string> dims;  // the problem's dimensions, 1 to 3 names, e.g. {"nx", "ny"}
  std::vector<KernelConfig> configs;
  BlockRule block_rule = BlockRule::kSquare;
  Aspect aspect;  // BlockRule::kAspect only: block_x : block_y
  Modes modes;    // built-in families only in this version (KernelConfig::mode)
  // A reference point (a textbook kernel to compare with) rather than a kernel to tune; read by
  // occtune::sgemm's tuning on a miss, which tunes the GEMM families that are not baselines.
  bool baseline = false;
  // Optional, built-in families only in this version: for a BlockRule::kSquare family whose
  // every configuration is specialised to its block (KernelConfig::symbol), the run-time-block
  // kernel the occupancy API is asked about (its function and symbol), with `smem` of the rule's
  // block for each block size; each snapped answer picks the configuration specialised to that
  // block (tiled_dynamic: docs/architecture.md, "Issue #13: every built-in family through the
  // registration API"). Unset (no function): the family's candidates are its configurations.
  KernelConfig walk = {};
  int min_threads = 16;    // the smallest block the kernel accepts (threads)
  int max_threads = 1024;  // the largest
  // Dynamic shared memory in bytes for a block; fed to the occupancy API.
  std::function<std::size_t(Block block, const KernelConfig& config)> smem;
  std::function<Grid(const Dims& problem, const KernelConfig& config, Block block)> grid;
  // The buffers a problem needs, inputs and outputs, in the order launch sees them.
  std::function<std::vector<Buffer>(const Dims& problem)> buffers;
  // Optional: scratch memory one launch needs that depends on the configuration or its block,
  // in bytes (partial results of each block of a grid the configuration chooses, the slices of
  // a split-K); a workspace of the problem alone is a Buffer of Role::kScratch instead. occtune
  // hands it to launch as LaunchArgs::workspace: while tuning, allocated outside any timed
  // region and NaN-filled before every checked launch and whenever another configuration used
  // it; in occtune::launch, allocated and freed in stream order around the launch. Its contents
  // are undefined: a kernel that accumulates into it clears it first.
  std::function<std::size_t(const Dims& problem, const KernelConfig& config, Block block)>
      workspace;
  // Launches one configuration asynchronously; returns the cudaError_t as an int (0: success).
  std::function<int(const LaunchArgs& args)> launch;
  CudaHooks cuda;  // occtune::cuda_hooks() (occtune/launch.cuh)
  // The expected outputs, computed once per problem before any configuration runs, by exactly
  // one of two references (setting both, or neither, is refused at registration):
  // - `reference`, on the host: `host` holds every buffer in declared order, inputs filled as on
  //   the device; the reference writes the outputs.
  // - `device_reference`, on the device: launches, asynchronously on args.stream, the work that
  //   writes every output of args.buffers from its inputs (a simple kernel of the program's own
  //   .cu code, or a library call such as cuBLAS); returns the cudaError_t as an int (0:
  //   success). No copy of the inputs to the host and no host arithmetic: the way to check a
  //   problem too large for a host loop. Not timed.
  // An output element the reference leaves NaN (unwritten) is refused before any measurement.
  std::function<void(const Dims& problem, std::vector<std::vector<float>>& host)> reference;
  std::function<int(const ReferenceArgs& args)> device_reference;
  Comparison compare;
  // Optional work measure: floating-point operations of one launch, for GFLOP/s in tables.
  std::function<double(const Dims& problem)> flops;
  // Optional work measure: bytes one launch must move to and from device memory, for GB/s in
  // tables. The problem's, not a configuration's (a stencil reads and writes each element
  // once: 2 * nx * ny * 4), so the rate compares configurations on equal work.
  std::function<double(const Dims& problem)> bytes;
};

// Registers `family` for this process: tuning through occtune::main and launching through
// occtune::launch. Register every family before occtune::main or the first lookup or launch.
// Throws Error(kUsage) naming the family, the value and the fix for a bad registration (no
// reference or two kinds of it, no configurations, a duplicate name, a dimension or parameter spelt twice, ...).
void register_family(KernelFamily family);

}  // namespace occtune
