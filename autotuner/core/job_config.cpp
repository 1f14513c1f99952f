#include "autotuner/core/job_config.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "autotuner/core/embedded_configs.hpp"
#include "autotuner/core/error.hpp"
#include "kernels/registry.hpp"

namespace occtune {
namespace {

[[noreturn]] void bad(const std::string& origin, const std::string& what) {
  fail(ExitCode::kUsage, fmt::format("config {}: {}", origin, what));
}

void reject_unknown(const toml::table& table, const std::set<std::string>& known,
                    const std::string& where, const std::string& origin) {
  for (auto& [key, value] : table) {
    if (!known.count(std::string(key.str()))) {
      std::string names;
      for (auto& k : known) names += (names.empty() ? "" : ", ") + k;
      bad(origin, fmt::format("unknown key '{}{}' (line {}); known keys here: {}", where,
                              key.str(), key.source().begin.line, names));
    }
  }
}

template <class T>
T get(const toml::table& table, const std::string& key, const std::string& where,
      const std::string& origin, T fallback, const char* type_name) {
  auto node = table.get(key);
  if (!node) return fallback;
  auto value = node->value<T>();
  if (!value || (std::is_same_v<T, bool> != node->is_boolean()))
    bad(origin, fmt::format("'{}{}' must be {} (line {})", where, key, type_name,
                            node->source().begin.line));
  return *value;
}

int positive_int(const toml::table& table, const std::string& key, const std::string& where,
                 const std::string& origin, int fallback, int min_value) {
  auto node = table.get(key);
  if (!node) return fallback;
  if (!node->is_integer())
    bad(origin, fmt::format("'{}{}' must be an integer (line {})", where, key,
                            node->source().begin.line));
  auto v = node->value<std::int64_t>().value();
  if (v < min_value || v > 1000000)
    bad(origin, fmt::format("'{}{}' = {} is out of range; use {}..1000000", where, key, v,
                            min_value));
  return int(v);
}

std::vector<std::string> string_array(const toml::table& table, const std::string& key,
                                      const std::string& where, const std::string& origin) {
  std::vector<std::string> out;
  auto node = table.get(key);
  if (!node) return out;
  auto* array = node->as_array();
  if (!array)
    bad(origin, fmt::format("'{}{}' must be an array of strings (line {})", where, key,
                            node->source().begin.line));
  for (auto& item : *array) {
    auto s = item.value<std::string>();
    if (!s || !item.is_string())
      bad(origin, fmt::format("'{}{}' must contain only strings (line {})", where, key,
                              item.source().begin.line));
    out.push_back(*s);
  }
  return out;
}

}  // namespace

void validate_kernel_name(const std::string& name) {
  if (!kernels::find_family(name))
    fail(ExitCode::kUsage, fmt::format("unknown kernel '{}'; known kernels: {}", name,
                                       kernels::family_names()));
}

JobConfig parse_job_config(std::string_view toml_text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    bad(origin, fmt::format("malformed TOML at line {}, column {}: {}", e.source().begin.line,
                            e.source().begin.column, e.description()));
  }
  reject_unknown(root, {"version", "job", "measure"}, "", origin);
  auto version = root.get("version");
  if (!version) bad(origin, fmt::format("missing 'version'; add `version = {}` at the top",
                                        kJobConfigVersion));
  if (!version->is_integer() || version->value<std::int64_t>() != kJobConfigVersion)
    bad(origin, fmt::format("unsupported version (line {}); this occtune reads version = {}",
                            version->source().begin.line, kJobConfigVersion));

  JobConfig job;
  job.origin = origin;
  if (auto node = root.get("job")) {
    auto* t = node->as_table();
    if (!t) bad(origin, "'job' must be a table ([job])");
    reject_unknown(*t, {"kernels", "shapes", "min_tile", "device", "db"}, "job.", origin);
    job.kernels = string_array(*t, "kernels", "job.", origin);
    for (auto& k : job.kernels) {
      try {
        validate_kernel_name(k);
      } catch (const Error& e) {
        bad(origin, std::string("job.kernels: ") + e.what());
      }
    }
    for (auto& s : string_array(*t, "shapes", "job.", origin)) {
      try {
        job.shapes.push_back(parse_shape(s));
      } catch (const Error& e) {
        bad(origin, std::string("job.shapes: ") + e.what());
      }
    }
    job.min_tile = positive_int(*t, "min_tile", "job.", origin, 0, 1);
    if (t->contains("device")) job.device = get<std::string>(*t, "device", "job.", origin, "", "a string");
    if (t->contains("db")) job.db = get<std::string>(*t, "db", "job.", origin, "", "a string");
  }
  if (auto node = root.get("measure")) {
    auto* t = node->as_table();
    if (!t) bad(origin, "'measure' must be a table ([measure])");
    reject_unknown(*t, {"warmup", "samples", "flush_l2", "tolerance", "seed",
                        "max_seconds_per_candidate"}, "measure.", origin);
    auto& p = job.policy;
    p.warmup = positive_int(*t, "warmup", "measure.", origin, p.warmup, 0);
    p.samples = positive_int(*t, "samples", "measure.", origin, p.samples, 1);
    p.flush_l2 = get<bool>(*t, "flush_l2", "measure.", origin, p.flush_l2, "true or false");
    p.tolerance = get<double>(*t, "tolerance", "measure.", origin, p.tolerance, "a number");
    if (!(p.tolerance > 0 && p.tolerance < 1))
      bad(origin, fmt::format("'measure.tolerance' = {} must be in (0, 1)", p.tolerance));
    if (auto seed = t->get("seed")) {
      if (!seed->is_integer() || seed->value<std::int64_t>().value() < 0)
        bad(origin, fmt::format("'measure.seed' must be a non-negative integer (line {})",
                                seed->source().begin.line));
      p.seed = std::uint64_t(seed->value<std::int64_t>().value());
    }
    p.max_seconds_per_candidate = get<double>(*t, "max_seconds_per_candidate", "measure.",
                                              origin, p.max_seconds_per_candidate, "a number");
    if (!(p.max_seconds_per_candidate > 0))
      bad(origin, "'measure.max_seconds_per_candidate' must be positive");
  }
  return job;
}

JobConfig load_job_config(const std::string& path) {
  if (path.empty()) {
    for (auto& f : embedded_configs())
      if (f.path == "default.toml") return parse_job_config(f.contents, "built-in default.toml");
    fail(ExitCode::kRuntime, "the built-in default.toml is missing from this build");
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(ExitCode::kUsage, fmt::format("config file '{}' does not exist or is not a file; pass "
                                       "--config with a TOML job file (see configs/default.toml)",
                                       path));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) fail(ExitCode::kUsage, fmt::format("config file '{}' cannot be read", path));
  return parse_job_config(text.str(), path);
}

}  // namespace occtune
