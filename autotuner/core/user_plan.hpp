// Candidate generation for a user kernel family (occtune/kernel.hpp): the textbook occupancy
// walk of every configuration with the family's shared-memory function, snapped by its block
// rule, annotated with the family's own grid, after the whole space is checked against the
// device's shared memory.
#pragma once

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/user_family.hpp"

namespace occtune {

// Throws Error(kUsage) naming the family, the value and the fix when no configuration can run
// on the device at any block (shared memory above the limit for every block), or when the
// family's grid is not launchable for the problem (a side of 0). `problem` holds the family's
// dimensions as to_shape() writes them.
Plan plan_user_family(const UserFamily& family, const DeviceInfo& device, Shape problem,
                      OccupancyOracle& oracle);

}  // namespace occtune
