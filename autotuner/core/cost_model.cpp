// The cost model of issue #18 (docs/architecture.md "Issue #18: pruning with a cost model"):
// a roofline over FMA work per SM, DRAM traffic and L2 panel traffic, with wave quantization,
// edge waste, lane and latency terms, the element-load fallback and a per-family efficiency.
#include "autotuner/core/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include "autotuner/core/device_peaks.hpp"

namespace occtune {
namespace {

// Fitted on the training shapes of tests/unit/data/h100_exhaustive_candidates.txt (1024^3,
// 2048^3, 3001x1000x4097): the median over those shapes of the modelled time of the family's
// fastest candidate (efficiency 1) over its measured time. stream-K and skinny have no
// per-candidate H100 data: stream-K shares the pipelined main loop. skinny is fitted on its
// compute term at 4096^3 on the H200, where that term must explain the time (its DRAM term is
// 1.6x short of it; tests/unit/test_cost_model.cpp, SkinnyEfficiencyIsFittedWhereItsComputeBinds):
// it only counts where skinny's FMAs, not its one read of the large operand, bound it.
// tma (issue #18) is not fitted either: regblocked's figure times the lab's ratio of the two at
// 4096^3 (0.982x / 0.956x cuBLAS, docs/PERFORMANCE.md "tma"), rather than the unknown
// family's 1, which would make every other family's candidates look further from the best.
constexpr std::array<std::pair<std::string_view, double>, 10> kFamilyEfficiency = {{
    {"tiled_dynamic", 1.047},
    {"tiled_static", 1.059},
    {"naive", 0.803},
    {"coarsened", 0.588},
    {"regblocked", 0.762},
    {"pipelined", 0.743},
    {"splitk", 0.633},
    {"streamk", 0.743},
    {"tma", 0.783},
    {"skinny", 0.353},
}};

// Warps an SM needs resident before one block's issue rate stops being the limit (4 schedulers,
// 2 warps each), and the independent FMAs (warps x outputs per thread) that hide FMA latency.
constexpr double kWarpsToFill = 8;
constexpr double kIndependentFmas = 32;
// L2 delivers panels at this multiple of DRAM bandwidth.
constexpr double kL2OverDram = 2.5;
// Element loads in place of float4 (3001x1000x4097 on the H100: 0.71-0.94 by family).
constexpr double kElementLoadRate = 0.8;
// One launch, and the reduction launch of a split-K candidate.
constexpr double kLaunchMs = 0.004;
// Stream-K's fixup: the CTAs sharing a tile hand their partial tiles on one after another
// through L2, at about this many bytes per SM clock (128x128x32768 on the H100: one tile
// shared by 132 CTAs takes 0.13 ms).
constexpr double kFixupBytesPerClock = 64;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

double family_efficiency(const std::string& family) {
  for (auto& [name, e] : kFamilyEfficiency)
    if (name == family) return e;
  return 1.0;
}

bool uses_vector_loads(const std::string& family) {
  for (std::string_view f : {"regblocked", "pipelined", "splitk", "streamk", "skinny"})
    if (f == family) return true;
  return false;
}

bool dense_leading_dims_misaligned(Shape shape, Layout layout) {
  // Dense operands: A's leading dimension is K (M when stored transposed), B's N (K when
  // transposed).
  const std::int64_t lda = transposes_a(layout) ? shape.m : shape.k;
  const std::int64_t ldb = transposes_b(layout) ? shape.k : shape.n;
  return lda % 4 != 0 || ldb % 4 != 0;
}

bool repacking_copies(Shape shape, Layout layout) {
  return shape.k % 4 != 0 || dense_leading_dims_misaligned(shape, layout);
}

std::optional<CostInput> cost_input(const Candidate& c) {
  if (!c.variant || c.variant->tile_m <= 0 || c.variant->tile_n <= 0 || c.threads <= 0)
    return std::nullopt;
  CostInput in;
  in.family = c.variant->family;
  // A repacked variant runs its inner variant's kernel on the copies: priced as that family,
  // which the registry records (VariantInfo::kernel_family), plus the copy.
  if (in.family == "repacked") {
    in.repacked = true;
    if (!c.variant->kernel_family.empty()) in.family = c.variant->kernel_family;
  }
  in.stream_k = in.family == "streamk" || c.variant->param("sk") > 0;
  in.tile_m = c.variant->tile_m;
  in.tile_n = c.variant->tile_n;
  in.splits = int(std::max<std::int64_t>(1, c.grid_z));
  in.threads = c.threads;
  in.active_blocks_per_sm = c.active_blocks_per_sm;
  in.grid_blocks = c.grid_blocks();
  return in;
}

CostEstimate estimate_cost(const CostInput& in, const DeviceInfo& device, Shape shape,
                           Layout layout, double efficiency) {
  CostEstimate e;
  const double sms = std::max(1, device.sm_count);
  const double clock_hz = double(device.clock_khz) * 1e3;
  const int lanes = fp32_lanes_per_sm(device.cc_major, device.cc_minor);
  const double bandwidth = dram_bandwidth(device);
  const bool stream_k = in.stream_k;

  const std::int64_t tiles_m = ceil_div(shape.m, in.tile_m), tiles_n = ceil_div(shape.n, in.tile_n);
  const std::int64_t splits = std::max(1, in.splits);
  const std::int64_t k_slab = ceil_div(shape.k, splits);
  const std::int64_t blocks = tiles_m * tiles_n * splits;
  e.edge_efficiency = double(shape.m) * double(shape.n) /
                      (double(tiles_m * in.tile_m) * double(tiles_n * in.tile_n));
  const double block_fmas = double(in.tile_m) * in.tile_n * double(k_slab);

  // Blocks per SM over the whole launch: the busiest SM sets the time. Stream-K spreads the
  // iterations evenly over its persistent grid, so it has no quantization.
  const double per_sm_blocks = stream_k ? double(blocks) / sms : double(ceil_div(blocks, std::int64_t(sms)));
  const int slots = std::max(1, in.active_blocks_per_sm);
  e.wave_efficiency =
      stream_k ? 1.0
               : double(blocks) / (double(ceil_div(blocks, std::int64_t(sms) * slots)) * sms * slots);
  const double launched_per_sm =
      stream_k && in.grid_blocks > 0 ? double(in.grid_blocks) / sms : std::ceil(per_sm_blocks);
  const double resident = std::max(1.0, std::min<double>(slots, launched_per_sm));

  // The rate of one SM: lanes a block's warps fill, shared-memory operand traffic (a thread
  // with r outputs reads about 2 / sqrt(r) operands per FMA at 32 words per clock), and the
  // warps and independent FMAs that hide latency.
  const int warps_per_block = (in.threads + 31) / 32;
  const double lane_share = double(in.threads) / (warps_per_block * 32.0);
  const double outputs_per_thread = double(in.tile_m) * in.tile_n / in.threads;
  // skinny streams the large operand from DRAM once, a few rows or columns per thread, with the
  // small one staged in shared memory: a streaming kernel, bound by DRAM, which these shares
  // (made for tiles) do not describe; it is left optimistic (never pruned for them).
  const bool streaming = in.family == "skinny";
  const double operand_share =
      streaming ? 1.0 : std::min(1.0, 16.0 * std::sqrt(outputs_per_thread) / lanes);
  const double warps = resident * warps_per_block;
  const double latency_share =
      streaming ? 1.0
                : std::min(1.0, warps / kWarpsToFill) *
                      std::min(1.0, warps * outputs_per_thread / kIndependentFmas);
  double rate = lanes * clock_hz * lane_share * operand_share * latency_share *
                (efficiency > 0 ? efficiency : family_efficiency(in.family));
  e.element_loads = dense_leading_dims_misaligned(shape, layout) && !in.repacked;
  if (e.element_loads && uses_vector_loads(in.family)) rate *= kElementLoadRate;
  e.compute_ms = per_sm_blocks * block_fmas / rate * 1e3;
  // Stream-K (hybrid) runs whole waves data-parallel and spreads the last partial wave's tiles
  // over all SMs: each such tile is shared by about SMs / tiles CTAs whose partials are fixed
  // up in turn.
  if (stream_k) {
    const std::int64_t spread = blocks % std::int64_t(sms);
    if (spread > 0) {
      const double sharing = std::ceil(sms / double(spread));
      e.compute_ms += sharing * double(in.tile_m) * in.tile_n * 8.0 /
                      (kFixupBytesPerClock * clock_hz) * 1e3;
    }
  }

  const double m = double(shape.m), n = double(shape.n), k = double(shape.k);
  const double slices = splits > 1 ? 2.0 * double(splits) * m * n : 0.0;
  double operands = m * k + k * n;
  // skinny reads the large operand again for every S rows (or columns) of the small dimension
  // (kernels/skinny.cuh): the side whose tile is the narrower is the small one. An operand
  // that every tile reads but that fits in half the L2 (the ring for N <= 16 re-reads B, K x
  // N, once per 16 rows) comes from DRAM once.
  if (streaming) {
    const double l2_floats = double(device.l2_bytes) / 8.0;
    const auto reread = [&](double floats, std::int64_t tiles) {
      return floats <= l2_floats ? floats : double(tiles) * floats;
    };
    operands = in.tile_m <= in.tile_n ? reread(k * n, tiles_m) + m * k
                                      : reread(m * k, tiles_n) + k * n;
  }
  e.dram_ms = bandwidth > 0 ? 4.0 * (operands + m * n + slices) / bandwidth * 1e3 : 0.0;
  const double panels = double(blocks) * double(in.tile_m + in.tile_n) * double(k_slab) * 4.0;
  e.l2_ms = bandwidth > 0 ? panels / (kL2OverDram * bandwidth) * 1e3 : 0.0;

  e.ms = std::max({e.compute_ms, e.dram_ms, e.l2_ms}) + kLaunchMs * (splits > 1 ? 2 : 1);
  // The repack reads and writes both operands once more, in a launch of its own.
  if (in.repacked && repacking_copies(shape, layout) && bandwidth > 0)
    e.ms += 8.0 * (m * k + k * n) / bandwidth * 1e3 + kLaunchMs;
  return e;
}

}  // namespace occtune
