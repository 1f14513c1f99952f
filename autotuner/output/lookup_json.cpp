// JSON of a lookup result. "config" is what a launcher needs, in one shape for every step (the
// model's configuration of a measurement, model::config_json); the measured entry ("entry", the
// same document `query` prints) or the heuristic's planning details sit beside it.
#include "autotuner/output/lookup_json.hpp"

#include "autotuner/core/model_json.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/problem_json.hpp"

namespace occtune::output {

using nlohmann::json;

namespace {

// The heuristic's candidate in the configuration form of a stored measurement.
json config_json(const Candidate& c) {
  Measurement m;
  m.candidate = c;
  return model::config_json(stored_form(m, 0, 0), c.variant ? c.variant->family : "");
}

}  // namespace

json to_json(const db::HeuristicAnswer& h) {
  const Candidate& c = h.candidate;
  return {{"method", h.method},
          {"oracle", h.oracle},
          {"active_blocks_per_sm", c.active_blocks_per_sm},
          {"occupancy", c.occupancy},
          {"limiter", c.limiter},
          {"registers", c.registers},
          {"grid_x", c.grid_x},
          {"grid_y", c.grid_y},
          {"waves", c.waves},
          {"nearest_arch_registers", h.nearest_arch_registers}};
}

json chain_json(const db::LookupResult& result) {
  json chain = json::array();
  for (auto& s : result.steps)
    chain.push_back({{"step", std::string(db::to_string(s.step))},
                     {"result", std::string(db::to_string(s.state))},
                     {"detail", s.detail}});
  return chain;
}

json to_json(const db::LookupResult& result) {
  json j = {{"answered_by", nullptr}, {"measured", result.measured()},
            {"config", nullptr},      {"entry", nullptr},
            {"heuristic", nullptr},   {"chain", chain_json(result)}};
  if (result.answered_by) j["answered_by"] = std::string(db::to_string(*result.answered_by));
  if (result.entry) {
    j["config"] = model::config_json(result.entry->best, result.entry->run.key.kernel);
    // The nearest-shape step answers with a configuration measured at another shape.
    if (result.answered_by == db::LookupStep::kNearestShape) {
      j["measured_shape"] = result.entry->run.key.shape.str();
      add_problem(j, result.entry->run.key.kernel, result.entry->run.key.shape, "measured_problem");
      j["shape_distance"] = result.shape_distance;
    }
    j["entry"] = to_json(*result.entry);
  } else if (result.heuristic) {
    j["config"] = config_json(result.heuristic->candidate);
    j["heuristic"] = to_json(*result.heuristic);
  }
  return j;
}

}  // namespace occtune::output
