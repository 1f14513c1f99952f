// Enumerates and evaluates the configurations of a source kernel (configurations.hpp).
#include "autotuner/source/configurations.hpp"

#include <fmt/format.h>

#include "autotuner/core/error.hpp"

namespace occtune::source {
namespace {

constexpr std::int64_t kMaxExtent = 2147483647;

std::int64_t eval_in(const Expr& e, const Bindings& values, const std::string& context) {
  try {
    return e.eval(values);
  } catch (const Error& err) {
    fail(ExitCode::kUsage, context + err.what());
  }
}

std::string with_values(const Bindings& values) {
  std::string out;
  for (auto& [k, v] : values) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out;
}

}  // namespace

std::string Configuration::label() const {
  std::string out;
  for (auto& [name, value] : params)
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", name, value);
  return out;
}

LaunchGeometry evaluate_launch(const Launch& launch, Bindings values, const std::string& context) {
  LaunchGeometry g;
  auto extent = [&](const Expr& e, std::int64_t v) {
    if (v < 1 || v > kMaxExtent)
      fail(ExitCode::kUsage,
           fmt::format("{}{} = '{}' is {} (with {}); it must be 1 to 2^31 - 1: exclude such "
                       "configurations with a constraint or change the expression",
                       context, e.where(), e.text(), v, with_values(values)));
    return v;
  };
  for (std::size_t i = 0; i < launch.block.size(); ++i)
    g.block[i] = extent(launch.block[i], eval_in(launch.block[i], values, context));
  values["block_x"] = g.block[0];
  values["block_y"] = g.block[1];
  values["block_z"] = g.block[2];
  values["threads"] = g.threads();  // at most (2^31)^3 would overflow; extents are checked above
  for (std::size_t i = 0; i < launch.grid.size(); ++i)
    g.grid[i] = extent(launch.grid[i], eval_in(launch.grid[i], values, context));
  g.smem = eval_in(launch.smem, values, context);
  if (g.smem < 0 || g.smem > kMaxExtent)
    fail(ExitCode::kUsage,
         fmt::format("{}{} = '{}' is {} bytes (with {}); it must be 0 to 2^31 - 1", context,
                     launch.smem.where(), launch.smem.text(), g.smem, with_values(values)));
  return g;
}

std::vector<Configuration> enumerate_configurations(const SourceKernel& k) {
  std::int64_t product = 1;
  for (auto& p : k.parameters) {
    product *= static_cast<std::int64_t>(p.values.size());
    if (product > kMaxCrossProduct)
      fail(ExitCode::kUsage,
           fmt::format("kernel '{}': the parameters span more than {} configurations before the "
                       "constraints; list fewer values",
                       k.name, kMaxCrossProduct));
  }
  const std::string context = fmt::format("kernel '{}': ", k.name);
  if (!k.reference.kernel.empty())
    evaluate_launch(k.reference.launch, k.problem_bindings(), context);
  std::vector<Configuration> out;
  std::vector<std::size_t> index(k.parameters.size(), 0);
  for (std::int64_t n = 0; n < product; ++n) {
    Bindings values = k.problem_bindings();
    Configuration c;
    for (std::size_t i = 0; i < k.parameters.size(); ++i) {
      const auto& p = k.parameters[i];
      values[p.name] = p.values[index[i]];
      c.params.emplace_back(p.name, p.values[index[i]]);
    }
    bool keep = true;
    for (auto& constraint : k.constraints) keep = keep && eval_in(constraint, values, context) != 0;
    if (keep) {
      c.name_expression = k.kernel;
      for (auto& [name, value] : c.params) {
        const std::string placeholder = "{" + name + "}";
        if (!k.in_name(name)) {
          c.defines.push_back(fmt::format("-D{}={}", name, value));
          continue;
        }
        for (std::size_t at; (at = c.name_expression.find(placeholder)) != std::string::npos;)
          c.name_expression.replace(at, placeholder.size(), std::to_string(value));
      }
      c.launch = evaluate_launch(k.launch, values, context);
      out.push_back(std::move(c));
    }
    // The last parameter varies fastest, like nested loops in declaration order.
    for (std::size_t i = k.parameters.size(); i-- > 0;) {
      if (++index[i] < k.parameters[i].values.size()) break;
      index[i] = 0;
    }
  }
  if (out.empty())
    fail(ExitCode::kUsage, fmt::format("kernel '{}': the constraints exclude every one of the {} "
                                       "configurations; relax them or add values",
                                       k.name, product));
  return out;
}

}  // namespace occtune::source
