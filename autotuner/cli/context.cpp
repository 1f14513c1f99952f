#include "autotuner/cli/context.hpp"

#include <cstdlib>
#include <utility>
#include <vector>

#include "autotuner/core/error.hpp"

namespace occtune::cli {

Format parse_format(const std::string& text, bool csv_allowed) {
  if (text == "table") return Format::kTable;
  if (text == "json") return Format::kJson;
  if (text == "csv" && csv_allowed) return Format::kCsv;
  fail(ExitCode::kUsage, "unknown format '" + text + "'; use " +
                             (csv_allowed ? "table, json or csv" : "table or json"));
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

namespace {

// The values resolve() answered from the environment in this process, with their variables.
std::vector<std::pair<std::string, std::string>>& env_sourced() {
  static std::vector<std::pair<std::string, std::string>> values;
  return values;
}

}  // namespace

void note_env_source(const std::string& value, const char* variable) {
  env_sourced().emplace_back(value, variable);
}

std::string name_env_source(const std::string& message) {
  for (auto& [value, variable] : env_sourced())
    if (message.find("'" + value + "'") != std::string::npos &&
        message.find(variable) == std::string::npos)
      return message + " (from " + variable + ")";
  return message;
}

std::string resolve(const std::string& flag, const char* env_name, const std::string& config,
                    const std::string& fallback) {
  if (!flag.empty()) return flag;
  // Set but empty is a mistake (an unexpanded variable in a script), not "use the default".
  if (const char* v = std::getenv(env_name); v && !*v)
    fail(ExitCode::kUsage, std::string(env_name) +
                               " is set but empty; give it a value or unset "
                               "it");
  if (auto v = env_or(env_name, ""); !v.empty()) {
    note_env_source(v, env_name);
    return v;
  }
  if (!config.empty()) return config;
  return fallback;
}

}  // namespace occtune::cli
