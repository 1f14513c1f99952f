// --problem nx=4096,ny=4096: the problems of user kernel families (occtune/kernel.hpp) on the
// command line, turned into the shapes the engine and the store key them by.
#pragma once

#include <string>
#include <vector>

namespace occtune::cli {

// The --shape values a command works on. Without user families named (and no --problem) these
// are `shapes` unchanged. With --problem, `kernels` must name user families with the same
// dimensions (or be empty while exactly one user family is registered: it is filled in), no
// --shape may be given, and each problem becomes its "AxBxC" shape. Throws Error(kUsage) naming
// the value and the fix otherwise, also for a user family named without --problem.
std::vector<std::string> user_problem_shapes(std::vector<std::string>& kernels,
                                             const std::vector<std::string>& problems,
                                             const std::vector<std::string>& shapes);

}  // namespace occtune::cli
