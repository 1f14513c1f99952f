// Query-parameter validation for the HTTP routes: each route names the parameters it accepts;
// anything unknown, repeated, malformed or out of range is a BadParameter naming it (400).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/shape.hpp"

namespace occtune::service {

struct BadParameter {
  std::string name;
  std::string detail;
};

// The largest accepted m, n, k: the kernels index with 32-bit ints (core/shape.hpp).
inline constexpr std::int64_t kMaxDimension = 2147483647;

class QueryParams {
 public:
  using Multimap = std::multimap<std::string, std::string>;  // httplib::Params
  // Throws BadParameter for a name outside `allowed` or given more than once.
  QueryParams(const Multimap& params, std::initializer_list<std::string_view> allowed);
  QueryParams(const Multimap& params, const std::vector<std::string_view>& allowed);

  bool has(std::string_view name) const;
  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", hex digits, returned in lower case.
  std::string uuid(std::string_view name) const;
  std::optional<std::string> optional_uuid(std::string_view name) const;
  // A decimal integer in [1, max]; no sign, no leading zeros, no spaces.
  std::int64_t positive(std::string_view name, std::int64_t max) const;
  std::int64_t positive_or(std::string_view name, std::int64_t max, std::int64_t fallback) const;
  // A registered kernel family name.
  std::string kernel(std::string_view name) const;
  std::optional<std::string> optional_kernel(std::string_view name) const;
  // One of `choices`.
  std::string choice(std::string_view name, std::initializer_list<std::string_view> choices,
                     std::string_view fallback) const;
  bool boolean_or(std::string_view name, bool fallback) const;

 private:
  const std::string& required(std::string_view name) const;
  const std::string* find(std::string_view name) const;
  const Multimap& params_;
};

// httplib drops a repeated identical pair (`m=1024&m=1024`) while parsing, so repeats are
// found in the raw request target: throws BadParameter for a name given more than once.
void reject_repeated_names(std::string_view target);

// The validated parameters of the routes that read the store. An answer is cached under
// cache_key(), built from these values (never from the raw query text), so two requests share
// an answer exactly when they ask the same question.
struct BestRequest {
  std::string device;
  std::string kernel;  // empty: the fastest configuration of any family
  Shape shape;
  std::string dtype;
  std::string layout = "nn";
  bool fallback = true;
  std::string cache_key() const;
};
// Throws BadParameter for a name the route does not take, a repeat, or a bad value. A user
// kernel family's problem is given by its dimensions' names (`nx=4096&ny=4096`) or as one
// `problem=nx=4096,ny=4096`, validated as --problem is; m, n, k (its dimensions in declared
// order) still work. A built-in family's is m, n, k.
BestRequest parse_best(const QueryParams::Multimap& params);

struct ConfigsRequest {
  std::optional<std::string> device, kernel, layout;
  int limit = 100;
  std::int64_t cursor = 0;  // 0: the first page
  std::string cache_key() const;
};
ConfigsRequest parse_configs(const QueryParams::Multimap& params);

}  // namespace occtune::service
