// JSON form of a lookup through the chain (db/lookup.hpp): which step answered, the
// configuration to launch (the same fields whether measured or not), and the explanation.
// Used by `occtune query --format json` and by the HTTP service.
#pragma once

#include <nlohmann/json.hpp>

#include "db/lookup.hpp"

namespace occtune::output {

// {"answered_by", "measured", "config", "heuristic", "chain"}; "config" is null on a miss.
nlohmann::json to_json(const db::LookupResult& result);
nlohmann::json to_json(const db::HeuristicAnswer& heuristic);
nlohmann::json chain_json(const db::LookupResult& result);

}  // namespace occtune::output
