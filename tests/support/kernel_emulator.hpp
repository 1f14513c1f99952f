// A host emulator of CUDA thread blocks for the unit tests: every thread of a block runs the
// variant's `run` as a cooperative fiber (ucontext) that yields at __syncthreads(), so kernels
// are checked on a machine with no GPU. It detects what index math alone would not show:
// barrier divergence, misaligned vector accesses, cp.async misuse (copies land as late as the
// wait allows, or at once), races (results must not depend on the order threads run in), and,
// with GuardedBuffer, reads or writes past an allocation (a fault) or into padding (NaN), and
// cp.async reads of its mapping's slack outside the floats (before them, or short of the guard).
// Include it before any kernel header: it defines the CUDA built-ins the kernels use.
#pragma once

#include <cuda_runtime.h>  // dim3, uint3, float4 and their host helpers
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace occtune::emu {

enum class Order { kForward, kReverse, kShuffled };  // how threads are resumed each round
enum class CopyTiming { kEager, kLazy };             // when an async copy lands

struct AsyncCopy {
  float* dst;
  const float* src;
  int bytes;
  int src_bytes;
};

struct Fiber {
  ucontext_t context{};
  std::unique_ptr<char[]> stack;
  uint3 thread_idx{};
  bool done = false;
  long barriers = 0;
  float exchange[2] = {};                      // shuffle values, by the barrier count's parity
  std::vector<std::vector<AsyncCopy>> groups;  // committed, oldest first
  std::vector<AsyncCopy> open;                 // issued since the last commit
};

struct State {
  ucontext_t scheduler{};
  std::vector<Fiber> fibers;
  Fiber* current = nullptr;
  uint3 block_idx{};
  dim3 block_dim, grid_dim;
  CopyTiming timing = CopyTiming::kEager;
  std::function<void()> body;
  std::string error;  // the first misuse seen; empty when none
  long switches = 0;
};

inline State& state() {
  static State s;
  return s;
}

inline void fail(const std::string& what) {
  if (state().error.empty()) state().error = what;
}

inline const uint3& thread_idx() { return state().current->thread_idx; }
inline const uint3& block_idx() { return state().block_idx; }
inline const dim3& block_dim() { return state().block_dim; }
inline const dim3& grid_dim() { return state().grid_dim; }

inline void syncthreads() {
  auto& s = state();
  Fiber* self = s.current;
  ++self->barriers;
  ++s.switches;
  swapcontext(&self->context, &s.scheduler);
}

// A warp shuffle as a block-wide exchange: every thread leaves its value and waits at a
// barrier, then reads lane `src` of its own warp. So a kernel must shuffle the same number of
// times in every warp of the block (the barrier check says so otherwise), which is stricter
// than the device. Values alternate between two slots: a thread can be at most one barrier
// ahead of one still reading.
inline float shuffle(float v, int src) {
  auto& s = state();
  Fiber* self = s.current;
  const int slot = int(self->barriers & 1);
  self->exchange[slot] = v;
  syncthreads();
  const std::size_t me = std::size_t(self - s.fibers.data());
  return s.fibers[me / 32 * 32 + std::size_t(src & 31)].exchange[slot];
}

inline void check_aligned(const void* p, int bytes) {
  if (reinterpret_cast<std::uintptr_t>(p) % std::uintptr_t(bytes) != 0)
    fail("misaligned " + std::to_string(bytes) + "-byte access at " +
         std::to_string(reinterpret_cast<std::uintptr_t>(p)));
}

// The slack of every live GuardedBuffer's mapping outside its floats (before them, and the few
// bytes between their end and the guard page): no fault there, so the copies check it.
struct Slack {
  const char* begin;
  const char* end;
};
inline std::vector<Slack>& slack() {
  static std::vector<Slack> s;
  return s;
}

inline void check_readable(const float* src, int src_bytes) {
  const char* first = reinterpret_cast<const char*>(src);
  for (const Slack& s : slack())
    if (first < s.end && first + src_bytes > s.begin)
      fail("cp.async reads " + std::to_string(src_bytes) + " bytes outside an allocation at " +
           std::to_string(reinterpret_cast<std::uintptr_t>(src)));
}

inline void land(const AsyncCopy& c) {
  for (int i = 0; i < c.bytes / 4; ++i) c.dst[i] = i * 4 < c.src_bytes ? c.src[i] : 0.0f;
}

inline void async_copy(float* dst, const float* src, int bytes, int src_bytes) {
  check_aligned(dst, bytes);
  check_aligned(src, bytes);
  if (src_bytes < 0 || src_bytes > bytes || src_bytes % 4 != 0)
    fail("cp.async src-size " + std::to_string(src_bytes) + " for a " + std::to_string(bytes) +
         "-byte copy");
  // compute-sanitizer's memcheck counts a partial copy's whole size as read: so does this.
  if (src_bytes > 0) check_readable(src, bytes);
  const AsyncCopy c{dst, src, bytes, src_bytes};
  if (state().timing == CopyTiming::kEager)
    land(c);
  else
    state().current->open.push_back(c);
}

inline void commit() {
  Fiber* f = state().current;
  f->groups.push_back(std::move(f->open));
  f->open.clear();
}

inline void wait(int pending) {
  Fiber* f = state().current;
  while (int(f->groups.size()) > pending) {
    for (auto& c : f->groups.front()) land(c);
    f->groups.erase(f->groups.begin());
  }
}

inline void fiber_entry() {
  state().body();
  state().current->done = true;
}

// Readies a fiber to run fiber_entry from the start on its own stack. Kept out of run_grid:
// getcontext returns twice, which would put run_grid's locals at risk (-Wclobbered).
__attribute__((noinline)) inline void prepare_fiber(Fiber& f, std::size_t stack_bytes) {
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stack.get();
  f.context.uc_stack.ss_size = stack_bytes;
  f.context.uc_link = &state().scheduler;
  makecontext(&f.context, &fiber_entry, 0);
}

// Runs body() once per thread of every block of `grid`, `block` threads per block (x fastest,
// as on the device), with `smem_bytes` of shared memory per block (filled with NaN at block
// start so that reading what was never written shows). Returns the first misuse, or "".
inline std::string run_grid(dim3 grid, dim3 block, std::size_t smem_bytes,
                            const std::function<void(unsigned char* smem)>& body, Order order,
                            CopyTiming timing, unsigned seed = 1) {
  auto& s = state();
  s.error.clear();
  s.timing = timing;
  s.grid_dim = grid;
  s.block_dim = block;
  const int threads = int(block.x * block.y * block.z);
  constexpr std::size_t kStack = 256 * 1024;
  s.fibers.resize(std::size_t(threads));
  for (auto& f : s.fibers)
    if (!f.stack) f.stack.reset(new char[kStack]);
  // Shared memory ends at a page boundary followed by an inaccessible page, so an overrun of
  // the resource model faults instead of passing unnoticed.
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::size_t span = (smem_bytes + page - 1) / page * page;
  void* region =
      mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) throw std::runtime_error("mmap failed");
  mprotect(static_cast<char*>(region) + span, page, PROT_NONE);
  unsigned char* smem = static_cast<unsigned char*>(region) + (span - smem_bytes);
  std::mt19937 rng(seed);
  std::vector<int> ids(static_cast<std::size_t>(threads));
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        s.block_idx = uint3{x, y, z};
        std::fill_n(reinterpret_cast<float*>(smem), smem_bytes / sizeof(float), NAN);
        s.body = [&] { body(smem); };
        for (int t = 0; t < threads; ++t) {
          Fiber& f = s.fibers[std::size_t(t)];
          f.thread_idx = uint3{unsigned(t) % block.x, unsigned(t) / block.x % block.y,
                               unsigned(t) / (block.x * block.y)};
          f.done = false;
          f.barriers = 0;
          f.groups.clear();
          f.open.clear();
          prepare_fiber(f, kStack);
        }
        bool running = true;
        while (running) {
          for (int t = 0; t < threads; ++t) ids[std::size_t(t)] = t;
          if (order == Order::kReverse) std::reverse(ids.begin(), ids.end());
          if (order == Order::kShuffled) std::shuffle(ids.begin(), ids.end(), rng);
          for (int id : ids) {
            Fiber& f = s.fibers[std::size_t(id)];
            if (f.done) continue;
            s.current = &f;
            swapcontext(&s.scheduler, &f.context);
          }
          // Every thread is now at the same barrier or finished.
          long barrier = -1;
          int finished = 0;
          running = false;
          for (auto& f : s.fibers) {
            if (f.done) {
              ++finished;
              continue;
            }
            running = true;
            if (barrier >= 0 && f.barriers != barrier) fail("threads wait at different barriers");
            barrier = f.barriers;
          }
          if (running && finished > 0) fail("a thread exited while others wait at a barrier");
          if (!s.error.empty() && running) {
            // Give up on this block: finish no more fibers (their stacks are simply reused).
            running = false;
          }
        }
        for (auto& f : s.fibers) {
          bool in_flight = !f.open.empty();
          for (auto& g : f.groups) in_flight = in_flight || !g.empty();
          if (in_flight) fail("a thread exited with async copies in flight");
        }
        if (!s.error.empty()) {
          munmap(region, span + page);
          return s.error;
        }
      }
  munmap(region, span + page);
  return s.error;
}

inline std::string run_grid(dim3 grid, int threads, std::size_t smem_bytes,
                            const std::function<void(unsigned char* smem)>& body, Order order,
                            CopyTiming timing, unsigned seed = 1) {
  return run_grid(grid, dim3(unsigned(threads), 1, 1), smem_bytes, body, order, timing, seed);
}

// Floats with an inaccessible page right after the last one (rounded up to 16 bytes, so the
// start stays 16-byte aligned), optionally starting `shift` floats later to misalign it.
class GuardedBuffer {
 public:
  GuardedBuffer(std::size_t count, std::size_t shift = 0) {
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = ((count + shift) * sizeof(float) + 15) / 16 * 16;
    span_ = (bytes + page - 1) / page * page;
    region_ =
        mmap(nullptr, span_ + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    mprotect(static_cast<char*>(region_) + span_, page, PROT_NONE);
    data_ = reinterpret_cast<float*>(static_cast<char*>(region_) + (span_ - bytes)) + shift;
    count_ = count;
    std::fill_n(data_, count_, NAN);
    const char* region = static_cast<const char*>(region_);
    const char* floats = reinterpret_cast<const char*>(data_);
    slack().push_back({region, floats});
    slack().push_back({floats + count_ * sizeof(float), region + span_});
  }
  ~GuardedBuffer() {
    const char* region = static_cast<const char*>(region_);
    auto& s = slack();
    const auto mine = [&](const Slack& x) { return x.begin >= region && x.end <= region + span_; };
    s.erase(std::remove_if(s.begin(), s.end(), mine), s.end());
    munmap(region_, span_ + std::size_t(sysconf(_SC_PAGESIZE)));
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t size() const { return count_; }
  float& operator[](std::size_t i) { return data_[i]; }
  float operator[](std::size_t i) const { return data_[i]; }

 private:
  void* region_ = nullptr;
  std::size_t span_ = 0;
  float* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace occtune::emu

// The CUDA built-ins and the hooks of kernels/tile_core.cuh, bound to the emulator.
#define threadIdx (::occtune::emu::thread_idx())
#define blockIdx (::occtune::emu::block_idx())
#define blockDim (::occtune::emu::block_dim())
#define gridDim (::occtune::emu::grid_dim())
#define __syncthreads() ::occtune::emu::syncthreads()
#define OCCTUNE_EMU_CHECK_ALIGNED(ptr, bytes) ::occtune::emu::check_aligned(ptr, bytes)
#define OCCTUNE_EMU_SHUFFLE(v, src) ::occtune::emu::shuffle(v, src)
#define OCCTUNE_EMU_ASYNC_COPY(dst, src, bytes, src_bytes) \
  ::occtune::emu::async_copy(dst, src, bytes, src_bytes)
#define OCCTUNE_EMU_ASYNC_COMMIT() ::occtune::emu::commit()
#define OCCTUNE_EMU_ASYNC_WAIT(n) ::occtune::emu::wait(n)
