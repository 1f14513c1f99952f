// Unit tests of the offline occupancy twin (autotuner/core/offline_occupancy): active blocks and
// the limiter checked by hand from the published per-SM limits, the T4's smaller SM, the
// shared-memory opt-in and its boundaries, and max_potential_block_size against the runtime's
// loop on the real manifest kernels. No GPU needed.
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstddef>
#include <string>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune {
namespace {

// Blocks per SM with the given fake attributes: static shared memory 0, no launch bounds,
// one barrier.
OccupancyAnswer blocks(const DeviceInfo& d, int regs, int threads, std::size_t dynamic_smem,
                       int barriers = 1) {
  return OfflineOccupancy::compute(d, regs, 0, INT_MAX, barriers, threads, dynamic_smem);
}

// Theoretical occupancy as resident warps over the SM's warp slots.
double warp_occupancy(const DeviceInfo& d, int threads, int active_blocks) {
  const int warps_per_block = (threads + d.warp_size - 1) / d.warp_size;
  return double(active_blocks * warps_per_block) / double(d.max_threads_per_sm / d.warp_size);
}

std::size_t tiled_smem(int threads) { return 2 * std::size_t(threads) * sizeof(float); }
std::size_t big_smem(int threads) { return 64 * std::size_t(threads); }  // 64 KiB at 1024
std::size_t no_smem(int) { return 0; }

class OfflineOccupancyTest : public ::testing::Test {
 protected:
  DeviceInfo h100 = load_device_profile("h100");
  DeviceInfo t4 = load_device_profile("t4");
};

// H100 (compute capability 9.0): 64 warps, 32 blocks, 64K registers (4 sub-partitions of 16K,
// allocated per warp in units of 256) and 228 KiB of shared memory per SM; 1 KiB of it is
// reserved per block and allocation is in 128-byte units.

TEST_F(OfflineOccupancyTest, FullBlockFillsTheH100) {
  // 1024 threads = 32 warps: warp slots allow 64/32 = 2 blocks. 32 registers x 32 lanes = 1024
  // per warp, 16 warps per sub-partition, 64 per SM: 2 blocks as well. Shared memory
  // 8192 + 1024 reserved = 9216 per block: 233472 / 9216 = 25 blocks. Block slots: 32.
  const auto a = blocks(h100, 32, 1024, 8192);
  EXPECT_EQ(a.active_blocks_per_sm, 2);
  EXPECT_EQ(a.limiter, "warps");  // warps and registers tie; the block size is what binds
  EXPECT_EQ(a.registers, 32);
  EXPECT_DOUBLE_EQ(warp_occupancy(h100, 1024, a.active_blocks_per_sm), 1.0);
}

TEST_F(OfflineOccupancyTest, TinyBlocksRunOutOfBlockSlots) {
  // 16 threads occupy one warp slot: 64 blocks by warps, 64 by registers, 228 by shared memory
  // (1 KiB reserved each), but only 32 block slots. 32 x 16 = 512 threads of 2048 (25%), which
  // is 32 of 64 warp slots (50%) because a half-empty warp still takes a slot.
  const auto a = blocks(h100, 32, 16, 0);
  EXPECT_EQ(a.active_blocks_per_sm, 32);
  EXPECT_EQ(a.limiter, "blocks");
  EXPECT_DOUBLE_EQ(double(16 * a.active_blocks_per_sm) / h100.max_threads_per_sm, 0.25);
  EXPECT_DOUBLE_EQ(warp_occupancy(h100, 16, a.active_blocks_per_sm), 0.5);

  // With 8 KiB of dynamic shared memory each, 9216 bytes per block: 25 fit, fewer than 32.
  const auto b = blocks(h100, 32, 16, 8192);
  EXPECT_EQ(b.active_blocks_per_sm, 25);
  EXPECT_EQ(b.limiter, "shared_memory");
}

TEST_F(OfflineOccupancyTest, SharedMemoryLimited) {
  // 100 KiB dynamic needs the opt-in (> 48 KiB): 102400 + 1024 = 103424 per block, and
  // 233472 / 103424 = 2 blocks. Warps (8 per block) would allow 8, registers 8.
  const auto a = blocks(h100, 32, 256, 100 * 1024);
  EXPECT_EQ(a.active_blocks_per_sm, 2);
  EXPECT_EQ(a.limiter, "shared_memory");
}

TEST_F(OfflineOccupancyTest, SharedMemoryBoundaries) {
  // Exactly 48 KiB needs no opt-in: 49152 + 1024 = 50176 per block, 233472 / 50176 = 4.
  EXPECT_EQ(blocks(h100, 32, 128, 48 * 1024).active_blocks_per_sm, 4);
  // One byte more opts in; rounded to 128 bytes it is 50304 per block, still 4.
  EXPECT_EQ(blocks(h100, 32, 128, 48 * 1024 + 1).active_blocks_per_sm, 4);
  // The opt-in limit itself, 227 KiB, fits once: 232448 + 1024 = the whole 228 KiB.
  const auto max = blocks(h100, 32, 128, 227 * 1024);
  EXPECT_EQ(max.active_blocks_per_sm, 1);
  EXPECT_EQ(max.limiter, "shared_memory");
  // Past it nothing runs, and the limiter says why.
  const auto over = blocks(h100, 32, 128, 227 * 1024 + 1);
  EXPECT_EQ(over.active_blocks_per_sm, 0);
  EXPECT_EQ(over.limiter, "shared_memory");
  const auto absurd = blocks(h100, 32, 128, std::size_t(1) << 40);
  EXPECT_EQ(absurd.active_blocks_per_sm, 0);
  EXPECT_EQ(absurd.limiter, "shared_memory");
}

TEST_F(OfflineOccupancyTest, StaticSharedMemoryCountsToo) {
  // 16 KiB static + 16 KiB dynamic + 1 KiB reserved = 33792 per block: 233472 / 33792 = 6.
  const auto a = OfflineOccupancy::compute(h100, 32, 16 * 1024, INT_MAX, 1, 64, 16 * 1024);
  EXPECT_EQ(a.active_blocks_per_sm, 6);
  EXPECT_EQ(a.limiter, "shared_memory");
  // 8 KiB static + 48 KiB dynamic is past the default 48 KiB, so the kernel must opt in; it then
  // takes 8192 + 49152 + 1024 = 58368 per block: 233472 / 58368 = 4 (as the runtime says for an
  // opted-in kernel on an H100).
  const auto b = OfflineOccupancy::compute(h100, 32, 8 * 1024, INT_MAX, 1, 32, 48 * 1024);
  EXPECT_EQ(b.active_blocks_per_sm, 4);
  EXPECT_EQ(b.limiter, "shared_memory");
  // The opt-in limit counts the static part: 227 KiB - 8 KiB of dynamic fits once, a byte more
  // does not.
  EXPECT_EQ(
      OfflineOccupancy::compute(h100, 32, 8192, INT_MAX, 1, 32, 232448 - 8192).active_blocks_per_sm,
      1);
  EXPECT_EQ(OfflineOccupancy::compute(h100, 32, 8192, INT_MAX, 1, 32, 232448 - 8192 + 1)
                .active_blocks_per_sm,
            0);
}

TEST_F(OfflineOccupancyTest, RegisterLimited) {
  // 255 registers x 32 lanes = 8160, allocated as 8192 per warp: a 16K sub-partition holds 2
  // warps, the SM 8, so one 256-thread block (8 warps) per SM. Warps alone would allow 8.
  const auto a = blocks(h100, 255, 256, 0);
  EXPECT_EQ(a.active_blocks_per_sm, 1);
  EXPECT_EQ(a.limiter, "registers");
  EXPECT_EQ(a.registers, 255);
  // 512 threads at 255 registers need 131072 registers: more than a block may have.
  const auto b = blocks(h100, 255, 512, 0);
  EXPECT_EQ(b.active_blocks_per_sm, 0);
  EXPECT_EQ(b.limiter, "registers");
  // 64 registers: 2048 per warp, 8 warps per sub-partition, 32 per SM; 4 blocks of 256.
  const auto c = blocks(h100, 64, 256, 0);
  EXPECT_EQ(c.active_blocks_per_sm, 4);
  EXPECT_EQ(c.limiter, "registers");
}

TEST_F(OfflineOccupancyTest, BarrierLimitNamedWhenItIsTheSmallest) {
  // Hopper has 2 barriers per block slot, 64 per SM: 16 named barriers per block allow 4
  // blocks, fewer than the 32 block slots (whose bit cuda_occupancy.h also sets).
  const auto a = blocks(h100, 32, 32, 0, 16);
  EXPECT_EQ(a.active_blocks_per_sm, 4);
  EXPECT_EQ(a.limiter, "barriers");
}

TEST_F(OfflineOccupancyTest, BlockLargerThanTheDeviceOrTheFunctionAllows) {
  const auto a = blocks(h100, 32, 1025, 0);
  EXPECT_EQ(a.active_blocks_per_sm, 0);
  EXPECT_EQ(a.limiter, "warps");
  EXPECT_EQ(blocks(h100, 32, 2048, 0).active_blocks_per_sm, 0);
  // Launch bounds of 256 threads (online attributes): a 512-thread block cannot launch.
  const auto b = OfflineOccupancy::compute(h100, 32, 0, 256, 1, 512, 0);
  EXPECT_EQ(b.active_blocks_per_sm, 0);
  EXPECT_EQ(b.limiter, "warps");
  EXPECT_EQ(OfflineOccupancy::compute(h100, 32, 0, 256, 1, 256, 0).active_blocks_per_sm, 8);
}

TEST_F(OfflineOccupancyTest, NonPositiveBlockIsAUsageError) {
  try {
    blocks(h100, 32, 0, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
  }
}

// T4 (compute capability 7.5): half the warp slots (32, i.e. 1024 threads), 16 block slots,
// 64 KiB of shared memory per SM in 256-byte units, nothing reserved per block.

TEST_F(OfflineOccupancyTest, T4HasHalfTheWarpSlots) {
  // The same 1024-thread block that fits twice on an H100 fits once: 32 warps fill the SM.
  const auto a = blocks(t4, 32, 1024, 8192);
  EXPECT_EQ(a.active_blocks_per_sm, 1);
  EXPECT_EQ(a.limiter, "warps");
  EXPECT_DOUBLE_EQ(warp_occupancy(t4, 1024, a.active_blocks_per_sm), 1.0);
}

TEST_F(OfflineOccupancyTest, T4HasSixteenBlockSlots) {
  const auto a = blocks(t4, 32, 16, 0);
  EXPECT_EQ(a.active_blocks_per_sm, 16);
  EXPECT_EQ(a.limiter, "blocks");
}

TEST_F(OfflineOccupancyTest, T4SharedMemory) {
  // 16 KiB per block, no reservation: 65536 / 16384 = 4 (warps would allow 8, registers 16).
  const auto a = blocks(t4, 32, 128, 16 * 1024);
  EXPECT_EQ(a.active_blocks_per_sm, 4);
  EXPECT_EQ(a.limiter, "shared_memory");
  // The opt-in reaches the whole 64 KiB; a byte more cannot run.
  EXPECT_EQ(blocks(t4, 32, 64, 64 * 1024).active_blocks_per_sm, 1);
  const auto over = blocks(t4, 32, 64, 64 * 1024 + 1);
  EXPECT_EQ(over.active_blocks_per_sm, 0);
  EXPECT_EQ(over.limiter, "shared_memory");
}

TEST_F(OfflineOccupancyTest, ProfilesAgreeWithTheCalculatorsBlockSlots) {
  // cuda_occupancy.h takes the block slots per SM from its own table by compute capability, not
  // from the profile; one-warp blocks with few registers and no shared memory hit exactly that
  // limit, so a profile whose max_blocks_per_sm disagreed would be caught here.
  for (auto& name : profile_names()) {
    SCOPED_TRACE(name);
    const DeviceInfo d = load_device_profile(name);
    const auto a = blocks(d, 16, 32, 0);
    EXPECT_EQ(a.active_blocks_per_sm, d.max_blocks_per_sm);
    EXPECT_EQ(a.limiter, "blocks");
    // And a full-size block always fits at least once.
    EXPECT_GE(blocks(d, 32, d.max_threads_per_block, 0).active_blocks_per_sm, 1);
  }
}

TEST_F(OfflineOccupancyTest, UnknownComputeCapabilityIsReported) {
  DeviceInfo future = h100;
  future.cc_major = 42;
  try {
    blocks(future, 32, 256, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("42.0"), std::string::npos) << e.what();
  }
}

// --- the real manifest kernels ----------------------------------------------------------------

TEST_F(OfflineOccupancyTest, MaxPotentialBlockSizeOfTheGenerationKernel) {
  OfflineOccupancy oracle(h100);
  const int block = oracle.max_potential_block_size("TiledDynamic<0>", &tiled_smem, 1024);
  EXPECT_GE(block, 1);
  EXPECT_LE(block, 1024);
  const int limited = oracle.max_potential_block_size("TiledDynamic<0>", &tiled_smem, 255);
  EXPECT_GE(limited, 1);
  EXPECT_LE(limited, 255);
  // Limit 0 means the device's maximum, as in the runtime.
  EXPECT_EQ(oracle.max_potential_block_size("TiledDynamic<0>", &tiled_smem, 0), block);
  // A negative limit leaves the runtime's loop empty.
  EXPECT_EQ(oracle.max_potential_block_size("TiledDynamic<0>", &tiled_smem, -1), 0);

  auto res = kernels::find_kernel_resources("TiledDynamic<0>", 90);
  ASSERT_NE(res.resources, nullptr);
  if (res.exact_arch && res.resources->registers <= 32 && res.resources->static_smem == 0) {
    // With at most 32 registers nothing but warps binds: 1024 threads (8 KiB) fit twice and
    // fill the SM, so the walk down from 1024 stops at once. From 255: 255 x 8 = 2040
    // threads, 224 x 9 = 2016, 192 x 10 = 1920, 160 x 12 = 1920, then 128 x 16 fills the SM.
    EXPECT_EQ(block, 1024);
    EXPECT_EQ(limited, 128);
  }
}

TEST_F(OfflineOccupancyTest, ActiveBlocksOfAManifestKernel) {
  OfflineOccupancy oracle(h100);
  const auto a = oracle.active_blocks("TiledDynamic<16>", 256, tiled_smem(256));
  auto res = kernels::find_kernel_resources("TiledDynamic<16>", 90);
  ASSERT_NE(res.resources, nullptr);
  EXPECT_EQ(a.registers, res.resources->registers);
  EXPECT_GT(a.active_blocks_per_sm, 0);
  EXPECT_LE(a.active_blocks_per_sm, 8);  // 8 warps per block, 64 warp slots
  EXPECT_FALSE(a.limiter.empty());
  EXPECT_EQ(oracle.used_nearest_arch(), !res.exact_arch);
}

TEST_F(OfflineOccupancyTest, UnknownSymbolIsARuntimeError) {
  OfflineOccupancy oracle(h100);
  try {
    oracle.active_blocks("NoSuchKernel<7>", 256, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("no build-time resources for kernel NoSuchKernel<7>"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(oracle.max_potential_block_size("NoSuchKernel<7>", &tiled_smem, 1024), Error);
}

TEST_F(OfflineOccupancyTest, Description) {
  OfflineOccupancy oracle(h100);
  const std::string text = oracle.description();
  EXPECT_EQ(text.rfind("cuda_occupancy.h on profile:h100 (registers from sm_", 0), 0u) << text;
  if (kernels::find_kernel_resources("TiledDynamic<0>", 90).exact_arch) {
    EXPECT_EQ(text, "cuda_occupancy.h on profile:h100 (registers from sm_90 build)");
  }
}

TEST_F(OfflineOccupancyTest, NearestArchitectureIsFlagged) {
  // An sm_86 board: never compiled for, so its registers come from another architecture.
  DeviceInfo ga102 = load_device_profile("rtx4090");
  ga102.cc_minor = 6;
  ga102.source = "profile:ga102";
  OfflineOccupancy oracle(ga102);
  EXPECT_FALSE(oracle.used_nearest_arch());
  oracle.active_blocks("TiledDynamic<16>", 256, tiled_smem(256));
  const auto res = kernels::find_kernel_resources("TiledDynamic<16>", 86);
  EXPECT_EQ(oracle.used_nearest_arch(), !res.exact_arch);
  if (!res.exact_arch) {
    EXPECT_NE(oracle.description().find("nearest to sm_86"), std::string::npos)
        << oracle.description();
  }
}

// The twin's block-size walk is a transcription of the runtime's
// cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags. cuda_occupancy.h ships the same walk
// (cudaOccMaxPotentialOccupancyBlockSizeVariableSMem), with the limit taken from the function
// attributes; on every shipped profile, for every limit and each shared-memory shape, the two
// must agree.
int header_walk(const DeviceInfo& d, const kernels::KernelResources& res, SmemForThreads smem,
                int limit) {
  if (limit < 0) return 0;
  cudaOccDeviceProp prop;
  prop.computeMajor = d.cc_major;
  prop.computeMinor = d.cc_minor;
  prop.maxThreadsPerBlock = d.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  prop.regsPerBlock = d.regs_per_block;
  prop.regsPerMultiprocessor = d.regs_per_sm;
  prop.warpSize = d.warp_size;
  prop.sharedMemPerBlock = d.shared_mem_per_block;
  prop.sharedMemPerMultiprocessor = d.shared_mem_per_sm;
  prop.numSms = d.sm_count;
  prop.sharedMemPerBlockOptin = d.shared_mem_per_block_optin;
  prop.reservedSharedMemPerBlock = d.reserved_shared_mem_per_block;
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = limit == 0 ? INT_MAX : limit;
  attr.numRegs = res.registers;
  attr.sharedSizeBytes = std::size_t(res.static_smem);
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  // One set of attributes for every block size: the kernel opted in to the whole opt-in limit.
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes = d.shared_mem_per_block_optin - std::size_t(res.static_smem);
  attr.numBlockBarriers = res.barriers > 1 ? res.barriers : 1;
  cudaOccDeviceState state;
  int min_grid = 0, block = 0;
  EXPECT_EQ(cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&min_grid, &block, &prop, &attr,
                                                              &state, smem),
            CUDA_OCC_SUCCESS);
  return block;
}

TEST_F(OfflineOccupancyTest, BlockSizeWalkEqualsCudaOccupancyHeader) {
  for (const char* symbol : {"TiledDynamic<0>", "TiledDynamic<16>", "Naive<16>"}) {
    for (auto& name : profile_names()) {
      const DeviceInfo d = load_device_profile(name);
      auto res = kernels::find_kernel_resources(symbol, d.compute_capability());
      ASSERT_NE(res.resources, nullptr) << symbol;
      OfflineOccupancy oracle(d);
      for (SmemForThreads smem : {&tiled_smem, &big_smem, &no_smem}) {
        for (int limit : {-5,  0,   1,   16,  31,  32,   33,   64,   100,  127,
                          255, 256, 257, 500, 768, 1000, 1023, 1024, 1025, 4096}) {
          SCOPED_TRACE(std::string(symbol) + " on " + name + ", limit " + std::to_string(limit));
          EXPECT_EQ(oracle.max_potential_block_size(symbol, smem, limit),
                    header_walk(d, *res.resources, smem, limit));
        }
      }
    }
  }
}

}  // namespace
}  // namespace occtune
