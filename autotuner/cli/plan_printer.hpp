// Text rendering of a plan (shared by `plan` and the verbose path of `tune`).
#pragma once

#include <ostream>

#include "autotuner/core/candidate_generation.hpp"

namespace occtune::cli {

void print_plan(std::ostream& out, const Plan& plan, const DeviceInfo& device, Shape shape);
// CSV: one header, then one record per candidate with its shape and family (RFC 4180).
void print_plan_csv_header(std::ostream& out);
void print_plan_csv(std::ostream& out, const Plan& plan, Shape shape);

}  // namespace occtune::cli
