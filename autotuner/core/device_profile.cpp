// Device profiles: reads the TOML description of a GPU model (configs/profiles/*.toml, embedded
// in the binary, or a user's file) into a DeviceInfo for offline planning. The format is strict
// (every key required, unknown keys rejected) because a silently ignored typo would plan for the
// wrong hardware and nobody would notice.
#include "autotuner/core/device_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/embedded_configs.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/toml.hpp"  // toml++ with the 3.3.0 fix

namespace occtune {
namespace {

constexpr std::string_view kProfileDir = "profiles/";
constexpr std::string_view kProfileExt = ".toml";
constexpr std::int64_t kFormatVersion = 1;

// Every key of the format, in file order, with the example the fix suggests. Keys not listed
// here are rejected.
struct KeySpec {
  std::string_view key;
  std::string_view example;
};
constexpr KeySpec kKeys[] = {
    {"version", "1"},
    {"profile", "\"h100\""},
    {"name", "\"NVIDIA H100 80GB HBM3\""},
    {"sources", "[\"CUDA C++ Programming Guide, compute capability 9.0\"]"},
    {"compute_capability", "\"9.0\""},
    {"sm_count", "132"},
    {"warp_size", "32"},
    {"max_threads_per_block", "1024"},
    {"max_threads_per_sm", "2048"},
    {"max_blocks_per_sm", "32"},
    {"regs_per_block", "65536"},
    {"regs_per_sm", "65536"},
    {"shared_mem_per_block", "49152"},
    {"shared_mem_per_block_optin", "232448"},
    {"shared_mem_per_sm", "233472"},
    {"reserved_shared_mem_per_block", "1024"},
    {"max_grid_x", "2147483647"},
    {"max_grid_y", "65535"},
    {"l2_bytes", "52428800"},
    {"global_mem_bytes", "85028896768"},
    {"clock_mhz", "1980"},
    {"memory_clock_mhz", "2619"},
    {"memory_bus_width", "5120"},
};

std::string known_keys() {
  std::string out;
  for (auto& k : kKeys) out += (out.empty() ? "" : ", ") + std::string(k.key);
  return out;
}

std::string_view example_for(std::string_view key) {
  for (auto& k : kKeys)
    if (k.key == key) return k.example;
  return "";
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

// Reads one profile table, turning every problem into a one-line Error(kUsage) that names the
// origin, the key (with its line) and the fix.
class Reader {
 public:
  Reader(const toml::table& table, const std::string& origin) : table_(table), origin_(origin) {}

  [[noreturn]] void bad(std::string_view key, const std::string& problem,
                        const std::string& fix) const {
    std::string where;
    if (auto* node = table_.get(key); node && node->source().begin.line > 0)
      where = fmt::format(" (line {})", node->source().begin.line);
    fail(ExitCode::kUsage,
         fmt::format("device profile '{}': key '{}'{} {}; {}", origin_, key, where, problem, fix));
  }

  void reject_unknown_keys() const {
    for (auto&& [k, v] : table_) {
      const std::string_view key = k.str();
      bool known = false;
      for (auto& spec : kKeys) known = known || spec.key == key;
      if (!known)
        fail(ExitCode::kUsage,
             fmt::format("device profile '{}': unknown key '{}' (line {}); remove it or fix its "
                         "spelling (known keys: {})",
                         origin_, key, v.source().begin.line, known_keys()));
    }
  }

  const toml::node& require(std::string_view key) const {
    auto* node = table_.get(key);
    if (!node)
      fail(ExitCode::kUsage,
           fmt::format("device profile '{}': missing key '{}'; add it, e.g. {} = {}", origin_, key,
                       key, example_for(key)));
    return *node;
  }

  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const {
    auto& node = require(key);
    auto* value = node.as_integer();
    if (!value)
      bad(key, fmt::format("must be an integer, not {}", type_name(node)),
          fmt::format("write it as a plain number without quotes or decimals, e.g. {} = {}", key,
                      example_for(key)));
    const std::int64_t v = value->get();
    if (v < min) {
      if (min == 1)
        bad(key, fmt::format("must be positive, got {}", v),
            fmt::format("use the published value, e.g. {} = {}", key, example_for(key)));
      bad(key, fmt::format("must be at least {}, got {}", min, v),
          fmt::format("use the published value, e.g. {} = {}", key, example_for(key)));
    }
    if (v > max)
      bad(key, fmt::format("is too large: {} (at most {})", v, max),
          fmt::format("use the published value, e.g. {} = {}", key, example_for(key)));
    return v;
  }

  int positive_int(std::string_view key) const { return int(integer(key, 1, INT_MAX)); }
  std::size_t positive_size(std::string_view key) const {
    return std::size_t(integer(key, 1, INT64_MAX));
  }

  std::string string(std::string_view key) const {
    auto& node = require(key);
    auto* value = node.as_string();
    if (!value)
      bad(key, fmt::format("must be a string, not {}", type_name(node)),
          fmt::format("quote it, e.g. {} = {}", key, example_for(key)));
    if (value->get().empty())
      bad(key, "is empty", fmt::format("fill it in, e.g. {} = {}", key, example_for(key)));
    return value->get();
  }

  std::vector<std::string> strings(std::string_view key) const {
    auto& node = require(key);
    auto* array = node.as_array();
    if (!array)
      bad(key, fmt::format("must be an array of strings, not {}", type_name(node)),
          fmt::format("write it as {} = {}", key, example_for(key)));
    if (array->empty())
      bad(key, "is empty",
          "name at least one source for the numbers (whitepaper, CUDA guide, ...)");
    std::vector<std::string> out;
    for (auto& item : *array) {
      auto* s = item.as_string();
      if (!s || s->get().empty())
        bad(key, fmt::format("must hold only non-empty strings, found {}", type_name(item)),
            fmt::format("write it as {} = {}", key, example_for(key)));
      out.push_back(s->get());
    }
    return out;
  }

 private:
  const toml::table& table_;
  const std::string& origin_;
};

// "9.0" -> {9, 0}; one or two digits of major, exactly one digit of minor, as NVIDIA writes it.
std::optional<std::pair<int, int>> parse_cc(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 2 || dot + 2 != text.size())
    return std::nullopt;
  int major = 0;
  for (std::size_t i = 0; i < dot; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    major = major * 10 + (text[i] - '0');
  }
  const char minor = text[dot + 1];
  if (!std::isdigit(static_cast<unsigned char>(minor)) || major == 0) return std::nullopt;
  return std::pair{major, minor - '0'};
}

bool is_profile_name(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!(std::islower(c) || std::isdigit(c) || c == '_' || c == '-')) return false;
  return true;
}

// The stem of "profiles/<stem>.toml", or empty for any other embedded file.
std::string_view profile_stem(std::string_view path) {
  if (!path.starts_with(kProfileDir) || !path.ends_with(kProfileExt)) return {};
  auto stem =
      path.substr(kProfileDir.size(), path.size() - kProfileDir.size() - kProfileExt.size());
  return stem.find('/') == std::string_view::npos ? stem : std::string_view{};
}

std::string joined_profile_names() {
  std::string out;
  for (auto& n : profile_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (auto& f : embedded_configs())
    if (auto stem = profile_stem(f.path); !stem.empty()) names.emplace_back(stem);
  std::sort(names.begin(), names.end());
  return names;
}

DeviceInfo parse_device_profile(std::string_view toml_text, const std::string& origin) {
  toml::table table;
  try {
    table = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    // toml++ descriptions are one line; keep ours one line too.
    std::string what(e.description());
    std::replace(what.begin(), what.end(), '\n', ' ');
    fail(ExitCode::kUsage,
         fmt::format("device profile '{}' is not valid TOML at line {}, column {}: {}; fix the "
                     "syntax there (see configs/profiles/h100.toml for the format)",
                     origin, e.source().begin.line, e.source().begin.column, what));
  }

  Reader r(table, origin);
  r.reject_unknown_keys();

  const std::int64_t version = r.integer("version", INT64_MIN, INT64_MAX);
  if (version != kFormatVersion)
    r.bad("version",
          fmt::format("is {}, but this occtune reads profile format version {}", version,
                      kFormatVersion),
          fmt::format("write version = {} and the keys of that format, or use a newer occtune",
                      kFormatVersion));

  DeviceInfo d;
  d.index = -1;
  const std::string profile = r.string("profile");
  if (!is_profile_name(profile))
    r.bad("profile", fmt::format("must be a short lower-case name, got \"{}\"", profile),
          fmt::format("use lower-case letters, digits, '-' or '_' (the file stem), e.g. "
                      "profile = \"{}\"",
                      lower(profile)));
  d.name = r.string("name");
  r.strings("sources");

  const std::string cc = r.string("compute_capability");
  auto parsed = parse_cc(cc);
  if (!parsed)
    r.bad("compute_capability", fmt::format("must be written MAJOR.MINOR, got \"{}\"", cc),
          "write it as CUDA reports it, e.g. compute_capability = \"9.0\"");
  d.cc_major = parsed->first;
  d.cc_minor = parsed->second;

  d.sm_count = r.positive_int("sm_count");
  d.warp_size = r.positive_int("warp_size");
  d.max_threads_per_block = r.positive_int("max_threads_per_block");
  d.max_threads_per_sm = r.positive_int("max_threads_per_sm");
  d.max_blocks_per_sm = r.positive_int("max_blocks_per_sm");
  d.regs_per_block = r.positive_int("regs_per_block");
  d.regs_per_sm = r.positive_int("regs_per_sm");
  // Shared-memory sizes stay below 2 GiB so cuda_occupancy.h's int arithmetic cannot overflow.
  d.shared_mem_per_block = std::size_t(r.integer("shared_mem_per_block", 1, INT_MAX / 2));
  d.shared_mem_per_block_optin =
      std::size_t(r.integer("shared_mem_per_block_optin", 1, INT_MAX / 2));
  d.shared_mem_per_sm = std::size_t(r.integer("shared_mem_per_sm", 1, INT_MAX / 2));
  // Zero is a real value here: Turing and older reserve no shared memory per block.
  d.reserved_shared_mem_per_block =
      std::size_t(r.integer("reserved_shared_mem_per_block", 0, INT_MAX / 2));
  d.max_grid_x = r.positive_int("max_grid_x");
  d.max_grid_y = r.positive_int("max_grid_y");
  d.l2_bytes = r.positive_size("l2_bytes");
  d.global_mem_bytes = r.positive_size("global_mem_bytes");
  d.clock_khz = int(r.integer("clock_mhz", 1, INT_MAX / 1000) * 1000);
  d.memory_clock_khz = int(r.integer("memory_clock_mhz", 1, INT_MAX / 1000) * 1000);
  d.memory_bus_width = r.positive_int("memory_bus_width");

  // The hardware's range and the relations every real GPU satisfies, shared with every other
  // way device properties enter (probe, import, stored rows).
  if (auto problem = device_problem(d, DeviceFieldNames::kProfile, /*informational_required=*/true))
    r.bad(problem->field, problem->problem,
          fmt::format("use the published value, e.g. {} = {}", problem->field,
                      example_for(problem->field)));

  d.source = "profile:" + origin;
  d.driver_version = 0;
  d.runtime_version = 0;
  return d;
}

DeviceInfo load_device_profile(const std::string& name_or_file) {
  const std::string wanted = lower(name_or_file);
  for (auto& f : embedded_configs())
    if (auto stem = profile_stem(f.path); !stem.empty() && stem == wanted)
      return parse_device_profile(f.contents, std::string(stem));

  std::error_code ec;
  if (!name_or_file.empty() && std::filesystem::is_regular_file(name_or_file, ec)) {
    std::ifstream in(name_or_file, std::ios::binary);
    if (!in)
      fail(ExitCode::kUsage,
           fmt::format("cannot read device profile '{}'; check that the file is readable",
                       name_or_file));
    std::ostringstream text;
    text << in.rdbuf();
    return parse_device_profile(text.str(), name_or_file);
  }

  // Something written as a path names a file, not a profile: say that the file is missing.
  if (name_or_file.find('/') != std::string::npos || lower(name_or_file).ends_with(".toml"))
    fail(ExitCode::kUsage,
         fmt::format("device profile file '{}' does not exist (or is not a regular file); check "
                     "the path, or pass a shipped profile name: {}",
                     name_or_file, joined_profile_names()));
  fail(ExitCode::kUsage,
       fmt::format("unknown device profile '{}'; known profiles: {} (or pass a path to a .toml "
                   "profile)",
                   name_or_file, joined_profile_names()));
}

}  // namespace occtune
