// Synthetic inputs for the regression-gate tests: GPU-like timing samples with known truth
// (lognormal spread plus occasional slow outliers, seeded) and stores filled with tuning runs of
// real registry variants, so exports, imports and comparisons run without a GPU.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "autotuner/core/stats.hpp"
#include "db/store.hpp"
#include "kernels/registry.hpp"
#include "tests/support/seed_store.hpp"

namespace occtune::testing {

// Timing noise as seen on data-centre GPUs: a multiplicative lognormal spread (sigma of the log,
// 0.005 = 0.5%) and, with probability outlier_rate, a sample slowed by 5%..outlier_max (a
// preempting context, a clock dip, an L2 flush that lands badly).
struct NoiseModel {
  double sigma = 0.01;
  double outlier_rate = 0.02;
  double outlier_max = 0.5;
};

inline std::vector<double> gpu_like_samples(std::mt19937_64& rng, double median_ms, int n,
                                            const NoiseModel& noise) {
  std::lognormal_distribution<double> spread(0.0, noise.sigma);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double v = median_ms * spread(rng);
    if (unit(rng) < noise.outlier_rate) v *= 1.0 + 0.05 + unit(rng) * (noise.outlier_max - 0.05);
    out.push_back(v);
  }
  return out;
}

// An H100 with every property the probe reports (exports of these stores pass import
// validation), under a chosen UUID and driver.
inline DeviceInfo gate_device(const std::string& uuid = "GPU-11111111-2222-3333-4444-555555555555",
                              int driver = 13000) {
  return seed_device(uuid, "NVIDIA H100 80GB HBM3", 9, 0, driver);
}

// What one synthetic candidate of a run looks like.
struct FakeCandidate {
  int tile = 32;
  double median_ms = 1.0;
  Outcome outcome = Outcome::kOk;
};

// Stores one complete tuning run of tiled_dynamic (real registry variants, so labels are
// "tile=N") with `samples` GPU-like samples per candidate; returns the run id.
inline std::int64_t add_tuning_run(db::Store& store, const DeviceInfo& device, Shape shape,
                                   const std::vector<FakeCandidate>& candidates,
                                   std::mt19937_64& rng, const NoiseModel& noise, int samples = 20,
                                   const std::string& build_id = "build-a",
                                   const std::string& kernel = "tiled_dynamic",
                                   db::RunStatus status = db::RunStatus::kComplete,
                                   const std::string& layout = "nn") {
  db::RunStart start;
  start.layout = layout;
  start.device = device;
  start.kernel = kernel;
  start.build_id = build_id;
  start.shape = shape;
  start.tool_version = "0.1.0-test";
  start.argv = {"occtune", "tune", "--shape", shape.str()};
  const std::int64_t run = store.begin_run(start);
  Timing reference;
  reference.samples_ms = gpu_like_samples(rng, 0.05, samples, noise);
  reference.summary = summarize(reference.samples_ms);
  store.set_reference(run, reference);
  for (auto& c : candidates) {
    Measurement m;
    m.candidate.variant = kernels::find_tile_variant("tiled_dynamic", c.tile);
    m.candidate.origin = "occupancy-api";
    m.candidate.threads = c.tile * c.tile;
    m.candidate.tile = c.tile;
    m.candidate.dynamic_smem = std::size_t(2 * c.tile * c.tile * 4);
    m.candidate.occupancy = 1.0;
    m.candidate.limiter = "warps";
    m.candidate.grid_x = (shape.n + c.tile - 1) / c.tile;
    m.candidate.grid_y = (shape.m + c.tile - 1) / c.tile;
    m.outcome = c.outcome;
    m.flops = shape.flops();
    if (c.outcome == Outcome::kOk || c.outcome == Outcome::kWrongResult)
      m.rel_error = c.outcome == Outcome::kOk ? 1e-7 : 3e-2;
    if (c.outcome == Outcome::kWrongResult) m.error = "relative error 3.0e-02 > 1e-05";
    if (c.outcome == Outcome::kOk) {
      m.timing.samples_ms = gpu_like_samples(rng, c.median_ms, samples, noise);
      m.timing.summary = summarize(m.timing.samples_ms);
    }
    store.add_measurement(run, m);
  }
  store.finish_run(run, status);
  return run;
}

}  // namespace occtune::testing
