// The one JSON codec of the typed model (field lists in autotuner/core/model_fields.hpp): the
// worker protocol, the store's JSON columns, export/import, the CLI's --format json and the
// service encode devices, timing policies, candidates, summaries, measurements and runs through
// these functions only.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/records.hpp"
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

// "bm=64,bn=32" (a variant's label, as stored) -> {"bm": 64, "bn": 32}.
json params_json(std::string_view label);

// The launch configuration of a measurement (what a program needs to launch it): "family",
// OCCTUNE_CONFIG_FIELDS and "params". A measurement's JSON holds the same fields at its top level.
json config_json(const StoredMeasurement& m, std::string_view family);

// `family` is the run's kernel (a measurement row does not repeat it); the decoder ignores
// "family" and "params" (the label is the stored form).
json to_json(const StoredMeasurement& m, std::string_view family);
StoredMeasurement measurement_from_json(const json& j, Missing missing);

json to_json(const CacheKey& key);  // flat, with the device's key fields as "device"
CacheKey key_from_json(const json& j, Missing missing);

json to_json(const StoredRun& run);
StoredRun run_from_json(const json& j, Missing missing);

// A run with its measurements under "measurements".
json to_json(const RunRecord& record);
RunRecord run_record_from_json(const json& j, Missing missing);

// The members of a run record's JSON that no field list names ("runs.<name>",
// "measurements.<name>", "measurements.timing.<name>", ...): what an import drops.
void unknown_fields(const json& record, std::set<std::string>& out);

}  // namespace occtune::model
