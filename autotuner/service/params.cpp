// Strict parsing of query parameters: the grammar of every value is spelt out here, so a
// handler only ever sees well-formed values.
#include "autotuner/service/params.hpp"

#include <fmt/format.h>

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
    value = value * 10 + (c - '0');  // at most 19 digits: no overflow before the range check
    if (value > max) throw BadParameter{std::string(name), bad};
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

}  // namespace occtune::service
