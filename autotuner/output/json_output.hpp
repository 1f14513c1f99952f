// JSON forms of occtune's records. Every top-level document carries schema_version so scripts
// can rely on the layout; bump kJsonSchemaVersion on any incompatible change.
#pragma once

#include <nlohmann/json.hpp>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "db/store.hpp"

namespace occtune::output {

// 2 (issue #15): params is an object of name -> integer everywhere (a "tile=16" string in query
// and the service before), absent values are null (rel_error not checked, tile of a family
// without one), device limits are max_grid_x / max_grid_y as in device profiles.
// 3 (issue #12): measurements and runs are the typed model's one encoding
// (autotuner/core/model_json), the same in tune, query, the service and export: "outcome" (was
// "status" in tune), grid_x / grid_y (was "grid": [x, y]), the policy's names (min_time_s), the
// label beside params; a best entry is {"run", "best", "ratio_to_cublas"}.
inline constexpr int kJsonSchemaVersion = 3;

nlohmann::json to_json(const DeviceInfo& device);
// "bm=64,bn=32" (a variant's label, as stored) -> {"bm": 64, "bn": 32} (model::params_json).
nlohmann::json params_json(std::string_view label);
// null when not checked (-1), as a measurement's rel_error.
nlohmann::json rel_error_json(double rel_error);
nlohmann::json to_json(const Summary& summary);
nlohmann::json to_json(const TimingPolicy& policy);
nlohmann::json to_json(const Candidate& candidate);
nlohmann::json to_json(const Measurement& measurement);
nlohmann::json to_json(const Plan& plan);
nlohmann::json to_json(const db::BestEntry& best);
// {"schema_version": N, "kind": kind, ...body}
nlohmann::json document(const std::string& kind, nlohmann::json body);

}  // namespace occtune::output
