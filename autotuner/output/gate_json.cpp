// The gate's JSON document ("kind": "check" or "compare"): every number behind every verdict,
// including the samples, so a later job can re-judge or plot without the GPU.
#include "autotuner/output/gate_output.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/problem_json.hpp"

namespace occtune::output {
namespace {

using nlohmann::json;

json side_json(const gate::Side& s) {
  return {{"run_id", s.run_id},        {"build_id", s.build_id},     {"device_uuid", s.device_uuid},
          {"platform", s.platform},    {"started_at", s.started_at}, {"variant", s.variant},
          {"config", s.config},        {"threads", s.threads},       {"outcome", to_string(s.outcome)},
          {"error", s.error},          {"rel_error", s.rel_error},   {"timing", to_json(s.summary)},
          {"samples_ms", s.samples_ms}};
}

json comparison_json(const SampleComparison& c) {
  return {{"verdict", std::string(to_string(c.verdict))},
          {"ratio", c.ratio},
          {"base_median_ms", c.base_median},
          {"current_median_ms", c.current_median},
          {"base_count", c.base_count},
          {"current_count", c.current_count},
          {"base_interval_ms", {c.base_interval.low, c.base_interval.high}},
          {"current_interval_ms", {c.current_interval.low, c.current_interval.high}},
          {"p_value", c.p_value},
          {"intervals_apart", c.intervals_apart},
          {"rank_test_applies", c.rank_test_applies},
          {"clearly_separated", c.clearly_separated}};
}

}  // namespace

json gate_json(const gate::GateReport& report) {
  const VerdictPolicy& p = report.options.policy;
  json keys = json::array();
  for (auto& k : report.keys) {
    json runners = json::array();
    for (auto& r : k.runners_up)
      runners.push_back(
          {{"current", side_json(r.current)}, {"vs_winner", comparison_json(r.vs_winner)}});
    json key =
        {{"kernel", k.kernel},
         {"launched_kernel", k.launched_kernel},
         {"dtype", k.dtype},
         {"shape", k.shape.str()},
         {"layout", k.layout},
         {"verdict", std::string(to_string(k.verdict))},
         {"fails", is_failure(report, k.verdict)},
         {"reason", k.reason},
         {"baseline", k.baseline ? side_json(*k.baseline) : json()},
         {"current", k.current ? side_json(*k.current) : json()},
         {"comparison", comparison_json(k.comparison)},
         {"first_comparison", k.first_comparison ? comparison_json(*k.first_comparison) : json()},
         {"runners_up", runners},
         {"different_platform", k.different_platform},
         {"notes", k.notes}};
    add_problem(key, k.kernel, k.shape);
    keys.push_back(std::move(key));
  }
  json counts = json::object();
  for (auto& [verdict, n] : report.counts()) counts[std::string(to_string(verdict))] = n;
  return document(report.kind,
                  {{"device", report.device},
                   {"build_id", report.build_id},
                   {"policy",
                    {{"threshold", p.threshold},
                     {"interval_level", p.interval_level},
                     {"rank_alpha", p.rank_alpha},
                     {"rank_min_samples", p.rank_min_samples},
                     {"runners_up", report.options.runners_up},
                     {"strict", report.options.strict},
                     {"allow_different_device", report.options.allow_different_device}}},
                   {"exit_code", report.exit_code()},
                   {"counts", counts},
                   {"keys", keys},
                   {"notes", report.notes}});
}

}  // namespace occtune::output
