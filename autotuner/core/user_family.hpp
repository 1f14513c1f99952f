// The user kernel families of this process (occtune/kernel.hpp) as the engine sees them: each
// registration validated, expanded into registry variants (configuration x admissible block),
// and the translations between the user's words (problems "nx=4096,ny=4096", variant names
// "reduce<ept=4>/256x1") and the engine's (Shape, VariantInfo). Host-only, no CUDA calls.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"
#include "kernels/registry.hpp"
#include "occtune/kernel.hpp"

namespace occtune {

// The store keys a problem by three sides; a user family's dimensions take them in declared
// order, the sides it has no dimension for are 1 (docs/architecture.md, "User kernels").
inline constexpr std::size_t kMaxUserDims = 3;

struct UserVariant {
  int config = 0;  // index into KernelFamily::configs
  Block block;
};

// A configuration's registers, static shared memory and named barriers, as the occupancy
// arithmetic takes them.
struct ConfigResources {
  int registers = 0;
  int static_smem = 0;  // bytes
  int barriers = 1;
};

// What compiling a family's configurations at tuning time gave (source kernels, issue #14):
// per configuration, empty when it compiled, else `compile_failed`'s text (the compiler log's
// first lines). Asked in the process that runs the GPU work, before its first measurement.
struct CompileSummary {
  std::vector<std::string> errors;  // parallel to KernelFamily::configs
  // Parallel to errors: the compiled code's resources (registers 0 where it failed), which
  // offline planning uses in place of declared ones (user_resources).
  std::vector<ConfigResources> resources;
  std::string arch;                 // "sm_90"
  double wall_seconds = 0;          // the whole space, in parallel, reference included
  int nvrtc_runs = 0;               // programs NVRTC compiled (reference included)
  int cache_hits = 0;               // programs read from the kernel cache instead
  std::string line() const;         // "148 configurations for sm_90 in 1.23 s: ..."
};
using CompileHook = std::function<const CompileSummary&()>;

struct UserFamily {
  KernelFamily def;
  CompileHook compile;  // set for families compiled at tuning time; compiles on first call
  std::vector<std::string> config_symbols;     // "reduce<ept=4>", one per configuration
  std::vector<kernels::VariantInfo> variants;  // configuration x admissible block
  std::vector<UserVariant> variant_of;         // parallel to variants

  // The blocks the rule admits between min_threads and max_threads, smallest first.
  std::vector<Block> blocks() const;
  Block block_for_threads(int threads) const;  // the rule's block of `threads` threads
  // The occupancy API's answer snapped down to the rule's block sizes (power of two, power of
  // four, or aspect.x * aspect.y * 4^k); 0 when no block of the rule is that small.
  int snap_threads(int suggested) const;
  // "name<p=v,...>" of a configuration, and "name<p=v,...>/XxY" of a variant.
  std::string config_symbol(int config) const;
  std::string variant_symbol(int config, Block block) const;
};

// Who registers a family: the program (occtune::register_family) or occtune itself (its
// built-in GEMM families, kernels/textbook_families.cu), which alone may set what the user
// engine does not read yet (modes, a configuration's own symbol).
enum class FamilyOrigin { kUser, kBuiltin };

// The one validation and expansion of a registered family, user or built-in: throws
// Error(kUsage) naming the family, the value and the fix; else the family with its variants
// (configuration x admissible block, or each specialised configuration's own block).
UserFamily expand_family(KernelFamily family, CompileHook compile, FamilyOrigin origin);
// The registry's view of an expanded family (name, description, baseline flag).
kernels::FamilyInfo family_info(const UserFamily& family);

// Validates and keeps `family`; throws Error(kUsage) naming the family, the value and the fix.
// (occtune::register_family calls it.)
// `compile`, for a family compiled at tuning time, is asked before its configurations are
// planned or measured; a configuration it reports failed is `compile_failed`, never launched.
void register_user_family(KernelFamily family, CompileHook compile = {});
// The user family named `name`, or nullptr (also for built-in families).
const UserFamily* find_user_family(std::string_view name);
// Every registered user family, in registration order.
std::vector<const UserFamily*> user_families();
// The families a GEMM of `layout` is tuned with when nothing names them (occtune::sgemm's on-miss
// tune): every registered family with variants in that layout except the baselines and the user
// families, whose problems are not GEMMs (their variants are all "nn", so a layout filter alone
// would let them in).
std::vector<std::string> gemm_tuning_families(Layout layout);

// What makes a stored result stale for a family: its version for a user family ("user:1.2"),
// the kernel build id for a built-in one.
std::string family_build_id(std::string_view family, std::string_view kernel_build_id);

// The work of one launch: the user family's work measure (flops and bytes, 0 where it gives
// none), or the GEMM's 2mnk flops for a built-in family.
Work problem_work(std::string_view family, Shape shape);

// "nx=4096,ny=4096" for `family`: every dimension once, decimal integers in [1, 2^31-1].
// Throws Error(kUsage) naming the family, the value and the fix.
Dims parse_problem(const UserFamily& family, std::string_view text);
// An example problem for messages: every dimension of the family at 4096 ("nx=4096,ny=4096").
std::string problem_example(const UserFamily& family);
Shape to_shape(const UserFamily& family, const Dims& problem);
Dims to_dims(const UserFamily& family, Shape shape);
// How a problem is written for `family`: "nx=4096,ny=2048" for a user family, the store's
// "MxNxK" for a built-in one (or no family: any kernel).
std::string problem_text(std::string_view family, Shape shape);

// The configuration and block a variant name stands for; throws Error(kUsage) naming the
// family, the text and the fix when it does not parse or names no registered configuration.
UserVariant parse_variant_name(const UserFamily& family, std::string_view text);
// The user variant of a registry variant of a user family, or nullopt.
std::optional<UserVariant> user_variant(const kernels::VariantInfo& variant);

// The launchable function of a configuration symbol ("reduce<ept=4>") or a variant symbol
// ("reduce<ept=4>/256x1"): KernelConfig::function, or what its resolve() returned (asked once),
// with the family's CUDA hooks, through which every runtime call on it must go. nullopt when
// the symbol is no user kernel's.
struct UserKernel {
  const void* function = nullptr;
  const CudaHooks* cuda = nullptr;
};
std::optional<UserKernel> user_kernel(std::string_view symbol);
// The resources offline planning uses for a configuration: those its compiled code has for a
// family compiled at tuning time (its compile hook is asked); else, for `arch` (compute
// capability x 10, 0: none), those of the program's own compiled code for that architecture
// (compiled_resources.hpp); else those it declared (KernelConfig::registers, static_smem).
// nullopt when the symbol is no user kernel's; registers 0: not declared. `origin`, when given,
// is set to where they come from ("its compiled code (...)", "its declaration (...), since <why>").
std::optional<ConfigResources> user_resources(std::string_view symbol, int arch = 0,
                                              std::string* origin = nullptr);
// Where offline planning on `arch` takes the family's registers from (user_resources' origin of
// every configuration, each once), for the plan's header.
std::string user_resources_origin(const UserFamily& family, int arch);

// The grid of a variant for a problem, as the family computes it; throws Error(kUsage) naming
// the family, the configuration and the problem when a side is below 1 or above the limit.
Grid user_grid(const UserFamily& family, const UserVariant& variant, const Dims& problem);

}  // namespace occtune
