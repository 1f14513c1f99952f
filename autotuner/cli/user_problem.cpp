// user_problem_shapes (autotuner/cli/user_problem.hpp).
#include "autotuner/cli/user_problem.hpp"

#include <fmt/format.h>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"

namespace occtune::cli {

std::vector<std::string> user_problem_shapes(std::vector<std::string>& kernels,
                                             const std::vector<std::string>& problems,
                                             const std::vector<std::string>& shapes) {
  const UserFamily* first = nullptr;
  for (const auto& k : kernels) {
    const UserFamily* f = find_user_family(k);
    if (!first && f) first = f;
    if (bool(f) != bool(find_user_family(kernels.front())))
      fail(ExitCode::kUsage, fmt::format("'{}' and '{}' are a user kernel family and a built-in "
                                         "GEMM family; tune them in separate runs",
                                         kernels.front(), k));
    if (f && first && f->def.dims != first->def.dims)
      fail(ExitCode::kUsage,
           fmt::format("kernel families '{}' and '{}' have different problem dimensions ({} and "
                       "{}); give them separate runs",
                       first->def.name, f->def.name, fmt::join(first->def.dims, ","),
                       fmt::join(f->def.dims, ",")));
  }
  if (problems.empty()) {
    if (first)
      fail(ExitCode::kUsage,
           fmt::format("kernel family '{}' takes its problem as --problem {}=N,...; give one "
                       "(or [job] problem = {{ {} = N, ... }} in the job file)",
                       first->def.name, first->def.dims.front(), first->def.dims.front()));
    return shapes;
  }
  if (!shapes.empty())
    fail(ExitCode::kUsage,
         "--problem (user kernel families) and --shape (GEMM) were both given; "
         "give --problem with --kernel NAME of a user family, or --shape alone");
  if (!first) {
    const auto all = user_families();
    std::string names;
    for (const UserFamily* f : all) names += (names.empty() ? "" : ", ") + f->def.name;
    if (!kernels.empty() || all.size() != 1)
      fail(ExitCode::kUsage,
           fmt::format("--problem needs --kernel naming a user kernel family ({})",
                       all.empty() ? "this program registers none" : "registered: " + names));
    first = all.front();
    kernels = {first->def.name};
  }
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(to_shape(*first, parse_problem(*first, p)).str());
  return out;
}

}  // namespace occtune::cli
