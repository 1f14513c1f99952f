// plan_user_family (autotuner/core/user_plan.hpp).
#include "autotuner/core/user_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "autotuner/core/error.hpp"

namespace occtune {
namespace {

// Refuses a family none of whose configurations fits the device's shared memory at any block:
// its plan would be empty and the message would not say why.
void require_some_block_fits(const UserFamily& f, const DeviceInfo& device) {
  std::size_t smallest = SIZE_MAX;
  std::string where;
  for (const auto& v : f.variants) {
    if (v.dynamic_smem <= device.shared_mem_per_block_optin) return;
    if (v.dynamic_smem < smallest) {
      smallest = v.dynamic_smem;
      where = v.symbol;
    }
  }
  fail(ExitCode::kUsage,
       fmt::format("kernel family '{}': every configuration needs more dynamic shared memory "
                   "than {} allows per block ({} B); the smallest need is {} B ({}); make "
                   "KernelFamily::smem smaller or lower min_threads",
                   f.def.name, device.name, device.shared_mem_per_block_optin, smallest, where));
}

// A family whose configurations each have their own block (source kernels): one candidate per
// configuration, annotated like a walk's answer; a configuration that did not compile is a
// candidate carrying the compiler's words, so the run records it as compile_failed.
void plan_fixed_blocks(const UserFamily& f, const DeviceInfo& device, const Dims& dims,
                       OccupancyOracle& oracle, Plan& plan) {
  const auto asked = std::chrono::steady_clock::now();
  const CompileSummary* compiled = f.compile ? &f.compile() : nullptr;
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  // Only the plan whose call compiled reports it: the next problem's plan finds the space
  // compiled (the answer is kept), and its time is not compile time again.
  if (compiled && took >= compiled->wall_seconds) {
    plan.compile_seconds = took;
    plan.notes.push_back(fmt::format("{}: {}", f.def.name, compiled->line()));
  }
  for (std::size_t i = 0; i < f.variants.size(); ++i) {
    const UserVariant& uv = f.variant_of[i];
    const Grid g = user_grid(f, uv, dims);
    const std::string* failed =
        compiled && !compiled->errors[std::size_t(uv.config)].empty()
            ? &compiled->errors[std::size_t(uv.config)]
            : nullptr;
    if (!failed) {
      plan.candidates.push_back(annotate(f.variants[i], device, g.x, g.y, g.z, oracle));
      continue;
    }
    Candidate c;
    c.variant = &f.variants[i];
    c.origin = "registered";
    c.threads = uv.block.threads();
    c.dynamic_smem = f.variants[i].dynamic_smem;
    c.grid_x = g.x;
    c.grid_y = g.y;
    c.grid_z = g.z;
    c.limiter = "none";
    c.rejection = "compile_failed: " + *failed;
    plan.candidates.push_back(std::move(c));
  }
}

}  // namespace

Plan plan_user_family(const UserFamily& f, const DeviceInfo& device, Shape problem,
                      OccupancyOracle& oracle) {
  const Dims dims = to_dims(f, problem);
  Plan plan;
  plan.family = f.def.name;
  plan.oracle = oracle.description();
  if (f.def.block_rule == BlockRule::kFixed) {
    plan_fixed_blocks(f, device, dims, oracle, plan);
    return plan;
  }
  require_some_block_fits(f, device);
  for (int c = 0; c < int(f.def.configs.size()); ++c) {
    const KernelConfig& config = f.def.configs[std::size_t(c)];
    const std::string& symbol = f.config_symbols[std::size_t(c)];
    // The occupancy API walks every block size; a block of t threads is taken as the rule's
    // block for t (square: side floor(sqrt(t))) when asking the family for its shared memory.
    SmemForThreads smem = [&f, &config](int threads) {
      return f.def.smem(f.block_for_threads(std::max(threads, 1)), config);
    };
    int limit = std::min(device.max_threads_per_block, f.def.max_threads);
    for (int step = 1; limit >= 1; ++step) {
      const int suggested = oracle.max_potential_block_size(symbol, smem, limit);
      if (suggested <= 0) {
        plan.notes.push_back(
            fmt::format("{}: the occupancy API found no runnable block size "
                        "<= {}",
                        symbol, limit));
        break;
      }
      const int threads = f.snap_threads(suggested);
      if (threads < f.def.min_threads) {
        plan.notes.push_back(
            fmt::format("{}: stopped below min_threads {} (next answer: {} "
                        "threads -> {})",
                        symbol, f.def.min_threads, suggested, threads));
        break;
      }
      const Block block = f.block_for_threads(threads);
      std::size_t index = 0;
      while (index < f.variants.size() && f.variants[index].symbol != f.variant_symbol(c, block))
        ++index;
      if (index < f.variants.size()) {
        const Grid g = user_grid(f, f.variant_of[index], dims);
        plan.candidates.push_back(from_walk(
            annotate(f.variants[index], device, g.x, g.y, g.z, oracle), step, suggested, limit));
      }
      limit = threads - 1;
    }
  }
  if (plan.candidates.empty())
    plan.notes.push_back(
        fmt::format("{}: no configuration has a runnable block on {}", f.def.name, device.name));
  return plan;
}

}  // namespace occtune
