// Issue #18's cost model: an estimate of a GEMM candidate's time from what is known before it
// runs (tile, threads, occupancy answer, device peaks, shape, layout), used to prune the default
// strategy's candidates before measuring. Calibrated on H100 measurements (docs/architecture.md
// "Issue #18: pruning with a cost model"); pure and CPU-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/layout.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune {

// The geometry the model reads; from a Candidate (cost_input) or a fixture of measurements.
struct CostInput {
  std::string family;
  int tile_m = 0;  // rows and columns of C one block computes; 0: unknown geometry
  int tile_n = 0;
  int splits = 1;  // K slices (split-K)
  int threads = 0;
  int active_blocks_per_sm = 0;
  std::int64_t grid_blocks = 0;  // blocks launched (stream-K: its persistent grid)
  // A repacked variant (kernels/repacked.cuh): its inner variant's family, whose tile and
  // efficiency it has; it pays a copy of the misaligned operands and never the element loads.
  bool repacked = false;
  // Its iterations shared out over a persistent grid (the streamk family, tma's sk 1 and 2):
  // no wave quantization, a fix-up of the split tiles instead.
  bool stream_k = false;
};
// Whether A's or B's leading dimension, the operands stored dense in `layout`, is not a multiple
// of 4: the float4 paths then fall back to element loads.
bool dense_leading_dims_misaligned(Shape shape, Layout layout);
// Whether a repacked variant copies anything on this shape: only when K or a leading dimension
// of the dense operands is not a multiple of 4; otherwise it is its inner variant again.
bool repacking_copies(Shape shape, Layout layout);
// Empty when the candidate says nothing of its tile (a user or source family's variant).
std::optional<CostInput> cost_input(const Candidate& c);

// The estimate and the terms it came from, so a table or a test can say why.
struct CostEstimate {
  double ms = 0;
  double compute_ms = 0;  // FMA work per SM at the rate the tile, lanes and warps allow
  double dram_ms = 0;     // A, B, C once, plus split-K slices written and read back
  double l2_ms = 0;       // every block's A and B panels through L2
  double wave_efficiency = 1;  // blocks / (SM slots x waves)
  double edge_efficiency = 1;  // M x N / the padded tiles' area
  bool element_loads = false;  // a leading dimension not a multiple of 4: no float4 loads
};

// Per-family efficiency: the fraction of the modelled rate the family's best candidate reaches,
// fitted on the H100 training shapes. Unknown families get 1 (optimistic: never pruned for it).
double family_efficiency(const std::string& family);
// The families whose loads fall back to elements when a leading dimension is not a multiple of 4.
bool uses_vector_loads(const std::string& family);

// efficiency: the family factor to apply; 0 = family_efficiency(in.family) (a fit passes 1).
CostEstimate estimate_cost(const CostInput& in, const DeviceInfo& device, Shape shape,
                           Layout layout = Layout::kNN, double efficiency = 0);

}  // namespace occtune
