// add_problem (autotuner/output/problem_json.hpp).
#include "autotuner/output/problem_json.hpp"

#include "autotuner/core/user_family.hpp"

namespace occtune::output {

void add_problem(nlohmann::json& j, std::string_view family, Shape shape, const char* key) {
  const UserFamily* f = find_user_family(family);
  if (!f) return;
  nlohmann::json dims = nlohmann::json::object();
  for (const auto& [name, value] : to_dims(*f, shape).values) dims[name] = value;
  j[key] = std::move(dims);
}

}  // namespace occtune::output
