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

json to_json(const TimingPolicy& p) { return model::to_json(p); }

json params_json(std::string_view label) { return model::params_json(label); }
json rel_error_json(double rel_error) { return rel_error < 0 ? json(nullptr) : json(rel_error); }

// A planned candidate: the configuration names of a measurement ("family", "variant", "label",
// "params") and the candidate's own fields, as the model encodes them.
json to_json(const Candidate& c) {
  json j = model::to_json(c);
  const std::string label = c.variant ? c.variant->label() : std::string();
  j["family"] = c.variant ? c.variant->family : "";
  j["variant"] = c.variant ? c.variant->symbol : "";
  j["label"] = label;
  j["params"] = model::params_json(label);
  if (c.tile <= 0) j["tile"] = nullptr;
  return j;
}

// What the engine measured, in the form a store keeps it (stored_form), so tune's candidates,
// export and the service's entries are one encoding.
json to_json(const Measurement& m) {
  return model::to_json(stored_form(m, 0, 0), m.candidate.variant ? m.candidate.variant->family
                                                                  : std::string());
}

json to_json(const Plan& plan) {
  json candidates = json::array();
  for (auto& c : plan.candidates) candidates.push_back(to_json(c));
  return {{"kernel", plan.family}, {"oracle", plan.oracle}, {"candidates", candidates},
          {"notes", plan.notes}, {"compile_s", plan.compile_seconds}};
}

json to_json(const db::BestEntry& b) {
  return {{"run", model::to_json(b.run)},
          {"best", model::to_json(b.best, b.run.key.kernel)},
          {"ratio_to_cublas", b.ratio_to_cublas()}};
}

json document(const std::string& kind, json body) {
  json doc = {{"schema_version", kJsonSchemaVersion}, {"kind", kind}};
  doc.update(body);
  return doc;
}

}  // namespace occtune::output
