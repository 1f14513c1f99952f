// The problem of a user kernel family (occtune/kernel.hpp) in JSON: its named dimensions
// ({"nx": 4096, "ny": 2048}) beside the store's "shape" ("4096x2048x1"), which stays the key.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "autotuner/core/shape.hpp"

namespace occtune::output {

// Sets j[key] to the named dimensions when `family` is a user kernel family; leaves `j` as it
// is for a built-in GEMM family (whose "shape" is already its problem) or an empty name.
void add_problem(nlohmann::json& j, std::string_view family, Shape shape,
                 const char* key = "problem");

}  // namespace occtune::output
