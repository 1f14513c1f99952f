// Test-only kernels with planted faults (issue #5): they prove that a broken candidate never
// takes the tuner down. Registered as the family "planted_faults" only when the environment has
// OCCTUNE_TEST_KERNELS=1, so normal tuning never sees them (docs/architecture.md, "Worker
// isolation"). Each variant is a naive GEMM (16x16 block, one output per thread) with one fault.
#include <cstdlib>
#include <string>
#include <string_view>

#include "kernels/gemm_family.cuh"

namespace occtune::kernels {
namespace {

// The `fault` parameter, in registration (= candidate) order: the crashing variants come before
// the endless loop, so an in-process run (--no-isolation, no timeout) stops at the crash instead
// of hanging.
constexpr int kControl = 0;         // correct: the one that must win
constexpr int kWrongResult = 1;     // every output scaled by 1.001: wrong_result
constexpr int kTooMuchSmem = 2;     // asks for 512 KiB of dynamic shared memory: exceeds_limits
constexpr int kLaunchRefused = 3;   // launched with a 16x16x65 block: invalid_config at launch
constexpr int kIllegalAddress = 4;  // writes 4 TiB past C: crashed (sticky illegal address)
constexpr int kTrap = 5;            // __trap(): crashed (sticky)
constexpr int kEndlessLoop = 6;     // spins on memory nobody writes: timeout
constexpr int kBlock = 16;

}  // namespace

// Outside the anonymous namespace: the kernel manifest names it "PlantedFault<N>".
template <int FAULT>
struct PlantedFault {
  static constexpr int kMaxThreads = kBlock * kBlock;
  __device__ static void run(const GemmArgs& p, unsigned char*) {
    const bool first = blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0;
    if constexpr (FAULT == kIllegalAddress) {
      if (first) p.c[size_t(1) << 40] = 1.0f;
    }
    if constexpr (FAULT == kTrap) {
      if (first) __trap();
    }
    if constexpr (FAULT == kEndlessLoop) {
      // A holds values in [-1, 1): the volatile read keeps the loop alive and never exits it.
      if (first)
        while (*reinterpret_cast<const volatile float*>(p.a) != 1e30f) {
        }
    }
    const int row = int(blockIdx.y) * kBlock + int(threadIdx.y);
    const int col = int(blockIdx.x) * kBlock + int(threadIdx.x);
    if (row >= p.m || col >= p.n) return;
    float acc = 0.0f;
    for (int i = 0; i < p.k; ++i)
      acc = fmaf(p.a[size_t(row) * p.lda + i], p.b[size_t(i) * p.ldb + col], acc);
    if constexpr (FAULT == kWrongResult) acc *= 1.001f;
    p.c[size_t(row) * p.ldc + col] = acc;
  }
};

namespace {

// 16 x 16 x 65 threads is more than any GPU's block limit: refused at launch
// (cudaErrorInvalidConfiguration), which leaves the context usable.
cudaError_t launch_refused(const GemmArgs& args, dim3 grid, dim3 block, size_t smem,
                           cudaStream_t stream) {
  gemm_entry<PlantedFault<kLaunchRefused>>
      <<<grid, dim3(block.x, block.y, 65), smem, stream>>>(args);
  return cudaGetLastError();
}

template <int FAULT>
GemmConfig fault(const char* symbol, size_t dynamic_smem = 0,
                 LaunchFn launch = &launch_entry<PlantedFault<FAULT>>) {
  GemmConfig g = gemm_config<PlantedFault<FAULT>>(symbol, {{"fault", FAULT}}, {kBlock, kBlock},
                                                  launch);
  g.tile_m = g.tile_n = kBlock;
  g.dynamic_smem = dynamic_smem;
  return g;
}

}  // namespace

bool test_kernels_enabled() {
  const char* v = std::getenv("OCCTUNE_TEST_KERNELS");
  return v && std::string_view(v) == "1";
}

BuiltinFamily planted_faults_builtin() {
  return gemm_family("planted_faults",
                     "TEST ONLY (OCCTUNE_TEST_KERNELS=1): fault=0 correct, 1 wrong result, 2 too "
                     "much shared memory, 3 refused launch, 4 illegal address, 5 trap, 6 endless "
                     "loop",
                     BlockRule::kFixed,
                     {fault<kControl>("PlantedFault<0>"), fault<kWrongResult>("PlantedFault<1>"),
                      fault<kTooMuchSmem>("PlantedFault<2>", size_t(512) << 10),
                      fault<kLaunchRefused>("PlantedFault<3>", 0, &launch_refused),
                      fault<kIllegalAddress>("PlantedFault<4>"), fault<kTrap>("PlantedFault<5>"),
                      fault<kEndlessLoop>("PlantedFault<6>")});
}

}  // namespace occtune::kernels
