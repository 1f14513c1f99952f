// plan_user_family (autotuner/core/user_plan.hpp).
#include "autotuner/core/user_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace

Plan plan_user_family(const UserFamily& f, const DeviceInfo& device, Shape problem,
                      OccupancyOracle& oracle) {
  require_some_block_fits(f, device);
  const Dims dims = to_dims(f, problem);
  Plan plan;
  plan.family = f.def.name;
  plan.oracle = oracle.description();
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
