#include "autotuner/core/outcome.hpp"

#include <array>
#include <utility>

namespace occtune {
namespace {
constexpr std::array<std::pair<Outcome, std::string_view>, 8> kNames = {{
    {Outcome::kOk, "ok"},
    {Outcome::kInvalidConfig, "invalid_config"},
    {Outcome::kExceedsLimits, "exceeds_limits"},
    {Outcome::kLaunchFailed, "launch_failed"},
    {Outcome::kWrongResult, "wrong_result"},
    {Outcome::kCrashed, "crashed"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kCompileFailed, "compile_failed"},
}};
}  // namespace

std::string_view to_string(Outcome outcome) {
  for (auto& [o, name] : kNames)
    if (o == outcome) return name;
  return "unknown";
}

std::optional<Outcome> outcome_from_string(std::string_view text) {
  for (auto& [o, name] : kNames)
    if (name == text) return o;
  return std::nullopt;
}

}  // namespace occtune
