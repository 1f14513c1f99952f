// Building the complete cache key from a probed device, and the stored spellings of run states.
// The spellings are part of the schema (a CHECK constraint lists them), so they never change.
#include <utility>

#include "autotuner/core/records.hpp"

namespace occtune {

CacheKey CacheKey::make(const DeviceInfo& device, std::string kernel, std::string build_id,
                        Shape shape, std::string dtype, std::string layout) {
  CacheKey key;
  key.device_uuid = device.uuid;
  key.device_name = device.name;
  key.cc_major = device.cc_major;
  key.cc_minor = device.cc_minor;
  key.sm_count = device.sm_count;
  key.driver_version = device.driver_version;
  key.runtime_version = device.runtime_version;
  key.kernel = std::move(kernel);
  key.build_id = std::move(build_id);
  key.dtype = std::move(dtype);
  key.shape = shape;
  key.layout = std::move(layout);
  return key;
}

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kComplete:
      return "complete";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kFailed:
      return "failed";
  }
  return "failed";
}

std::optional<RunStatus> run_status_from_string(std::string_view text) {
  for (RunStatus s : {RunStatus::kRunning, RunStatus::kComplete, RunStatus::kInterrupted,
                      RunStatus::kFailed})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

StoredMeasurement stored_form(const Measurement& m, std::int64_t id, std::int64_t run_id) {
  const Candidate& c = m.candidate;
  const Timing& t = m.timing;
  StoredMeasurement s;
  s.id = id;
  s.run_id = run_id;
  s.variant = c.variant ? c.variant->symbol : std::string();
  s.params = c.variant ? c.variant->label() : std::string();
  s.threads = c.threads;
  s.tile = c.tile;
  s.dynamic_smem = std::int64_t(c.dynamic_smem);
  s.registers = c.registers;
  s.active_blocks_per_sm = c.active_blocks_per_sm;
  s.occupancy = c.occupancy;
  s.limiter = c.limiter;
  s.origin = c.origin;
  s.step = c.step;
  s.suggested_block = c.suggested_block;
  s.block_limit = c.block_limit;
  s.grid_x = c.grid_x;
  s.grid_y = c.grid_y;
  s.waves = c.waves;
  s.outcome = m.outcome;
  // A candidate refused before launch carries its reason as the rejection: one "why it did not
  // run" text either way, as the store reads it back.
  s.error = m.error.empty() ? c.rejection : m.error;
  s.rel_error = m.rel_error;
  s.summary = t.summary;
  s.samples_ms = t.samples_ms;
  s.flops = m.flops;
  s.gflops = m.gflops();
  s.sm_clock_mhz = t.sm_clock_mhz;
  s.noise = t.noise;
  s.median_ci = t.median_ci;
  s.sm_clock_min_mhz = t.sm_clock_min_mhz;
  s.sm_clock_max_mhz = t.sm_clock_max_mhz;
  s.throttled = t.throttled;
  s.throttled_batches = t.throttled_batches;
  s.stop_reason = std::string(to_string(t.stop));
  s.search_round = m.search_round;
  s.tie = m.tie;
  s.winner = m.winner;
  s.reused_from = m.reused_from;
  return s;
}

}  // namespace occtune
