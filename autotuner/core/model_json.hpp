// The one JSON codec of the typed model (field lists in autotuner/core/model_fields.hpp): the
// worker protocol, the store's JSON columns, export, the CLI's --format json and the service
// encode devices, timing policies, candidates and summaries through these functions only.
#pragma once

#include <nlohmann/json.hpp>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/stats.hpp"

namespace occtune::model {

using nlohmann::json;

// How a decoder treats a field the text lacks: kRequired throws Error(kRuntime) naming it (a
// peer of this build, the worker protocol); kDefault keeps the default (rows written by an
// older build).
enum class Missing { kRequired, kDefault };

// Doubles round-trip through JSON numbers; NaN and infinities (a poisoned output's error) are
// not JSON numbers and travel as the strings "nan", "inf", "-inf".
json number(double v);
double to_double(const json& j);

json to_json(const DeviceInfo& device);
// Only the fields of the cache key, plus "compute_capability" ("9.0") for readers.
json device_key_json(const DeviceInfo& device);
DeviceInfo device_from_json(const json& j, Missing missing);

json to_json(const TimingPolicy& policy);
TimingPolicy policy_from_json(const json& j, Missing missing);

// The candidate's fields without its variant (which the caller names: a pointer into this
// build's registry).
json to_json(const Candidate& candidate);
void candidate_fields_from_json(const json& j, Candidate& candidate, Missing missing);

json to_json(const Summary& summary);
Summary summary_from_json(const json& j, Missing missing);

}  // namespace occtune::model
