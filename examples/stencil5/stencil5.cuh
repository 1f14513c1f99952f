// A 2D 5-point stencil with a shared-memory halo, registered as an occtune kernel family:
//   out[y][x] = 0.5 in[y][x] + 0.125 (in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1]),
// with zeros outside the grid. A block of bx x by threads computes bx x (by * rows) points and
// stages them with their one-point halo in (bx + 2)(by * rows + 2) floats of dynamic shared
// memory; `rows` (points per thread along y) is the tuned parameter, the block comes from the
// occupancy API. Shared by the tuning harness (tuner.cu) and the application (app.cu).
#pragma once

#include <occtune/kernel.hpp>
#include <occtune/launch.cuh>

#include <cstddef>
#include <vector>

namespace stencil5 {

template <int ROWS>
__global__ void stencil5_kernel(const float* __restrict__ in, float* __restrict__ out, int nx,
                                int ny) {
  extern __shared__ float tile[];
  const int bx = blockDim.x, by = blockDim.y;
  const int tw = bx + 2, th = by * ROWS + 2;
  const int x0 = int(blockIdx.x) * bx - 1, y0 = int(blockIdx.y) * by * ROWS - 1;
  for (int i = threadIdx.y * bx + threadIdx.x; i < tw * th; i += bx * by) {
    const int gx = x0 + i % tw, gy = y0 + i / tw;
    tile[i] = gx >= 0 && gx < nx && gy >= 0 && gy < ny ? in[std::size_t(gy) * nx + gx] : 0.0f;
  }
  __syncthreads();
  const int gx = int(blockIdx.x) * bx + threadIdx.x;
  for (int r = 0; r < ROWS; ++r) {
    const int ly = threadIdx.y + r * by;
    const int gy = int(blockIdx.y) * by * ROWS + ly;
    if (gx < nx && gy < ny) {
      const int c = (ly + 1) * tw + threadIdx.x + 1;
      out[std::size_t(gy) * nx + gx] =
          0.5f * tile[c] + 0.125f * (tile[c - tw] + tile[c + tw] + tile[c - 1] + tile[c + 1]);
    }
  }
}

// The same arithmetic on the host, in double (the reference).
inline void reference(int nx, int ny, const std::vector<float>& in, std::vector<float>& out) {
  auto at = [&](int x, int y) {
    return x >= 0 && x < nx && y >= 0 && y < ny ? double(in[std::size_t(y) * nx + x]) : 0.0;
  };
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
      out[std::size_t(y) * nx + x] = float(
          0.5 * at(x, y) + 0.125 * (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y)));
}

inline std::int64_t rows_of(const occtune::KernelConfig& c) { return c.param("rows"); }

inline occtune::KernelFamily family() {
  occtune::KernelFamily f;
  f.name = "stencil5";
  f.version = "1";  // change it whenever the kernel changes: old results become misses
  f.description = "2D 5-point stencil, shared-memory halo";
  f.dims = {"nx", "ny"};
  // One configuration per instantiation. No registers declared: `plan --profile` reads them
  // from this program's compiled code for the profile's architecture (on a GPU the runtime is
  // asked).
  f.configs = {{{{"rows", 1}}, occtune::kernel_function(&stencil5_kernel<1>)},
               {{{"rows", 2}}, occtune::kernel_function(&stencil5_kernel<2>)},
               {{{"rows", 4}}, occtune::kernel_function(&stencil5_kernel<4>)}};
  f.block_rule = occtune::BlockRule::kSquare;
  f.min_threads = 64;  // 8x8: smaller blocks spend most of their tile on the halo
  f.smem = [](occtune::Block b, const occtune::KernelConfig& c) {
    return std::size_t(b.x + 2) * std::size_t(b.y * rows_of(c) + 2) * sizeof(float);
  };
  f.grid = [](const occtune::Dims& p, const occtune::KernelConfig& c, occtune::Block b) {
    const std::int64_t rows = b.y * rows_of(c);
    return occtune::Grid{(p["nx"] + b.x - 1) / b.x, (p["ny"] + rows - 1) / rows, 1};
  };
  f.buffers = [](const occtune::Dims& p) {
    const auto n = std::size_t(p["nx"] * p["ny"]);
    return std::vector<occtune::Buffer>{{"in", n, occtune::Buffer::Role::kInput},
                                        {"out", n, occtune::Buffer::Role::kOutput}};
  };
  f.launch = [](const occtune::LaunchArgs& a) {
    return occtune::launch_kernel(a, static_cast<const float*>(a.buffers[0]), a.buffers[1],
                                  int((*a.problem)["nx"]), int((*a.problem)["ny"]));
  };
  f.reference = [](const occtune::Dims& p, std::vector<std::vector<float>>& host) {
    reference(int(p["nx"]), int(p["ny"]), host[0], host[1]);
  };
  f.compare = {occtune::Comparison::Norm::kRelativeFrobenius, 1e-6};
  // The work measure: a stencil is bound by memory, so its rate is bytes. Each point is read
  // once and written once; the halo's re-reads are the configuration's overhead, not work.
  f.bytes = [](const occtune::Dims& p) {
    return 2.0 * double(p["nx"]) * double(p["ny"]) * sizeof(float);
  };
  f.cuda = occtune::cuda_hooks();
  return f;
}

}  // namespace stencil5
