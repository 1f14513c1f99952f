#include "autotuner/output/json_output.hpp"

#include "autotuner/core/model_json.hpp"

namespace occtune::output {

using nlohmann::json;

// The model's one encoding (autotuner/core/model_json), plus "compute_capability" ("9.0") for
// readers; the CLI's JSON and the store's device columns use the same field names.
json to_json(const DeviceInfo& d) {
  json j = model::to_json(d);
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  return j;
}

json to_json(const Summary& s) { return model::to_json(s); }

json to_json(const TimingPolicy& p) {
  return {{"warmup", p.warmup},
          {"samples", p.samples},
          {"min_seconds", p.min_time_s},
          {"target_noise", p.target_noise},
          {"max_seconds_per_candidate", p.max_seconds_per_candidate},
          {"max_samples", p.max_samples},
          {"batch", p.batch},
          {"flush_l2", p.flush_l2},
          {"tolerance", p.tolerance},
          {"seed", p.seed},
          {"settle_ms", p.settle_ms},
          {"settle_timeout_ms", p.settle_timeout_ms},
          {"throttle_ratio", p.throttle_ratio},
          {"throttle_retries", p.throttle_retries},
          {"timer", p.timer}};
}

json params_json(std::string_view label) {
  json out = json::object();
  while (!label.empty()) {
    const auto comma = label.find(',');
    const std::string_view item = label.substr(0, comma);
    const auto eq = item.find('=');
    if (eq != std::string_view::npos) {
      const std::string value(item.substr(eq + 1));
      try {
        out[std::string(item.substr(0, eq))] = std::stoll(value);
      } catch (const std::exception&) {
        out[std::string(item.substr(0, eq))] = value;  // never written by occtune's labels
      }
    }
    label = comma == std::string_view::npos ? std::string_view() : label.substr(comma + 1);
  }
  return out;
}

json rel_error_json(double rel_error) { return rel_error < 0 ? json(nullptr) : json(rel_error); }
json tile_json(int tile) { return tile > 0 ? json(tile) : json(nullptr); }

json to_json(const Candidate& c) {
  json params = json::object();
  if (c.variant)
    for (auto& p : c.variant->params) params[p.name] = p.value;
  return {{"kernel", c.variant ? c.variant->family : ""},
          {"variant", c.variant ? c.variant->symbol : ""},
          {"params", params},
          {"origin", c.origin},
          {"step", c.step},
          {"suggested_block", c.suggested_block},
          {"block_limit", c.block_limit},
          {"threads", c.threads},
          {"tile", tile_json(c.tile)},
          {"dynamic_smem", c.dynamic_smem},
          {"registers", c.registers},
          {"active_blocks_per_sm", c.active_blocks_per_sm},
          {"occupancy", c.occupancy},
          {"limiter", c.limiter},
          {"grid", {c.grid_x, c.grid_y}},
          {"waves", c.waves},
          {"rejection", c.rejection}};
}

json to_json(const Measurement& m) {
  json j = to_json(m.candidate);
  j["status"] = std::string(to_string(m.outcome));
  j["error"] = m.error;
  j["rel_error"] = rel_error_json(m.rel_error);
  if (m.outcome == Outcome::kOk) {
    const Timing& t = m.timing;
    j["timing"] = to_json(t.summary);
    j["samples_ms"] = t.samples_ms;
    j["sm_clock_mhz"] = t.sm_clock_mhz;
    j["gflops"] = m.gflops();
    // Provenance of the sample set (issue #4).
    j["noise"] = t.noise;
    j["median_ci_ms"] = {t.median_ci.low, t.median_ci.high};
    j["sm_clock_range_mhz"] = {t.sm_clock_min_mhz, t.sm_clock_max_mhz};
    j["throttled"] = t.throttled;
    j["throttled_batches"] = t.throttled_batches;
    j["measured_s"] = t.measured_s;
  }
  j["stop_reason"] = std::string(to_string(m.timing.stop));
  j["search_round"] = m.search_round;
  j["tie"] = m.tie;
  j["winner"] = m.winner;
  j["reused_from"] = m.reused_from;
  return j;
}

json to_json(const Plan& plan) {
  json candidates = json::array();
  for (auto& c : plan.candidates) candidates.push_back(to_json(c));
  return {{"kernel", plan.family}, {"oracle", plan.oracle}, {"candidates", candidates},
          {"notes", plan.notes}};
}

json to_json(const db::BestEntry& b) {
  const auto& k = b.run.key;
  return {{"key",
           {{"device_uuid", k.device_uuid},
            {"device_name", k.device_name},
            {"compute_capability", std::to_string(k.cc_major) + "." + std::to_string(k.cc_minor)},
            {"sm_count", k.sm_count},
            {"driver_version", k.driver_version},
            {"runtime_version", k.runtime_version},
            {"kernel", k.kernel},
            {"build_id", k.build_id},
            {"dtype", k.dtype},
            {"shape", k.shape.str()},
            {"layout", k.layout}}},
          {"best",
           {{"variant", b.best.variant},
            {"params", params_json(b.best.params)},
            {"threads", b.best.threads},
            {"tile", tile_json(b.best.tile)},
            {"dynamic_smem", b.best.dynamic_smem},
            {"occupancy", b.best.occupancy},
            {"limiter", b.best.limiter},
            {"timing", to_json(b.best.summary)},
            {"gflops", b.best.gflops},
            {"rel_error", rel_error_json(b.best.rel_error)},
            {"sm_clock_mhz", b.best.sm_clock_mhz}}},
          {"cublas", to_json(b.run.cublas)},
          {"ratio_to_cublas", b.ratio_to_cublas()},
          {"run",
           {{"id", b.run.id},
            {"started_at", b.run.started_at},
            {"finished_at", b.run.finished_at},
            {"tool_version", b.run.tool_version},
            {"policy", json::parse(b.run.policy_json.empty() ? "{}" : b.run.policy_json)}}}};
}

json document(const std::string& kind, json body) {
  json doc = {{"schema_version", kJsonSchemaVersion}, {"kind", kind}};
  doc.update(body);
  return doc;
}

}  // namespace occtune::output
