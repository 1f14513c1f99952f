// A store that looks like a real tuning history, for the report's tests and screenshots (no
// GPU): every registered family on three shapes with synthetic but plausible occupancies and
// times (the textbook tile slow, register blocking near cuBLAS), some wrong results, a crash, a
// timeout and candidates over the limits; an older tune session of another build, and three
// checks, the last with a SLOW and a MISSING key. Timestamps are spread over days.
#pragma once

#include <SQLiteCpp/Database.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/support/seed_store.hpp"

namespace occtune::testing {

inline const std::vector<Shape>& report_shapes() {
  static const std::vector<Shape> shapes = {{1024, 1024, 1024}, {4096, 4096, 4096},
                                            {3001, 1000, 4097}};
  return shapes;
}

// Deterministic noise in [0, 1) from a few integers.
inline double seed_hash(std::size_t a, std::size_t b, std::size_t c = 0) {
  std::size_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x7F4A7C15ull) * 0xBF58476D1CE4E5B9ull ^
                  (c + 17) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 29;
  return double(h % 100000) / 100000.0;
}

// Fraction of the FMA limit a family reaches at best, before the per-variant spread.
inline double family_efficiency(const std::string& family) {
  if (family == "naive") return 0.03;
  if (family == "tiled_static" || family == "tiled_dynamic") return 0.16;
  if (family == "coarsened") return 0.45;
  if (family == "regblocked") return 0.74;
  if (family == "pipelined") return 0.66;
  if (family == "splitk") return 0.58;
  return 0.3;
}

inline Measurement seed_candidate(const kernels::VariantInfo& v, std::size_t index, Shape shape,
                                  const DeviceInfo& d, double spread_seed) {
  Measurement m;
  Candidate& c = m.candidate;
  c.variant = &v;
  c.threads = v.threads();
  c.tile = v.param("tile", 0);
  c.dynamic_smem = v.dynamic_smem;
  c.registers = 32 + int(index % 5) * 16;
  const bool textbook_family = v.family == "tiled_dynamic";
  c.origin = textbook_family ? "occupancy-api" : "registered";
  // The textbook walk: the largest tile first (step 1), then smaller ones.
  c.step = textbook_family ? 1 + int(std::log2(32.0 / std::max(c.tile, 1))) : 0;
  const int by_threads = c.threads > 0 ? d.max_threads_per_sm / c.threads : 0;
  const int by_smem =
      int(d.shared_mem_per_sm / (c.dynamic_smem + d.reserved_shared_mem_per_block));
  const int by_regs = d.regs_per_sm / std::max(1, c.registers * c.threads);
  c.active_blocks_per_sm = std::min({d.max_blocks_per_sm, by_threads, by_smem, by_regs});
  c.occupancy = double(c.active_blocks_per_sm * ((c.threads + 31) / 32)) /
                double(d.max_threads_per_sm / 32);
  c.limiter = c.active_blocks_per_sm == by_smem ? "shared_memory"
              : c.active_blocks_per_sm == by_regs ? "registers"
                                                  : "warps";
  c.grid_x = (shape.n + std::max(v.tile_n, 1) - 1) / std::max(v.tile_n, 1);
  c.grid_y = (shape.m + std::max(v.tile_m, 1) - 1) / std::max(v.tile_m, 1);
  c.waves = double(c.grid_x * c.grid_y) / std::max(1, c.active_blocks_per_sm * d.sm_count);
  m.flops = shape.flops();
  // One candidate per run refused before launch, as the planner does with what exceeds a limit.
  if (c.dynamic_smem > d.shared_mem_per_block_optin || c.active_blocks_per_sm <= 0 ||
      (v.family == "coarsened" && index == 4)) {
    m.outcome = Outcome::kExceedsLimits;
    c.rejection = "needs more shared memory than the device allows per block";
    return m;
  }
  const double r = seed_hash(index, std::size_t(shape.m + shape.k), std::size_t(spread_seed));
  const std::size_t family_hash = std::hash<std::string>{}(v.family);
  if (!textbook_family && seed_hash(index, family_hash, std::size_t(shape.n)) < 0.04) {
    m.outcome = Outcome::kWrongResult;
    m.rel_error = 0.31;
    m.error = "relative Frobenius error 3.1e-01 exceeds the tolerance 1e-05";
    return m;
  }
  if (v.family == "pipelined" && index == 3 && shape.m == 4096) {
    m.outcome = Outcome::kCrashed;
    m.error = "cudaErrorIllegalAddress: an illegal memory access was encountered";
    return m;
  }
  if (v.family == "splitk" && index == 2 && shape.m == 4096) {
    m.outcome = Outcome::kTimeout;
    m.error = "no answer within 10 s; the worker was replaced";
    return m;
  }
  double efficiency = family_efficiency(v.family) * (0.45 + 0.55 * r);
  if (textbook_family) efficiency = 0.16 * (c.tile == 16 ? 1.0 : c.tile == 32 ? 0.62 : 0.4);
  const double peak = 2.0 * d.sm_count * 128 * d.clock_khz * 1e3;
  const double ms = shape.flops() / (peak * efficiency) * 1e3;
  m.rel_error = 2e-7;
  for (int i = 0; i < 12; ++i) m.timing.samples_ms.push_back(ms * (1 + 0.01 * seed_hash(index, i)));
  m.timing.summary = summarize(m.timing.samples_ms);
  m.timing.median_ci = median_interval(m.timing.samples_ms, 0.95);
  m.timing.noise = m.timing.summary.relative_iqr();
  m.timing.sm_clock_mhz = m.timing.sm_clock_min_mhz = 1980;
  m.timing.sm_clock_max_mhz = 1980;
  m.timing.stop = StopReason::kConverged;
  return m;
}

// One complete run of `family` at `shape`; the fastest correct candidate is the winner.
inline std::int64_t seed_family_run(db::Store& store, const DeviceInfo& device,
                                    const std::string& family, Shape shape,
                                    const std::string& build_id, double spread_seed) {
  db::RunStart start;
  start.device = device;
  start.kernel = family;
  start.build_id = build_id;
  start.shape = shape;
  start.tool_version = "0.1.0";
  start.argv = {"occtune", "tune", "--kernel", family, "--shape", shape.str()};
  const std::int64_t run = store.begin_run(start, {"halving", 1980});
  Timing cublas;
  const double cublas_ms = shape.flops() / (2.0 * device.sm_count * 128 * device.clock_khz * 1e3 * 0.77) * 1e3;
  cublas.samples_ms = {cublas_ms, cublas_ms * 1.003, cublas_ms * 0.998, cublas_ms * 1.001};
  cublas.summary = summarize(cublas.samples_ms);
  store.set_reference(run, cublas);
  std::vector<Measurement> ms;
  std::size_t i = 0;
  for (auto* v : kernels::variants_of(family)) ms.push_back(seed_candidate(*v, i++, shape, device, spread_seed));
  int best = -1;
  for (int j = 0; j < int(ms.size()); ++j)
    if (ms[size_t(j)].outcome == Outcome::kOk &&
        (best < 0 || ms[size_t(j)].timing.summary.median < ms[size_t(best)].timing.summary.median))
      best = j;
  if (best >= 0) ms[size_t(best)].winner = true;
  for (auto& m : ms) store.add_measurement(run, m);
  store.finish_run(run, db::RunStatus::kComplete);
  return run;
}

inline std::vector<std::string> seed_families() {
  std::vector<std::string> out;
  for (auto& f : kernels::families()) out.push_back(f.name);
  return out;
}

// Fills `path` (a new file) with the report's synthetic history; returns the device.
inline DeviceInfo seed_report_store(const std::string& path) {
  const DeviceInfo device = seed_device("GPU-5eed0000-0000-4000-8000-00000000abcd");
  {
    auto store = db::Store::open(path);
    const std::string current(kernels::kernel_build_id());
    for (auto& shape : report_shapes())
      for (auto& f : seed_families()) seed_family_run(store, device, f, shape, "0ldb0ld0ldb0ld00", 1);
    for (auto& shape : report_shapes())
      for (auto& f : seed_families()) seed_family_run(store, device, f, shape, current, 2);
    // Three checks of every key; the third finds one key slower and one without a baseline.
    for (int c = 0; c < 3; ++c) {
      db::CheckRecord check;
      check.device_uuid = device.uuid;
      check.device_name = device.name;
      check.platform = "NVIDIA H100 80GB HBM3, driver 13000, runtime 13000";
      check.build_id = current;
      check.tool_version = "0.1.0";
      check.argv_json = R"(["occtune","check"])";
      check.exit_code = c == 2 ? 1 : 0;
      for (auto& shape : report_shapes())
        for (auto& f : seed_families()) {
          auto entry = store.best(db::CacheKey::make(device, f, current, shape));
          db::CheckKeyRecord k;
          k.kernel = f;
          k.shape = shape;
          k.launched_kernel = f;
          if (!entry) {
            k.verdict = "MISSING";
            k.reason = "no baseline with a correct result";
            check.keys.push_back(k);
            continue;
          }
          const double base = entry->best.summary.median;
          const bool slow = c == 2 && f == "regblocked" && shape.m == 4096;
          const double now = base * (slow ? 1.12 : 1.0 + 0.004 * (c - 1));
          k.verdict = slow ? "SLOW" : "SAME";
          k.reason = slow ? "median 12.0% slower, intervals apart, confirmed on fresh samples"
                          : "median within 5%";
          k.config = entry->best.params;
          k.threads = entry->best.threads;
          k.baseline_run_id = entry->run.id;
          k.baseline_build_id = current;
          k.baseline_count = std::int64_t(entry->best.summary.count);
          k.baseline_median_ms = base;
          k.baseline_low_ms = entry->best.median_ci.low;
          k.baseline_high_ms = entry->best.median_ci.high;
          k.current_outcome = "ok";
          k.current_rel_error = 2e-7;
          k.current_count = 30;
          k.current_min_ms = now * 0.99;
          k.current_q1_ms = now * 0.995;
          k.current_median_ms = now;
          k.current_q3_ms = now * 1.005;
          k.current_max_ms = now * 1.02;
          k.current_low_ms = now * 0.997;
          k.current_high_ms = now * 1.003;
          k.ratio = now / base;
          k.p_value = slow ? 1e-9 : 0.4;
          check.keys.push_back(k);
        }
      if (c == 2) {
        db::CheckKeyRecord missing;
        missing.kernel = "tiled_dynamic";
        missing.shape = {8192, 8192, 8192};
        missing.launched_kernel = "tiled_dynamic";
        missing.verdict = "MISSING";
        missing.reason = "no baseline: run `occtune tune` for this shape first";
        check.keys.push_back(missing);
      }
      store.record_check(check);
    }
  }
  // Spread the stamps: the old build's session four days ago, the current one yesterday,
  // the checks an hour apart today.
  SQLite::Database raw(path, SQLite::OPEN_READWRITE);
  raw.exec("UPDATE runs SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-20T10:00:00', "
           "'+' || id || ' seconds'), finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', "
           "'2026-11-20T10:00:01', '+' || id || ' seconds') WHERE build_id = '0ldb0ld0ldb0ld00'");
  raw.exec("UPDATE runs SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-23T15:30:00', "
           "'+' || id || ' seconds'), finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', "
           "'2026-11-23T15:30:01', '+' || id || ' seconds') WHERE build_id != '0ldb0ld0ldb0ld00'");
  raw.exec("UPDATE checks SET recorded_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:00:00', "
           "'+' || id || ' hours')");
  return device;
}

}  // namespace occtune::testing
