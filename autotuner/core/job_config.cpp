#include "autotuner/core/job_config.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "autotuner/core/cost_prune.hpp"
#include "autotuner/core/embedded_configs.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/toml.hpp"  // toml++ with the 3.3.0 fix
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

// [job] problem / problems: each inline table's integers, written as --problem takes them.
std::vector<std::string> job_problems(const toml::table& job, const std::string& origin) {
  if (job.contains("problem") && job.contains("problems"))
    bad(origin, "'job.problem' and 'job.problems' are both given; give one problem as "
                "problem = { nx = 4096, ny = 4096 } or several as problems = [{ ... }, { ... }]");
  std::vector<std::pair<std::string, const toml::node*>> tables;  // key, table
  if (auto node = job.get("problem")) {
    tables.emplace_back("job.problem", node);
  } else if (auto list = job.get("problems")) {
    auto* array = list->as_array();
    if (!array || array->empty())
      bad(origin, fmt::format("'job.problems' must be a non-empty array of tables, e.g. problems "
                              "= [{{ nx = 4096, ny = 4096 }}] (line {})",
                              list->source().begin.line));
    for (std::size_t i = 0; i < array->size(); ++i)
      tables.emplace_back(fmt::format("job.problems[{}]", i), array->get(i));
  }
  std::vector<std::string> out;
  for (const auto& [key, node] : tables) {
    auto* t = node->as_table();
    if (!t || t->empty())
      bad(origin, fmt::format("'{}' must be a table of named dimensions, e.g. {{ nx = 4096, ny = "
                              "4096 }} (line {})",
                              key, node->source().begin.line));
    std::string text;
    for (auto& [name, value] : *t) {
      if (!value.is_integer()) {
        const std::string shown =
            value.is_string()           ? fmt::format("\"{}\"", *value.value<std::string>())
            : value.is_floating_point() ? fmt::format("{}", *value.value<double>())
            : value.is_boolean()        ? std::string(*value.value<bool>() ? "true" : "false")
            : value.is_table()          ? std::string("a table")
            : value.is_array()          ? std::string("an array")
                                        : std::string("a date or time");
        bad(origin, fmt::format("'{}.{}' = {} must be an integer, e.g. {} = 4096 (line {})", key,
                                name.str(), shown, name.str(), value.source().begin.line));
      }
      text += fmt::format("{}{}={}", text.empty() ? "" : ",", name.str(),
                          value.value<std::int64_t>().value());
    }
    out.push_back(std::move(text));
  }
  return out;
}

double number(const toml::table& table, const std::string& key, const std::string& where,
              const std::string& origin, double fallback) {
  auto node = table.get(key);
  if (!node) return fallback;
  if (!node->is_integer() && !node->is_floating_point())
    bad(origin, fmt::format("'{}{}' must be a number (line {})", where, key,
                            node->source().begin.line));
  return node->value<double>().value();
}

}  // namespace

SettingNames config_key_names() {
  return [](std::string_view field) {
    // Policy fields live in [measure], search fields in [search]; a few keys are spelt
    // differently from the struct fields.
    static const std::pair<std::string_view, std::string_view> renamed[] = {
        {"min_time_s", "measure.min_seconds"}, {"time_budget_s", "search.time_budget"}};
    for (auto& [f, key] : renamed)
      if (f == field) return fmt::format("'{}'", key);
    static const std::string_view search_fields[] = {
        "strategy",        "screen_samples", "drop_factor",    "finalists",
        "confirm_samples", "tie_level",      "max_candidates", "prune",
        "prune_factor",    "prune_keep",     "abandon_factor", "behind_factor"};
    for (auto f : search_fields)
      if (f == field) return fmt::format("'search.{}'", field);
    return fmt::format("'measure.{}'", field);
  };
}

void validate_protocol(const TimingPolicy& p, const SearchSettings& s, const SettingNames& name) {
  auto check = [&](bool ok, std::string_view field, const std::string& value,
                   std::string_view rule) {
    if (!ok)
      fail(ExitCode::kUsage, fmt::format("{} = {} {}", name(field), value, rule));
  };
  auto num = [](double v) { return fmt::format("{}", v); };
  check(p.min_time_s >= 0 && p.min_time_s <= 3600, "min_time_s", num(p.min_time_s),
        "must be in [0, 3600] seconds");
  check(p.target_noise > 0 && p.target_noise <= 1, "target_noise", num(p.target_noise),
        "must be in (0, 1] (a relative IQR, e.g. 0.02)");
  check(p.max_seconds_per_candidate > 0 && p.max_seconds_per_candidate <= 3600,
        "max_seconds_per_candidate", num(p.max_seconds_per_candidate),
        "must be in (0, 3600] seconds");
  check(p.max_samples >= p.samples, "max_samples", std::to_string(p.max_samples),
        fmt::format("must be at least the minimum samples ({} = {})", name("samples"), p.samples));
  check(p.tolerance > 0 && p.tolerance < 1, "tolerance", num(p.tolerance), "must be in (0, 1)");
  check(p.settle_timeout_ms >= p.settle_ms, "settle_timeout_ms",
        std::to_string(p.settle_timeout_ms),
        fmt::format("must be at least {} ({})", name("settle_ms"), p.settle_ms));
  check(p.throttle_ratio >= 0 && p.throttle_ratio <= 1, "throttle_ratio", num(p.throttle_ratio),
        "must be in [0, 1] (0 turns the throttle test off)");
  try {
    validate_strategy(s.strategy);
  } catch (const Error& e) {
    fail(ExitCode::kUsage, name("strategy") + ": " + e.what());
  }
  check(s.drop_factor == 0 || s.drop_factor > 1, "drop_factor", num(s.drop_factor),
        "must be 0 (never drop) or greater than 1");
  check(s.tie_level > 0 && s.tie_level < 1, "tie_level", num(s.tie_level),
        "must be in (0, 1), e.g. 0.95");
  check(s.time_budget_s >= 0, "time_budget_s", num(s.time_budget_s),
        "must be 0 (no budget) or a positive number of seconds");
  try {
    validate_prune(s.prune);
  } catch (const Error& e) {
    fail(ExitCode::kUsage, name("prune") + ": " + e.what());
  }
  check(s.prune_factor >= 1 && s.prune_factor <= 1000, "prune_factor", num(s.prune_factor),
        "must be in [1, 1000] (a factor of the best cost estimate, e.g. 2)");
  check(s.prune_keep >= 0, "prune_keep", std::to_string(s.prune_keep),
        "must be 0 or more (candidates kept per family whatever their estimate)");
  check(s.abandon_factor == 0 || (s.abandon_factor > 1 && s.abandon_factor <= 1000),
        "abandon_factor", num(s.abandon_factor),
        "must be 0 (never abandon) or in (1, 1000] (a factor of the shape's best median, e.g. "
        "1.25)");
  check(s.behind_factor == 0 || (s.behind_factor > 1 && s.behind_factor <= 1000),
        "behind_factor", num(s.behind_factor),
        "must be 0 (off) or in (1, 1000] (a factor of the shape's best median, e.g. 1.05)");
}

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
    bad(origin, fmt::format("malformed TOML at line {}, column {}: {}; fix the file there (see "
                            "configs/default.toml for the format)",
                            e.source().begin.line, e.source().begin.column, e.description()));
  }
  // [[kernel]] tables are source kernels (autotuner/source/source_job.hpp reads them; the CLI
  // registers them as families before this file is read).
  reject_unknown(root, {"version", "job", "measure", "search", "check", "kernel"}, "", origin);
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
    reject_unknown(*t, {"kernels", "shapes", "layout", "min_tile", "device", "db", "problem",
                        "problems"},
                   "job.", origin);
    job.problems = job_problems(*t, origin);
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
    if (t->contains("layout")) {
      const auto text = get<std::string>(*t, "layout", "job.", origin, "", "a string");
      const auto layout = parse_layout(text);
      if (!layout) bad(origin, "job.layout: " + layout_error(text));
      job.layout = *layout;
    }
    job.min_tile = positive_int(*t, "min_tile", "job.", origin, 0, 1);
    if (t->contains("device")) job.device = get<std::string>(*t, "device", "job.", origin, "", "a string");
    if (t->contains("db")) job.db = get<std::string>(*t, "db", "job.", origin, "", "a string");
  }
  if (auto node = root.get("measure")) {
    auto* t = node->as_table();
    if (!t) bad(origin, "'measure' must be a table ([measure])");
    reject_unknown(*t, {"warmup", "samples", "min_seconds", "target_noise",
                        "max_seconds_per_candidate", "max_samples", "batch", "flush_l2",
                        "tolerance", "seed", "settle_ms", "settle_timeout_ms", "throttle_ratio",
                        "throttle_retries", "candidate_timeout_s"}, "measure.", origin);
    auto& p = job.policy;
    const std::string w = "measure.";
    p.warmup = positive_int(*t, "warmup", w, origin, p.warmup, 0);
    p.samples = positive_int(*t, "samples", w, origin, p.samples, 1);
    p.min_time_s = number(*t, "min_seconds", w, origin, p.min_time_s);
    p.target_noise = number(*t, "target_noise", w, origin, p.target_noise);
    p.max_seconds_per_candidate =
        number(*t, "max_seconds_per_candidate", w, origin, p.max_seconds_per_candidate);
    p.max_samples = positive_int(*t, "max_samples", w, origin, p.max_samples, 1);
    p.batch = positive_int(*t, "batch", w, origin, p.batch, 1);
    p.flush_l2 = get<bool>(*t, "flush_l2", w, origin, p.flush_l2, "true or false");
    p.tolerance = number(*t, "tolerance", w, origin, p.tolerance);
    if (auto seed = t->get("seed")) {
      if (!seed->is_integer() || seed->value<std::int64_t>().value() < 0)
        bad(origin, fmt::format("'measure.seed' must be a non-negative integer (line {})",
                                seed->source().begin.line));
      p.seed = std::uint64_t(seed->value<std::int64_t>().value());
    }
    p.settle_ms = positive_int(*t, "settle_ms", w, origin, p.settle_ms, 0);
    p.settle_timeout_ms = positive_int(*t, "settle_timeout_ms", w, origin, p.settle_timeout_ms, 0);
    p.throttle_ratio = number(*t, "throttle_ratio", w, origin, p.throttle_ratio);
    p.throttle_retries = positive_int(*t, "throttle_retries", w, origin, p.throttle_retries, 0);
    if (t->contains("candidate_timeout_s")) {
      const double v = number(*t, "candidate_timeout_s", w, origin, 0);
      if (!(v > 0 && v <= kMaxCandidateTimeoutS))
        bad(origin, fmt::format("'measure.candidate_timeout_s' = {} must be in (0, {}] seconds",
                                v, kMaxCandidateTimeoutS));
      job.candidate_timeout_s = v;
    }
  }
  if (auto node = root.get("search")) {
    auto* t = node->as_table();
    if (!t) bad(origin, "'search' must be a table ([search])");
    reject_unknown(
        *t,
        {"strategy", "screen_samples", "drop_factor", "finalists", "confirm_samples", "tie_level",
         "time_budget", "max_candidates", "prune", "prune_factor", "prune_keep", "abandon_factor",
         "behind_factor"},
        "search.", origin);
    auto& s = job.search;
    const std::string w = "search.";
    s.strategy = get<std::string>(*t, "strategy", w, origin, s.strategy, "a string");
    s.screen_samples = positive_int(*t, "screen_samples", w, origin, s.screen_samples, 1);
    s.drop_factor = number(*t, "drop_factor", w, origin, s.drop_factor);
    s.finalists = positive_int(*t, "finalists", w, origin, s.finalists, 1);
    s.confirm_samples = positive_int(*t, "confirm_samples", w, origin, s.confirm_samples, 0);
    s.tie_level = number(*t, "tie_level", w, origin, s.tie_level);
    s.time_budget_s = number(*t, "time_budget", w, origin, s.time_budget_s);
    s.max_candidates = positive_int(*t, "max_candidates", w, origin, s.max_candidates, 0);
    s.prune = get<std::string>(*t, "prune", w, origin, s.prune, "a string");
    s.prune_factor = number(*t, "prune_factor", w, origin, s.prune_factor);
    s.prune_keep = positive_int(*t, "prune_keep", w, origin, s.prune_keep, 0);
    s.abandon_factor = number(*t, "abandon_factor", w, origin, s.abandon_factor);
    s.behind_factor = number(*t, "behind_factor", w, origin, s.behind_factor);
  }
  try {
    validate_protocol(job.policy, job.search, config_key_names());
  } catch (const Error& e) {
    bad(origin, e.what());
  }
  if (auto node = root.get("check")) {
    auto* t = node->as_table();
    if (!t) bad(origin, "'check' must be a table ([check])");
    reject_unknown(*t, {"threshold", "runners_up"}, "check.", origin);
    if (auto threshold = t->get("threshold")) {
      const auto percent = threshold->value<double>();
      if (!(threshold->is_integer() || threshold->is_floating_point()) || !percent ||
          !(*percent > 0 && *percent < 100))
        bad(origin, fmt::format("'check.threshold' must be a percentage in (0, 100), e.g. 5 "
                                "(line {})",
                                threshold->source().begin.line));
      job.check.threshold = *percent / 100.0;
    }
    job.check.runners_up = positive_int(*t, "runners_up", "check.", origin, job.check.runners_up, 0);
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
