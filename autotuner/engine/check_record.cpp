// check_record.hpp: the gate's per-key verdicts with a summary of both sample sets; what was not
// measured or has no baseline stays absent (NULL in the store), never 0.
#include "autotuner/engine/check_record.hpp"

#include <nlohmann/json.hpp>

namespace occtune::gate {

CheckRecord check_record(const GateReport& report, const DeviceInfo& device,
                             const std::string& tool_version,
                             const std::vector<std::string>& argv) {
  CheckRecord record;
  record.device_uuid = device.uuid;
  record.device_name = device.name;
  record.platform = platform_of(CacheKey::make(device, "", "", Shape{}));
  record.build_id = report.build_id;
  record.tool_version = tool_version;
  record.argv_json = nlohmann::json(argv).dump();
  record.threshold = report.options.policy.threshold;
  record.strict = report.options.strict;
  record.exit_code = report.exit_code();
  for (const KeyVerdict& k : report.keys) {
    CheckKeyRecord r;
    r.kernel = k.kernel;
    r.dtype = k.dtype;
    r.shape = k.shape;
    r.launched_kernel = k.launched_kernel.empty() ? k.kernel : k.launched_kernel;
    r.verdict = std::string(to_string(k.verdict));
    r.reason = k.reason;
    const Side* named = k.baseline ? &*k.baseline : k.current ? &*k.current : nullptr;
    if (named) {
      r.config = named->config;
      r.threads = named->threads;
    }
    const SampleComparison& c = k.comparison;
    if (k.baseline) {
      r.baseline_run_id = k.baseline->run_id;
      r.baseline_build_id = k.baseline->build_id;
      r.baseline_count = std::int64_t(k.baseline->summary.count);
      if (k.baseline->summary.count > 0) {
        r.baseline_median_ms = k.baseline->summary.median;
        if (c.base_count > 0) {
          r.baseline_low_ms = c.base_interval.low;
          r.baseline_high_ms = c.base_interval.high;
        }
      }
    }
    if (k.current) {
      const Side& now = *k.current;
      r.current_outcome = std::string(to_string(now.outcome));
      if (now.rel_error >= 0) r.current_rel_error = now.rel_error;
      r.current_count = std::int64_t(now.summary.count);
      if (now.summary.count > 0) {
        r.current_min_ms = now.summary.min;
        r.current_q1_ms = now.summary.q1;
        r.current_median_ms = now.summary.median;
        r.current_q3_ms = now.summary.q3;
        r.current_max_ms = now.summary.max;
        if (c.current_count > 0) {
          r.current_low_ms = c.current_interval.low;
          r.current_high_ms = c.current_interval.high;
        }
      }
    }
    if (c.base_count > 0 && c.current_count > 0) {
      r.ratio = c.ratio;
      r.p_value = c.p_value;
    }
    record.keys.push_back(std::move(r));
  }
  return record;
}

}  // namespace occtune::gate
