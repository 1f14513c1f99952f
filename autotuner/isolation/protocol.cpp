#include "autotuner/isolation/protocol.hpp"

#include <cmath>
#include <limits>

#include "autotuner/core/model_json.hpp"
#include "kernels/registry.hpp"

namespace occtune::isolation {
namespace {

// Devices, policies and candidates travel in the model's one codec (autotuner/core/model_json);
// a peer is this same build, so every field is required.
using model::Missing;
using model::number;

static_assert(sizeof(SampleBatch) == 72,
              "SampleBatch changed: encode the new field in encode/decode_batch, then update "
              "this size");

// decoding() for the model codec's own errors (a missing or unusable field, named).
template <class F>
auto model_decoding(const char* what, F&& body) -> decltype(body()) {
  return decoding(what, [&] {
    try {
      return body();
    } catch (const Error& e) {
      throw Error(ExitCode::kRuntime, std::string("worker protocol: malformed ") + what + ": " +
                                          e.what() + "; rerun, or measure in-process with "
                                                     "--no-isolation");
    }
  });
}

double to_double(const json& j) {
  try {
    return model::to_double(j);
  } catch (const Error& e) {
    throw Error(ExitCode::kRuntime, std::string("worker protocol: ") + e.what());
  }
}

Outcome to_outcome(const json& j) {
  const auto text = j.get<std::string>();
  auto o = outcome_from_string(text);
  if (!o) throw Error(ExitCode::kRuntime, "worker protocol: unknown outcome '" + text + "'");
  return *o;
}

}  // namespace

json encode(const DeviceInfo& d) { return model::to_json(d); }

DeviceInfo decode_device(const json& j) {
  return model_decoding("device", [&] { return model::device_from_json(j, Missing::kRequired); });
}

json encode(const TimingPolicy& p) { return model::to_json(p); }

TimingPolicy decode_policy(const json& j) {
  return model_decoding("timing policy",
                        [&] { return model::policy_from_json(j, Missing::kRequired); });
}

json encode(const Shape& s) { return json::array({s.m, s.n, s.k}); }

Shape decode_shape(const json& j) {
  return decoding("shape", [&] {
    Shape s{j.at(0).get<std::int64_t>(), j.at(1).get<std::int64_t>(), j.at(2).get<std::int64_t>()};
    if (s.m < 1 || s.n < 1 || s.k < 1 || j.size() != 3)
      throw Error(ExitCode::kRuntime, "worker protocol: invalid shape " + j.dump());
    return s;
  });
}

json encode(Layout layout) { return layout_name(layout); }

Layout decode_layout(const json& j) {
  return decoding("layout", [&] {
    const auto text = j.get<std::string>();
    const auto layout = parse_layout(text);
    if (!layout) throw Error(ExitCode::kRuntime, "worker protocol: " + layout_error(text));
    return *layout;
  });
}

json encode(const Candidate& c) {
  json j = model::to_json(c);
  j["variant"] = c.variant ? c.variant->symbol : std::string();
  return j;
}

Candidate decode_candidate(const json& j) {
  Candidate c = decoding("candidate", [&] {
    Candidate found;
    const auto symbol = j.at("variant").get<std::string>();
    for (auto& v : kernels::variants())
      if (v.symbol == symbol) found.variant = &v;
    if (!found.variant)
      throw Error(ExitCode::kRuntime,
                  "worker protocol: kernel variant '" + symbol +
                      "' is not registered on this side (is OCCTUNE_TEST_KERNELS set on one "
                      "side only?)");
    return found;
  });
  model_decoding("candidate", [&] { model::candidate_fields_from_json(j, c, Missing::kRequired); });
  return c;
}

json encode(const Plan& plan) {
  json candidates = json::array();
  for (auto& c : plan.candidates) candidates.push_back(encode(c));
  return {{"family", plan.family},
          {"oracle", plan.oracle},
          {"candidates", candidates},
          {"notes", plan.notes},
          {"compile_seconds", plan.compile_seconds}};
}

Plan decode_plan(const json& j) {
  return decoding("plan", [&] {
    Plan plan;
    plan.family = j.at("family").get<std::string>();
    plan.oracle = j.at("oracle").get<std::string>();
    for (auto& c : j.at("candidates")) plan.candidates.push_back(decode_candidate(c));
    plan.notes = j.at("notes").get<std::vector<std::string>>();
    plan.compile_seconds = j.at("compile_seconds").get<double>();
    return plan;
  });
}

json encode(const SampleBatch& b) {
  json samples = json::array();
  for (double s : b.samples_ms) samples.push_back(number(s));
  return {{"outcome", std::string(to_string(b.outcome))},
          {"error", b.error},
          {"samples_ms", samples},
          {"sm_clock_mhz", b.sm_clock_mhz}};
}

SampleBatch decode_batch(const json& j) {
  return decoding("sample batch", [&] {
    SampleBatch b;
    b.outcome = to_outcome(j.at("outcome"));
    b.error = j.at("error").get<std::string>();
    for (auto& s : j.at("samples_ms")) b.samples_ms.push_back(to_double(s));
    b.sm_clock_mhz = j.at("sm_clock_mhz").get<int>();
    return b;
  });
}

json encode_check(const Measurement& m) {
  return {{"outcome", std::string(to_string(m.outcome))},
          {"error", m.error},
          {"rel_error", number(m.rel_error)},
          {"flops", number(m.flops)}};
}

void decode_check(const json& j, Measurement& m) {
  decoding("check result", [&] {
    m.outcome = to_outcome(j.at("outcome"));
    m.error = j.at("error").get<std::string>();
    m.rel_error = to_double(j.at("rel_error"));
    m.flops = to_double(j.at("flops"));
  });
}

}  // namespace occtune::isolation
