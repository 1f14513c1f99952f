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

// The process's one read connection to the store at db::resolve_store_path(), opened on first
// use (a cold open costs about as much as a lookup chain, so it is not repeated per shape). None
// while there is no store file yet: the heuristic answers, and once an on-miss tune has created
// the file the next call opens it. Cache::find is thread-safe and sees other connections'
// commits (data_version), so one connection serves sgemm and occtune::launch alike.
const Cache* process_cache();

// "tile=16,bm=128" as named parameters.
std::vector<Param> parse_params(const std::string& label);

}  // namespace occtune::api
