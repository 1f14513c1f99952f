// Export documents are checked whole before the import transaction (db/import_validation.hpp):
// a hand-edited or forged file must not plant a best configuration the store would then serve
// as measured (an `ok` row with a huge error, a run dated 9999, a string where a time belongs).
// Field rules follow docs/schema/export.schema.json; the store's rules add what the schema
// cannot say (known kernels, outcomes consistent with errors, ordered quartiles, dates).
#include "db/import_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/model_json.hpp"
#include "autotuner/core/records.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/user_family.hpp"
#include "db/codec.hpp"
#include "db/exchange.hpp"
#include "kernels/kernel_manifest.hpp"
#include "kernels/registry.hpp"
#include "occtune/layout.hpp"

namespace occtune::db {
namespace {

using nlohmann::json;

constexpr std::size_t kShownChars = 64;  // offending values are quoted, cut to this length

// A value as the message quotes it: its JSON text, cut.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kShownChars) text = text.substr(0, kShownChars) + "...";
  return text;
}

std::string type_of(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
}

[[noreturn]] void bad(const std::string& origin, const std::string& path,
                      const std::string& problem) {
  fail(ExitCode::kUsage,
       fmt::format("export '{}': {} {}; nothing was imported; pass a file written by `occtune "
                   "export`",
                   origin, path.empty() ? std::string("the document") : path, problem));
}

// --- parsing with the path of the problem ----------------------------------------------------

// Where the parser is, kept from its callback events, so an error names a JSON path.
class PathTracker {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        frames_.push_back({false, 0, {}});
        break;
      case json::parse_event_t::array_start:
        frames_.push_back({true, 0, {}});
        break;
      case json::parse_event_t::key:
        if (!frames_.empty()) frames_.back().key = parsed.get<std::string>();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

  std::string path() const {
    std::string out;
    for (auto& f : frames_) {
      if (f.array)
        out += fmt::format("[{}]", f.index);
      else if (!f.key.empty())
        out += (out.empty() ? "" : ".") + f.key;
    }
    return out;
  }

 private:
  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  struct Frame {
    bool array;
    std::size_t index;
    std::string key;
  };
  std::vector<Frame> frames_;
};

// The deepest nesting of arrays and objects, found without recursion; strings are skipped.
void check_depth(const std::string& text, const std::string& origin, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        fail(ExitCode::kUsage,
             fmt::format("export '{}' nests arrays and objects deeper than {} levels (at byte "
                         "{}); nothing was imported; an occtune export nests 6 levels, pass a "
                         "file written by `occtune export`",
                         origin, max_depth, i));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// --- field rules -----------------------------------------------------------------------------

// Reads and checks the fields of one object, each problem naming its JSON path.
class Fields {
 public:
  Fields(const json& object, std::string path, const std::string& origin,
         const ImportLimits& limits)
      : object_(object), path_(std::move(path)), origin_(origin), limits_(limits) {
    if (!object_.is_object())
      bad(origin_, path_, fmt::format("is {}, not an object", type_of(object_)));
  }

  std::string at(std::string_view name) const {
    return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  }
  [[noreturn]] void bad_field(std::string_view name, const std::string& problem) const {
    bad(origin_, at(name), problem);
  }
  const json* find(std::string_view name) const {
    auto it = object_.find(std::string(name));
    return it == object_.end() ? nullptr : &*it;
  }
  const json& require(std::string_view name) const {
    if (auto* v = find(name)) return *v;
    bad(origin_, path_, fmt::format("has no \"{}\"", name));
  }

  std::int64_t integer(std::string_view name, std::int64_t min, std::int64_t max) const {
    return integer_value(require(name), name, min, max);
  }
  std::int64_t integer_value(const json& v, std::string_view name, std::int64_t min,
                             std::int64_t max) const {
    if (!v.is_number_integer())
      bad_field(name, fmt::format("is {} ({}), but must be an integer", shown(v), type_of(v)));
    const bool too_big =
        v.is_number_unsigned() &&
        v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max());
    const std::int64_t value =
        too_big ? std::numeric_limits<std::int64_t>::max() : v.get<std::int64_t>();
    if (too_big || value < min || value > max)
      bad_field(name, fmt::format("is {}, outside {}..{}", shown(v), min, max));
    return value;
  }
  std::optional<std::int64_t> optional_integer(std::string_view name, std::int64_t min,
                                               std::int64_t max, bool nullable = false) const {
    const json* v = find(name);
    if (!v || (nullable && v->is_null())) return std::nullopt;
    return integer_value(*v, name, min, max);
  }

  double number_value(const json& v, std::string_view name, double min, double max) const {
    if (!v.is_number())
      bad_field(name, fmt::format("is {} ({}), but must be a number", shown(v), type_of(v)));
    const double value = v.get<double>();
    if (!std::isfinite(value) || value < min || value > max)
      bad_field(name, fmt::format("is {}, outside {}..{}", shown(v), min, max));
    return value;
  }
  double number(std::string_view name, double min, double max = 1e300) const {
    return number_value(require(name), name, min, max);
  }
  std::optional<double> nullable_number(std::string_view name, double min, bool required) const {
    const json* v = required ? &require(name) : find(name);
    if (!v || v->is_null()) return std::nullopt;
    return number_value(*v, name, min, 1e300);
  }

  std::string text(std::string_view name, std::size_t max_bytes, bool non_empty = false) const {
    return text_value(require(name), name, max_bytes, non_empty);
  }
  std::string text_value(const json& v, std::string_view name, std::size_t max_bytes,
                         bool non_empty) const {
    if (!v.is_string())
      bad_field(name, fmt::format("is {} ({}), but must be a string", shown(v), type_of(v)));
    const auto& s = v.get_ref<const std::string&>();
    if (non_empty && s.empty()) bad_field(name, "is empty");
    if (s.size() > max_bytes)
      bad_field(name,
                fmt::format("is {} bytes long (at most {}): {}", s.size(), max_bytes, shown(v)));
    return s;
  }
  std::optional<bool> optional_boolean(std::string_view name) const {
    const json* v = find(name);
    if (!v) return std::nullopt;
    if (!v->is_boolean())
      bad_field(name, fmt::format("is {} ({}), but must be true or false", shown(*v), type_of(*v)));
    return v->get<bool>();
  }
  std::optional<std::string> optional_text(std::string_view name, std::size_t max_bytes) const {
    const json* v = find(name);
    if (!v || v->is_null()) return std::nullopt;
    return text_value(*v, name, max_bytes, false);
  }

  const json& array(std::string_view name, std::size_t max_items) const {
    const json& v = require(name);
    if (!v.is_array()) bad_field(name, fmt::format("is {}, but must be an array", type_of(v)));
    if (v.size() > max_items)
      bad_field(name, fmt::format("has {} items (at most {})", v.size(), max_items));
    return v;
  }
  const json& object(std::string_view name) const {
    const json& v = require(name);
    if (!v.is_object()) bad_field(name, fmt::format("is {}, but must be an object", type_of(v)));
    return v;
  }

  void strings(std::string_view name, std::size_t max_items) const {
    const json& a = array(name, max_items);
    for (std::size_t i = 0; i < a.size(); ++i)
      text_value(a[i], fmt::format("{}[{}]", name, i), limits_.max_string, false);
  }
  // Samples are positive, finite times in milliseconds.
  std::size_t samples(std::string_view name) const {
    const json& a = array(name, limits_.max_samples);
    for (std::size_t i = 0; i < a.size(); ++i)
      if (number_value(a[i], fmt::format("{}[{}]", name, i), 0, 1e300) <= 0)
        bad_field(fmt::format("{}[{}]", name, i),
                  fmt::format("is {}, but a time must be positive", shown(a[i])));
    return a.size();
  }

  // ISO 8601 UTC as the store writes it, a real calendar date, and not in the future.
  void timestamp_value(const json& v, std::string_view name) const {
    const std::string s = text_value(v, name, 40, true);
    auto digits = [&](std::size_t pos, std::size_t n, int& out) {
      if (pos + n > s.size()) return false;
      auto [end, ec] = std::from_chars(s.data() + pos, s.data() + pos + n, out);
      return ec == std::errc() && end == s.data() + pos + n;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    bool ok = s.size() >= 20 && digits(0, 4, year) && s[4] == '-' && digits(5, 2, month) &&
              s[7] == '-' && digits(8, 2, day) && s[10] == 'T' && digits(11, 2, hour) &&
              s[13] == ':' && digits(14, 2, minute) && s[16] == ':' && digits(17, 2, second) &&
              s.back() == 'Z';
    if (ok && s.size() > 20) {
      ok = s[19] == '.' && s.size() > 21;
      for (std::size_t i = 20; ok && i + 1 < s.size(); ++i) ok = s[i] >= '0' && s[i] <= '9';
    }
    using namespace std::chrono;
    const year_month_day date{std::chrono::year(year), std::chrono::month(unsigned(month)),
                              std::chrono::day(unsigned(day))};
    if (!ok || !date.ok() || year < 2000 || hour > 23 || minute > 59 || second > 60)
      bad_field(name,
                fmt::format("is {}, not a UTC time written YYYY-MM-DDTHH:MM:SS.sssZ", shown(v)));
    // In seconds on both sides: nanosecond time points end in 2262, before 9999.
    const sys_seconds when = sys_days(date) + hours(hour) + minutes(minute) + seconds(second);
    if (when > time_point_cast<seconds>(system_clock::now()) + limits_.future_skew)
      bad_field(name,
                fmt::format("is {}, in the future; check the exporting machine's clock", shown(v)));
  }
  void timestamp(std::string_view name) const { timestamp_value(require(name), name); }
  const std::string& path() const { return path_; }
  const json& value() const { return object_; }

 private:
  const json& object_;
  std::string path_;
  const std::string& origin_;
  const ImportLimits& limits_;
};

constexpr std::int64_t kMaxInt = INT_MAX;
constexpr std::int64_t kMaxClockMhz = 100000;

bool is_gpu_uuid(const std::string& s) {
  // GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as the driver writes it.
  if (s.size() != 40 || s.compare(0, 4, "GPU-") != 0) return false;
  for (std::size_t i = 4; i < s.size(); ++i) {
    const bool dash = i == 12 || i == 17 || i == 22 || i == 27;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The cache-key fields of a device, with the ranges of autotuner/core/device_limits.
void check_device_key(const Fields& f, const ImportLimits& limits) {
  const std::string uuid = f.text("uuid", limits.max_name);
  if (!is_gpu_uuid(uuid))
    f.bad_field("uuid", fmt::format("is {}, not a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-"
                                    "xxxxxxxxxxxx)",
                                    shown(f.require("uuid"))));
  f.text("name", limits.max_name, true);
  f.integer("cc_major", 1, 99);
  f.integer("cc_minor", 0, 9);
  f.integer("sm_count", 1, 4096);
  f.integer("driver_version", 0, 1000000);
  f.integer("runtime_version", 0, 1000000);
}

// Stored properties are either absent ({}) or a whole device within the hardware's range: the
// heuristic lookup step plans with them.
void check_device(const json& value, const std::string& path, const std::string& origin,
                  const ImportLimits& limits) {
  const Fields f(value, path, origin, limits);
  check_device_key(f, limits);
  f.timestamp("first_seen_at");
  f.timestamp("last_seen_at");
  const json& props = f.object("properties");
  if (props.empty()) return;
  const Fields p(props, f.at("properties"), origin, limits);
  for (auto& [name, v] : props.items()) {
    if (v.is_string()) {
      p.text_value(v, name, limits.max_name, false);
    } else if (!v.is_number_integer()) {
      p.bad_field(name, fmt::format("is {} ({}), but must be an integer or a string", shown(v),
                                    type_of(v)));
    } else {
      p.integer_value(v, name, -1, std::numeric_limits<std::int64_t>::max());
    }
  }
  const DeviceInfo info = codec::device_from_json(props.dump());
  if (auto problem = device_problem(info)) p.bad_field(problem->field, problem->problem);
}

// The family's variant named by a measurement: "" (none) or one of its registered symbols.
const kernels::VariantInfo* find_variant(const std::string& family, const std::string& symbol) {
  for (auto* v : kernels::all_variants_of(family))
    if (v->symbol == symbol) return v;
  return nullptr;
}

// A variant's template head: the symbol up to its integer arguments ("NT<RegBlocked" for
// "NT<RegBlocked<128,256,8>>"), or "" when what follows the head is not integer arguments and
// closing brackets only.
std::string template_head(const std::string& symbol) {
  const auto open = symbol.find_first_of("0123456789-");
  if (open == std::string::npos || open == 0 || symbol[open - 1] != '<') return "";
  for (std::size_t i = open; i < symbol.size(); ++i) {
    const char c = symbol[i];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == ',' || c == '-' || c == '>'))
      return "";
  }
  return symbol.substr(0, open - 1);
}

// Another kernel build (a fleet node on another version, an older store) has other variants, so
// its symbols cannot be looked up in this binary's registry; they must still be one of the
// family's templates with integer arguments, never an arbitrary name ("Evil<1337>").
bool is_family_template(const std::string& family, const std::string& symbol) {
  const std::string head = template_head(symbol);
  if (head.empty()) return false;
  for (auto* v : kernels::all_variants_of(family))
    if (template_head(v->symbol) == head) return true;
  return false;
}

// "name=int,name=int", the form a variant's parameters are stored in.
bool is_param_list(const std::string& params) {
  static const std::regex form(R"(([a-z_][a-z0-9_]*=-?[0-9]+)(,[a-z_][a-z0-9_]*=-?[0-9]+)*)");
  return params.empty() || std::regex_match(params, form);
}

// A measurement of the current layout (model::to_json(StoredMeasurement)).
void check_measurement(const json& value, const std::string& path, const std::string& origin,
                       const ImportLimits& limits, const std::string& kernel, double tolerance,
                       bool this_build) {
  const Fields f(value, path, origin, limits);
  if (auto family = f.optional_text("family", limits.max_name); family && *family != kernel)
    f.bad_field("family", fmt::format("is {}, but the run's kernel is '{}'",
                                      shown(f.require("family")), kernel));
  const std::string variant = f.text("variant", limits.max_name);
  const std::string label = f.text("label", limits.max_name);
  if (!variant.empty() && !this_build) {
    if (!is_family_template(kernel, variant))
      f.bad_field("variant", fmt::format("is {}, not a variant of kernel '{}' (another kernel "
                                         "build may have other variants, but of the family's "
                                         "templates)",
                                         shown(f.require("variant")), kernel));
    if (!is_param_list(label))
      f.bad_field("label", fmt::format("is {}, not a list of name=integer parameters",
                                       shown(f.require("label"))));
  } else if (!variant.empty()) {
    const kernels::VariantInfo* v = find_variant(kernel, variant);
    if (!v)
      f.bad_field("variant", fmt::format("is {}, not a registered variant of kernel '{}'",
                                         shown(f.require("variant")), kernel));
    if (label != v->label())
      f.bad_field("label", fmt::format("is {}, but variant {} has parameters \"{}\"",
                                       shown(f.require("label")), variant, v->label()));
  }
  // The parameters twice (the label as stored, the object readers use) must say the same.
  if (f.object("params") != model::params_json(label))
    f.bad_field("params", fmt::format("is {}, but the label {} says {}", shown(f.require("params")),
                                      shown(f.require("label")),
                                      shown(model::params_json(label))));
  f.text("origin", limits.max_name);
  f.integer("step", INT_MIN, kMaxInt);
  f.integer("suggested_block", INT_MIN, kMaxInt);
  f.integer("block_limit", INT_MIN, kMaxInt);
  const std::int64_t threads = f.integer("threads", 0, 4096);
  f.require("tile");
  f.optional_integer("tile", 1, 4096, /*nullable=*/true);
  f.integer("dynamic_smem", 0, 16 << 20);
  f.integer("registers", 0, 65536);
  f.integer("active_blocks_per_sm", 0, 256);
  f.number("occupancy", 0, 1);
  f.text("limiter", limits.max_name);
  f.integer("grid_x", 0, kMaxInt);
  f.integer("grid_y", 0, kMaxInt);
  f.number("waves", 0);
  const std::string outcome = f.text("outcome", limits.max_name);
  if (!outcome_from_string(outcome))
    f.bad_field("outcome", fmt::format("is {}, not an outcome this occtune knows (see "
                                       "docs/schema/export.schema.json)",
                                       shown(f.require("outcome"))));
  const std::string error = f.text("error", limits.max_string);
  const auto rel_error = f.nullable_number("rel_error", 0, /*required=*/true);
  const Fields t(f.object("timing"), f.at("timing"), origin, limits);
  const std::int64_t count = t.integer("count", 0, std::int64_t(limits.max_samples));
  double summary[6];
  const char* names[6] = {"min_ms", "q1_ms", "median_ms", "q3_ms", "max_ms", "mean_ms"};
  for (int i = 0; i < 6; ++i) summary[i] = t.number(names[i], 0);
  for (auto name : {"noise", "ci_low_ms", "ci_high_ms"})
    if (t.find(name)) t.number(name, 0);
  f.samples("samples_ms");
  f.number("flops", 0);
  f.number("gflops", 0);
  f.integer("sm_clock_mhz", 0, kMaxClockMhz);
  for (auto name : {"sm_clock_min_mhz", "sm_clock_max_mhz"})
    f.optional_integer(name, 0, kMaxClockMhz);
  f.optional_boolean("throttled");
  f.optional_integer("throttled_batches", 0, kMaxInt);
  f.optional_text("stop_reason", limits.max_name);
  f.optional_integer("search_round", 0, kMaxInt);
  f.optional_boolean("tie");
  const bool winner = f.optional_boolean("winner").value_or(false);
  f.optional_integer("reused_from", 0, std::numeric_limits<std::int64_t>::max(), true);
  f.optional_integer("id", 0, std::numeric_limits<std::int64_t>::max(), true);
  f.optional_integer("run_id", 0, std::numeric_limits<std::int64_t>::max(), true);

  if (outcome == to_string(Outcome::kOk)) {
    if (threads < 1) f.bad_field("threads", "is 0, but an `ok` candidate ran with threads");
    if (!rel_error || *rel_error > tolerance)
      f.bad_field("rel_error",
                  fmt::format("is {}, but an `ok` result is within the run's tolerance {}",
                              shown(f.require("rel_error")), tolerance));
    if (!error.empty()) f.bad_field("error", "is set, but an `ok` candidate has no error");
    if (count < 1) t.bad_field("count", "is 0, but an `ok` candidate was timed");
    if (summary[0] <= 0) t.bad_field("min_ms", "is 0, but a measured time is positive");
    for (int i = 1; i < 5; ++i)
      if (summary[i] < summary[i - 1])
        t.bad_field(names[i],
                    fmt::format("is {}, below {} ({})", summary[i], names[i - 1], summary[i - 1]));
    if (summary[5] < summary[0] || summary[5] > summary[4])
      t.bad_field("mean_ms", fmt::format("is {}, outside min_ms..max_ms ({}..{})", summary[5],
                                         summary[0], summary[4]));
  } else {
    if (error.empty())
      f.bad_field("error", fmt::format("is empty, but outcome `{}` needs its reason", outcome));
    if (winner) f.bad_field("winner", fmt::format("is true for a `{}` candidate", outcome));
  }
}

// A run of the current layout (model::to_json(RunRecord)).
void check_run(const json& value, const std::string& path, const std::string& origin,
               const ImportLimits& limits) {
  const Fields f(value, path, origin, limits);
  f.optional_integer("id", 0, std::numeric_limits<std::int64_t>::max(), true);
  check_device_key(Fields(f.object("device"), f.at("device"), origin, limits), limits);
  const std::string kernel = f.text("kernel", limits.max_name, true);
  if (!kernels::find_family(kernel))
    f.bad_field("kernel", fmt::format("is {}, not a kernel of this occtune (known: {})",
                                      shown(f.require("kernel")), kernels::family_names()));
  const std::string build_id = f.text("build_id", limits.max_name);
  const std::string dtype = f.text("dtype", limits.max_name, true);
  if (dtype != "f32")
    f.bad_field("dtype", fmt::format("is {}, but occtune tunes f32", shown(f.require("dtype"))));
  for (auto side : {"m", "n", "k"}) f.integer(side, 1, kMaxShapeSide);
  if (!parse_layout(f.text("layout", limits.max_name)))
    f.bad_field("layout", fmt::format("is {}, not a layout (nn, nt, tn or tt)",
                                      shown(f.require("layout"))));
  const std::string status = f.text("status", limits.max_name);
  if (!run_status_from_string(status))
    f.bad_field("status", fmt::format("is {}, not one of running, complete, interrupted, failed",
                                      shown(f.require("status"))));
  f.timestamp("started_at");
  const json& finished = f.require("finished_at");
  if (finished.is_null()) {
    if (status != to_string(RunStatus::kRunning))
      f.bad_field("finished_at", fmt::format("is null, but a `{}` run has finished", status));
  } else {
    f.timestamp_value(finished, "finished_at");
    if (finished.get<std::string>() < f.require("started_at").get<std::string>())
      f.bad_field("finished_at", fmt::format("is {}, before started_at", shown(finished)));
  }
  f.text("tool_version", limits.max_name);
  f.strings("argv", 4096);
  const json& policy = f.object("policy");
  double tolerance = TimingPolicy{}.tolerance;
  if (auto it = policy.find("tolerance"); it != policy.end()) {
    const Fields p(policy, f.at("policy"), origin, limits);
    tolerance = p.number_value(*it, "tolerance", 0, 1);
  }
  const Fields c(f.object("cublas"), f.at("cublas"), origin, limits);
  const Fields ct(c.object("timing"), c.at("timing"), origin, limits);
  ct.integer("count", 0, std::int64_t(limits.max_samples));
  for (auto name : {"min_ms", "q1_ms", "median_ms", "q3_ms", "max_ms", "mean_ms"})
    ct.number(name, 0);
  c.samples("samples_ms");
  c.optional_integer("sm_clock_mhz", 0, kMaxClockMhz);
  f.optional_text("strategy", limits.max_name);
  f.optional_integer("reference_clock_mhz", 0, kMaxClockMhz);
  const json& measurements = f.array("measurements", limits.max_measurements);
  for (std::size_t i = 0; i < measurements.size(); ++i)
    check_measurement(measurements[i], fmt::format("{}.measurements[{}]", path, i), origin, limits,
                      kernel, tolerance,
                      build_id == family_build_id(kernel, kernels::kernel_build_id()));
}

// Strings anywhere (fields of later schemas included) are bounded.
void check_strings(const json& value, const std::string& origin, const ImportLimits& limits) {
  std::vector<const json*> pending{&value};
  while (!pending.empty()) {
    const json* v = pending.back();
    pending.pop_back();
    if (v->is_string() && v->get_ref<const std::string&>().size() > limits.max_string)
      bad(origin, "a string",
          fmt::format("is {} bytes long (at most {})", v->get_ref<const std::string&>().size(),
                      limits.max_string));
    if (v->is_structured())
      for (auto& item : *v) pending.push_back(&item);
  }
}

}  // namespace

json parse_export_json(const std::string& text, const std::string& origin,
                       const ImportLimits& limits) {
  check_depth(text, origin, limits.max_depth);
  PathTracker tracker;
  try {
    return json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
      return tracker.on_event(event, parsed);
    });
  } catch (const json::out_of_range& e) {
    // nlohmann reports "number overflow parsing '1e999'": a number no double can hold.
    std::string what = e.what();
    const auto quote = what.find('\'');
    const std::string number =
        quote == std::string::npos ? what : what.substr(quote, what.rfind('\'') - quote + 1);
    bad(origin, tracker.path(),
        fmt::format("holds the number {}, too large for a double", number.substr(0, kShownChars)));
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (auto close = what.find("] "); what.starts_with("[json.exception") && close != what.npos)
      what = what.substr(close + 2);
    const std::string where = tracker.path();
    fail(ExitCode::kUsage,
         fmt::format("export '{}' is not valid JSON{}: {}; nothing was imported; pass a file "
                     "written by `occtune export`",
                     origin, where.empty() ? "" : " at " + where, what.substr(0, 200)));
  }
}

void validate_export(const json& doc, const std::string& origin, const ImportLimits& limits) {
  if (!doc.is_object()) bad(origin, "", "is not a JSON object");
  const Fields f(doc, "", origin, limits);
  if (!f.find("kind") || doc["kind"] != "export")
    bad(origin, "", "has no \"kind\": \"export\" (is it another occtune JSON output?)");
  const std::int64_t version = f.integer("schema_version", 1, INT_MAX);
  if (version > kExportSchemaVersion)
    fail(ExitCode::kNotFound, fmt::format("export '{}' has schema_version {} but this occtune "
                                          "reads up to {}; upgrade occtune",
                                          origin, version, kExportSchemaVersion));
  check_strings(doc, origin, limits);
  f.timestamp("exported_at");
  f.text("tool_version", limits.max_name);
  f.strings("argv", 4096);
  f.integer("store_schema_version", 1, INT_MAX);
  const json& devices = f.array("devices", std::size_t(1) << 20);
  for (std::size_t i = 0; i < devices.size(); ++i)
    check_device(devices[i], fmt::format("devices[{}]", i), origin, limits);
  const json& runs = f.array("runs", std::size_t(1) << 30);
  for (std::size_t i = 0; i < runs.size(); ++i)
    check_run(runs[i], fmt::format("runs[{}]", i), origin, limits);
  for (auto& [name, v] : doc.items()) {
    static const std::set<std::string> known = {"schema_version", "kind", "exported_at",
                                                "tool_version",   "argv", "store_schema_version",
                                                "devices",        "runs"};
    if (!known.count(name)) f.bad_field(name, "is not a field of an export");
  }
}

}  // namespace occtune::db
