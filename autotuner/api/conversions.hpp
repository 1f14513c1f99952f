// From the engine's and the store's types to the public model (include/occtune/model.hpp), for
// the library's front (Cache, sgemm). Host-only.
#pragma once

#include <optional>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/shape.hpp"
#include "db/lookup.hpp"
#include "occtune/cache.hpp"
#include "occtune/model.hpp"

namespace occtune::api {

DeviceIdentity to_identity(const DeviceInfo& device);

// The answer for `asked` (the grid is computed for it, also when the configuration was measured
// at another shape). Throws Error(kNotFound) when the configuration names a variant this build
// does not have.
Answer to_answer(const db::LookupResult& result, Shape asked);

// The store at the default path (OCCTUNE_DB, ...) read-only, or nullopt when there is none yet
// (the callers then answer with the occupancy heuristic); other errors are thrown.
std::optional<Cache> open_default_cache();

// "tile=16,bm=128" as named parameters.
std::vector<Param> parse_params(const std::string& label);

}  // namespace occtune::api
