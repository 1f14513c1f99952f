#include "autotuner/core/candidate_generation.hpp"

#include <fmt/format.h>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/core/user_plan.hpp"
#include "kernels/applicability.hpp"

namespace occtune {

int snap_to_power_of_four(int threads) {
  if (threads < 1) return 0;
  int p = 1;
  while (p <= threads / 4) p *= 4;  // integer walk: no log() rounding at exact powers
  return p;
}

int integer_sqrt(int n) {
  if (n < 0) return 0;
  int r = 0;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r;
}

namespace {

// What a candidate is before the device is asked anything.
Candidate unannotated(const kernels::VariantInfo& variant, std::int64_t grid_x,
                      std::int64_t grid_y, std::int64_t grid_z) {
  Candidate c;
  c.variant = &variant;
  c.origin = "registered";
  c.threads = variant.threads();
  c.tile = variant.param("tile", variant.param("block"));
  c.dynamic_smem = variant.dynamic_smem;
  c.grid_x = grid_x;
  c.grid_y = grid_y;
  c.grid_z = grid_z;
  return c;
}

}  // namespace

Candidate annotate(const kernels::VariantInfo& variant, const DeviceInfo& device, Shape shape,
                   OccupancyOracle& oracle) {
  const std::int64_t grid_x = (shape.n + variant.tile_n - 1) / variant.tile_n;
  const std::int64_t grid_y = (shape.m + variant.tile_m - 1) / variant.tile_m;
  // Where a variant cannot run at all (kernels/applicability.hpp: the TMA family off sm_90, or
  // on operands TMA cannot address), it is rejected with the rule's reason before any launch.
  // The occupancy API is not asked about a kernel with no code for the device.
  if (std::string why = kernels::arch_violation(variant, device.compute_capability());
      !why.empty()) {
    Candidate c = unannotated(variant, grid_x, grid_y, variant.grid_z);
    c.rejection = std::move(why);
    return c;
  }
  Candidate c = annotate(variant, device, grid_x, grid_y, variant.grid_z, oracle);
  if (std::string why = kernels::shape_violation(variant, shape.m, shape.n, shape.k); !why.empty())
    c.rejection = std::move(why);
  return c;
}

Candidate annotate(const kernels::VariantInfo& variant, const DeviceInfo& device,
                   std::int64_t grid_x, std::int64_t grid_y, std::int64_t grid_z,
                   OccupancyOracle& oracle) {
  Candidate c = unannotated(variant, grid_x, grid_y, grid_z);

  if (c.threads > device.max_threads_per_block) {
    c.rejection = fmt::format("{} threads per block exceed the device's {}", c.threads,
                              device.max_threads_per_block);
  } else if (c.dynamic_smem > device.shared_mem_per_block_optin) {
    c.rejection = fmt::format("{} B of dynamic shared memory exceed the opt-in limit of {} B",
                              c.dynamic_smem, device.shared_mem_per_block_optin);
  } else if (c.grid_x > device.max_grid_x || c.grid_y > device.max_grid_y) {
    c.rejection = fmt::format("grid {}x{} exceeds the device's {}x{}", c.grid_x, c.grid_y,
                              device.max_grid_x, device.max_grid_y);
  }
  auto answer = oracle.active_blocks(variant.symbol, c.threads, c.dynamic_smem);
  c.active_blocks_per_sm = answer.active_blocks_per_sm;
  c.limiter = answer.limiter;
  c.registers = answer.registers;
  const int warps_per_block = (c.threads + device.warp_size - 1) / device.warp_size;
  const int max_warps = device.max_threads_per_sm / device.warp_size;
  c.occupancy = max_warps > 0 ? double(c.active_blocks_per_sm * warps_per_block) / max_warps : 0;
  if (c.active_blocks_per_sm > 0 && device.sm_count > 0)
    c.waves = double(c.grid_blocks()) / double(c.active_blocks_per_sm * device.sm_count);
  if (c.rejection.empty() && c.active_blocks_per_sm == 0)
    c.rejection = fmt::format("occupancy is 0 (limited by {})", c.limiter);
  return c;
}

Candidate from_walk(Candidate c, int step, int suggested, int limit) {
  c.origin = "occupancy-api";
  c.step = step;
  c.suggested_block = suggested;
  c.block_limit = limit;
  return c;
}

Plan plan_family(const kernels::FamilyInfo& family, const DeviceInfo& device, Shape shape,
                 OccupancyOracle& oracle, int min_tile, Layout layout) {
  Plan plan;
  if (const UserFamily* user = find_user_family(family.name))
    return plan_user_family(*user, device, shape, oracle);
  plan.family = family.name;
  plan.oracle = oracle.description();
  if (family.generation_symbol.empty()) {
    for (auto* v : kernels::variants_of(family.name, layout))
      plan.candidates.push_back(annotate(*v, device, shape, oracle));
    return plan;
  }
  if (min_tile <= 0) min_tile = family.default_min_tile;
  // The textbook method: ask for the best block size under `limit`, snap it to a power of four,
  // take its square root as the tile; then lower the limit below the snapped answer and ask
  // again, down to the smallest useful tile.
  int limit = device.max_threads_per_block;
  for (int step = 1; limit >= 1; ++step) {
    const int suggested =
        oracle.max_potential_block_size(family.generation_symbol, family.smem_for_threads, limit);
    if (suggested <= 0) {
      plan.notes.push_back(fmt::format("the occupancy API found no runnable block size <= {}", limit));
      break;
    }
    const int threads = snap_to_power_of_four(suggested);
    const int tile = integer_sqrt(threads);
    if (tile < min_tile) {
      plan.notes.push_back(fmt::format(
          "stopped below the smallest useful tile {}x{} (next answer: {} threads -> tile {})",
          min_tile, min_tile, suggested, tile));
      break;
    }
    auto* variant = kernels::find_tile_variant(family.name, tile, layout);
    if (!variant) {
      plan.notes.push_back(fmt::format("tile {} has no compiled specialisation; skipped", tile));
    } else {
      plan.candidates.push_back(
          from_walk(annotate(*variant, device, shape, oracle), step, suggested, limit));
    }
    limit = threads - 1;
  }
  return plan;
}

}  // namespace occtune
