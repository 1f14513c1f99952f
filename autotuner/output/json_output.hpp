// JSON forms of occtune's records. Every top-level document carries schema_version so scripts
// can rely on the layout; bump kJsonSchemaVersion on any incompatible change.
#pragma once

#include <nlohmann/json.hpp>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "db/store.hpp"

namespace occtune::output {

inline constexpr int kJsonSchemaVersion = 1;

nlohmann::json to_json(const DeviceInfo& device);
nlohmann::json to_json(const Summary& summary);
nlohmann::json to_json(const TimingPolicy& policy);
nlohmann::json to_json(const Candidate& candidate);
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const Plan& plan);
nlohmann::json to_json(const db::BestEntry& best);
// {"schema_version": N, "kind": kind, ...body}
nlohmann::json document(const std::string& kind, nlohmann::json body);

}  // namespace occtune::output
