// A 2D 5-point stencil tuned from source by occtune (docs/source-kernels.md): the block is
// BX x BY threads (template arguments, from the name expression), each thread computes UNROLL
// outputs down a column (-DUNROLL), and the input tile with its halo sits in dynamic shared
// memory with PAD extra floats per row (-DPAD; 1 shifts each row by one bank).
// stencil2d_reference is the check.
#include "stencil_coefficients.cuh"

#ifndef UNROLL
#ifdef OCCTUNE_REFERENCE
#define UNROLL 1
#define PAD 0
#else
#error "UNROLL must be defined (-DUNROLL=...)"
#endif
#endif

template <int BX, int BY>
__global__ void stencil2d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  extern __shared__ float tile[];
  constexpr int R = STENCIL_RADIUS;
  constexpr int TW = BX + 2 * R + PAD;  // the row stride; the last PAD columns stay unused
  constexpr int TH = BY * UNROLL + 2 * R;
  const int x0 = blockIdx.x * BX;
  const int y0 = blockIdx.y * BY * UNROLL;
  // The tile and its halo, zero outside the grid.
  constexpr int CW = BX + 2 * R;  // columns holding data
  for (int i = threadIdx.y * BX + threadIdx.x; i < CW * TH; i += BX * BY) {
    const int gx = x0 + i % CW - R;
    const int gy = y0 + i / CW - R;
    tile[(i / CW) * TW + i % CW] =
        (gx >= 0 && gx < nx && gy >= 0 && gy < ny) ? in[gy * nx + gx] : 0.0f;
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int ly = threadIdx.y + u * BY;
    const int y = y0 + ly;
    if (x < nx && y < ny) {
      const float* t = tile + (ly + R) * TW + threadIdx.x + R;
      out[y * nx + x] = STENCIL_CENTRE * t[0] + STENCIL_SIDE * (t[-1] + t[1] + t[-TW] + t[TW]);
    }
  }
}

// One output per thread straight from global memory: slow and obviously right.
__global__ void stencil2d_reference(const float* in, float* out, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  auto at = [&](int gx, int gy) {
    return (gx >= 0 && gx < nx && gy >= 0 && gy < ny) ? in[gy * nx + gx] : 0.0f;
  };
  out[y * nx + x] = STENCIL_CENTRE * at(x, y) +
                    STENCIL_SIDE * (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1));
}
