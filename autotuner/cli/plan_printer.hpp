// Text rendering of a plan (shared by `plan` and the verbose path of `tune`).
#pragma once

#include <ostream>

#include "autotuner/core/candidate_generation.hpp"

namespace occtune::cli {

void print_plan(std::ostream& out, const Plan& plan, const DeviceInfo& device, Shape shape);

}  // namespace occtune::cli
