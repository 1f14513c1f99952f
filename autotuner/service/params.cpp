// Strict parsing of query parameters: the grammar of every value is spelt out here, so a
// handler only ever sees well-formed values.
#include "autotuner/service/params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/service/problem.hpp"
#include "kernels/registry.hpp"

namespace occtune::service {
namespace {

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string quoted(const std::string& value) {
  std::string out(1, '\'');
  out += printable(value);
  out += '\'';
  return out;
}

}  // namespace

QueryParams::QueryParams(const Multimap& params, std::initializer_list<std::string_view> allowed)
    : QueryParams(params, std::vector<std::string_view>(allowed)) {}

QueryParams::QueryParams(const Multimap& params, const std::vector<std::string_view>& allowed)
    : params_(params) {
  for (auto it = params.begin(); it != params.end(); ++it) {
    bool known = false;
    for (auto a : allowed) known |= it->first == a;
    if (!known) {
      std::string names;
      for (auto a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      throw BadParameter{it->first, names.empty() ? std::string("this route takes no parameters")
                                                  : "unknown parameter; this route takes " + names};
    }
    if (params.count(it->first) > 1) throw BadParameter{it->first, "given more than once"};
  }
}

const std::string* QueryParams::find(std::string_view name) const {
  auto it = params_.find(std::string(name));
  return it == params_.end() ? nullptr : &it->second;
}

bool QueryParams::has(std::string_view name) const { return find(name) != nullptr; }

const std::string& QueryParams::required(std::string_view name) const {
  const std::string* v = find(name);
  if (!v) throw BadParameter{std::string(name), "required"};
  return *v;
}

std::string QueryParams::uuid(std::string_view name) const {
  const std::string& v = required(name);
  // GPU-8-4-4-4-12, as nvidia-smi and cudaGetDeviceProperties spell it.
  static constexpr std::string_view kPattern = "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
  bool ok = v.size() == kPattern.size();
  for (std::size_t i = 0; ok && i < v.size(); ++i)
    ok = kPattern[i] == 'x' ? is_hex(v[i]) : v[i] == kPattern[i];
  if (!ok)
    throw BadParameter{std::string(name),
                       fmt::format("{} is not a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-"
                                   "xxxxxxxxxxxx, hex digits)",
                                   quoted(v))};
  std::string out = v;
  for (char& c : out)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::optional<std::string> QueryParams::optional_uuid(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return uuid(name);
}

std::int64_t QueryParams::positive(std::string_view name, std::int64_t max) const {
  const std::string& v = required(name);
  const std::string bad = fmt::format("{} is not an integer between 1 and {}", quoted(v), max);
  if (v.empty() || v.size() > 19 || v[0] == '0') throw BadParameter{std::string(name), bad};
  std::int64_t value = 0;
  for (char c : v) {
    if (c < '0' || c > '9') throw BadParameter{std::string(name), bad};
    // Checked before it happens: 19 digits can exceed INT64_MAX (cursor=9223372036854775808).
    if (value > (max - (c - '0')) / 10) throw BadParameter{std::string(name), bad};
    value = value * 10 + (c - '0');
  }
  return value;
}

std::int64_t QueryParams::positive_or(std::string_view name, std::int64_t max,
                                      std::int64_t fallback) const {
  return has(name) ? positive(name, max) : fallback;
}

std::string QueryParams::kernel(std::string_view name) const {
  const std::string& v = required(name);
  if (!kernels::find_family(v))
    throw BadParameter{std::string(name), fmt::format("unknown kernel {}; known kernels: {}",
                                                      quoted(v), kernels::family_names())};
  return v;
}

std::optional<std::string> QueryParams::optional_kernel(std::string_view name) const {
  if (!has(name)) return std::nullopt;
  return kernel(name);
}

std::string QueryParams::choice(std::string_view name,
                                std::initializer_list<std::string_view> choices,
                                std::string_view fallback) const {
  const std::string* v = find(name);
  if (!v) return std::string(fallback);
  std::string names;
  for (auto c : choices) {
    if (*v == c) return *v;
    names += (names.empty() ? "" : ", ") + std::string(c);
  }
  throw BadParameter{std::string(name), fmt::format("{} is not one of {}", quoted(*v), names)};
}

bool QueryParams::boolean_or(std::string_view name, bool fallback) const {
  return choice(name, {"true", "false"}, fallback ? "true" : "false") == "true";
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A parameter name as httplib decodes it: %XX escapes and '+' for a space.
std::string decoded_name(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

}  // namespace

void reject_repeated_names(std::string_view target) {
  const auto question = target.find('?');
  if (question == std::string_view::npos) return;
  std::string_view query = target.substr(question + 1);
  if (auto hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
  std::vector<std::string> names;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    std::string name = decoded_name(pair.substr(0, pair.find('=')));
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw BadParameter{name, "given more than once"};
    names.push_back(std::move(name));
  }
}

std::string BestRequest::cache_key() const {
  return fmt::format("best\n{}\n{}\n{}\n{}\n{}\n{}", device, kernel, shape.str(), dtype,
                     layout, fallback ? 1 : 0);
}

namespace {

// A GEMM shape (or a user problem given in declared order) as m, n, k.
Shape mnk_shape(const QueryParams& p) {
  return Shape{p.positive("m", kMaxDimension), p.positive("n", kMaxDimension),
               p.positive("k", kMaxDimension)};
}

// A user family's problem by its names: `problem=nx=4096,ny=4096`, or each dimension as its own
// parameter (`nx=4096&ny=4096`), read in declared order and validated by parse_problem (the
// CLI's --problem rules: every dimension once, an integer in [1, 2^31-1]); or m, n, k as before.
Shape user_problem(const QueryParams& p, const QueryParams::Multimap& params,
                   const UserFamily& family) {
  const auto& dims = family.def.dims;
  auto is_dim = [&](std::string_view name) {
    return std::find(dims.begin(), dims.end(), name) != dims.end();
  };
  std::string named;
  for (const auto& d : dims)
    if (auto it = params.find(d); it != params.end())
      named += (named.empty() ? "" : ",") + d + "=" + it->second;
  const bool positional = std::any_of(params.begin(), params.end(), [&](const auto& kv) {
    return (kv.first == "m" || kv.first == "n" || kv.first == "k") && !is_dim(kv.first);
  });
  const std::string example = problem_example(family);
  if (p.has("problem") && (!named.empty() || positional))
    throw BadParameter{"problem", fmt::format("given besides the dimensions; give kernel {}'s "
                                              "problem once, as problem={} or by its names",
                                              family.def.name, example)};
  if (positional && !named.empty())
    throw BadParameter{"m", fmt::format("given besides {}'s named dimensions; give {} only",
                                        family.def.name, example)};
  if (positional) return mnk_shape(p);
  if (!p.has("problem") && named.empty())
    throw BadParameter{"problem", fmt::format("required: kernel {}'s problem, as problem={} or "
                                              "by its dimensions' names",
                                              family.def.name, example)};
  const std::string text = p.has("problem") ? params.find("problem")->second : named;
  try {
    return to_shape(family, parse_problem(family, text));
  } catch (const Error& e) {
    throw BadParameter{p.has("problem") ? "problem" : dims.front(), e.what()};
  }
}

}  // namespace

BestRequest parse_best(const QueryParams::Multimap& params) {
  // The kernel decides the problem's names: a user family's dimensions, else m, n, k.
  const auto kernel = params.find("kernel");
  const UserFamily* user = kernel == params.end() ? nullptr : find_user_family(kernel->second);
  std::vector<std::string_view> allowed = {"device", "kernel", "m",      "n",
                                           "k",      "dtype",  "layout", "fallback"};
  if (user) {
    allowed.push_back("problem");
    for (const auto& d : user->def.dims)
      if (std::find(allowed.begin(), allowed.end(), d) == allowed.end()) allowed.push_back(d);
  }
  const QueryParams p(params, allowed);
  BestRequest r;
  r.device = p.uuid("device");
  // No kernel: the fastest correct configuration of any family (db/lookup.hpp).
  r.kernel = p.optional_kernel("kernel").value_or("");
  r.shape = user ? user_problem(p, params, *user) : mnk_shape(p);
  r.dtype = p.choice("dtype", {"f32"}, "f32");
  r.layout = p.choice("layout", {"nn", "nt", "tn", "tt"}, "nn");
  r.fallback = p.boolean_or("fallback", true);
  return r;
}

std::string ConfigsRequest::cache_key() const {
  return fmt::format("configs\n{}\n{}\n{}\n{}\n{}", device.value_or("*"), kernel.value_or("*"),
                     layout.value_or("*"), limit, cursor);
}

ConfigsRequest parse_configs(const QueryParams::Multimap& params) {
  const QueryParams p(params, {"device", "kernel", "layout", "limit", "cursor"});
  ConfigsRequest r;
  r.device = p.optional_uuid("device");
  r.kernel = p.optional_kernel("kernel");
  if (p.has("layout")) r.layout = p.choice("layout", {"nn", "nt", "tn", "tt"}, "nn");
  r.limit = static_cast<int>(p.positive_or("limit", 500, 100));
  r.cursor = p.positive_or("cursor", std::numeric_limits<std::int64_t>::max(), 0);
  return r;
}

}  // namespace occtune::service
