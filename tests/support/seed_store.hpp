// Writes realistic runs into a store through the public Store API (no GPU): the service tests,
// the e2e script and the load test (tests/tools/seed_store.cpp) share these builders.
#pragma once

#include <cstdint>
#include <string>

#include "autotuner/core/stats.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"
#include "kernels/registry.hpp"

namespace occtune::testing {

// An H100-like device (the properties the heuristic step plans with) under a chosen UUID.
inline DeviceInfo seed_device(const std::string& uuid,
                              const std::string& name = "NVIDIA H100 80GB HBM3", int cc_major = 9,
                              int cc_minor = 0, int driver = 13000) {
  DeviceInfo d;
  d.index = 0;
  d.uuid = uuid;
  d.name = name;
  d.source = "runtime";
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.shared_mem_per_block = 49152;
  d.shared_mem_per_block_optin = 232448;
  d.shared_mem_per_sm = 233472;
  d.reserved_shared_mem_per_block = 1024;
  d.l2_bytes = 52428800;
  d.global_mem_bytes = 85045870592ULL;
  d.clock_khz = 1980000;
  d.driver_version = driver;
  d.runtime_version = 13000;
  return d;
}

inline Measurement seed_measurement(int tile, double median_ms, Shape shape,
                                    Outcome outcome = Outcome::kOk) {
  Measurement m;
  Candidate& c = m.candidate;
  c.variant = kernels::find_tile_variant("tiled_dynamic", tile);
  c.origin = "occupancy-api";
  c.step = 1;
  c.threads = tile * tile;
  c.tile = tile;
  c.dynamic_smem = std::size_t(2 * tile * tile * 4);
  c.registers = 38;
  c.active_blocks_per_sm = 2048 / (tile * tile);
  c.occupancy = 1.0;
  c.limiter = "warps";
  c.grid_x = (shape.n + tile - 1) / tile;
  c.grid_y = (shape.m + tile - 1) / tile;
  c.waves = 1.5;
  m.outcome = outcome;
  m.flops = shape.flops();
  if (outcome == Outcome::kOk) {
    m.rel_error = 3e-7;
    m.timing.samples_ms = {median_ms * 1.01, median_ms, median_ms * 0.99, median_ms,
                           median_ms * 1.02};
    m.timing.summary = summarize(m.timing.samples_ms);
    m.timing.median_ci = median_interval(m.timing.samples_ms);
    m.timing.sm_clock_mhz = 1980;
  } else {
    m.error = "cudaErrorInvalidValue";
  }
  return m;
}

// A complete tiled_dynamic run of this binary's kernel build: tile 16 takes best_ms, tile 32
// twice as long. Returns the run id.
inline std::int64_t seed_run(db::Store& store, const DeviceInfo& device, Shape shape,
                             double best_ms, db::RunStatus status = db::RunStatus::kComplete,
                             const std::string& kernel = "tiled_dynamic") {
  db::RunStart start;
  start.device = device;
  start.kernel = kernel;
  start.build_id = std::string(kernels::kernel_build_id());
  start.shape = shape;
  start.tool_version = "0.1.0";
  start.argv = {"occtune", "tune", "--shape", shape.str()};
  const std::int64_t run = store.begin_run(start);
  Timing cublas;
  cublas.samples_ms = {best_ms / 4, best_ms / 4};
  cublas.summary = summarize(cublas.samples_ms);
  store.set_reference(run, cublas);
  store.add_measurement(run, seed_measurement(32, best_ms * 2, shape));
  store.add_measurement(run, seed_measurement(16, best_ms, shape));
  store.finish_run(run, status);
  return run;
}

// A complete run of another family (its rows reuse the tiled_dynamic measurements: the lookup
// reads only the run's kernel and the timings).
inline std::int64_t seed_run(db::Store& store, const DeviceInfo& device, Shape shape,
                             double best_ms, const std::string& kernel) {
  return seed_run(store, device, shape, best_ms, db::RunStatus::kComplete, kernel);
}

}  // namespace occtune::testing
