// The codec of autotuner/core/model_json.hpp, expanded from the field lists.
#include "autotuner/core/model_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <limits>
#include <type_traits>

#include "autotuner/core/error.hpp"
#include "autotuner/core/model_fields.hpp"

namespace occtune::model {

static_assert(sizeof(DeviceInfo) == 256,
              "DeviceInfo changed: list the new field in OCCTUNE_DEVICE_FIELDS "
              "(autotuner/core/model_fields.hpp), then update this size");
static_assert(sizeof(TimingPolicy) == 120,
              "TimingPolicy changed: list the new field in OCCTUNE_POLICY_FIELDS, then update "
              "this size");
static_assert(sizeof(Candidate) == 184,
              "Candidate changed: list the new field in OCCTUNE_CANDIDATE_FIELDS, then update "
              "this size");

json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double to_double(const json& j) {
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw Error(ExitCode::kRuntime, fmt::format("'{}' is not a number", s));
  }
  return j.get<double>();
}

namespace {

template <class T>
void put(json& j, const char* key, const T& v) {
  if constexpr (std::is_same_v<T, double>)
    j[key] = number(v);
  else
    j[key] = v;
}

// Integers only from JSON integers that fit: nlohmann converts a float (9.2e27) or an
// out-of-range integer with a plain cast, which is undefined behaviour for the float and a
// wrapped value for the integer (found by tests/fuzz/fuzz_device_planning).
template <class T>
bool integer_fits(const json& v, T& field) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > std::uint64_t(std::numeric_limits<T>::max())) return false;
    field = static_cast<T>(u);
    return true;
  }
  const auto i = v.get<std::int64_t>();
  if (!std::in_range<T>(i)) return false;
  field = static_cast<T>(i);
  return true;
}

// kRequired: a missing or unusable field throws, naming it. kDefault: it keeps its default, so
// a damaged or older row degrades instead of making every query on the database fail.
template <class T>
void take(const json& j, const char* key, T& v, Missing missing) {
  const auto it = j.find(key);
  const bool required = missing == Missing::kRequired;
  if (it == j.end() || it->is_null()) {
    if (required) throw Error(ExitCode::kRuntime, fmt::format("the field '{}' is missing", key));
    return;
  }
  bool ok = true;
  if constexpr (std::is_same_v<T, double>) {
    try {
      v = to_double(*it);
    } catch (const std::exception&) {
      ok = false;
    }
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    ok = integer_fits(*it, v);
  } else {
    try {
      v = it->get<T>();
    } catch (const json::exception&) {
      ok = false;
    }
  }
  if (!ok && required)
    throw Error(ExitCode::kRuntime,
                fmt::format("the field '{}' has an unusable value {}", key, it->dump()));
}

void require_object(const json& j, const char* what) {
  if (!j.is_object())
    throw Error(ExitCode::kRuntime, fmt::format("{} is not a JSON object", what));
}

}  // namespace

json to_json(const DeviceInfo& d) {
  json j = json::object();
#define X(f) put(j, #f, d.f);
  OCCTUNE_DEVICE_FIELDS(X)
#undef X
  return j;
}

json device_key_json(const DeviceInfo& d) {
  json j = json::object();
#define X(f) put(j, #f, d.f);
  OCCTUNE_DEVICE_KEY_FIELDS(X)
#undef X
  j["compute_capability"] = fmt::format("{}.{}", d.cc_major, d.cc_minor);
  return j;
}

DeviceInfo device_from_json(const json& j, Missing missing) {
  require_object(j, "a device");
  DeviceInfo d;
#define X(f) take(j, #f, d.f, missing);
  OCCTUNE_DEVICE_FIELDS(X)
#undef X
  return d;
}

json to_json(const TimingPolicy& p) {
  json j = json::object();
#define X(f) put(j, #f, p.f);
  OCCTUNE_POLICY_FIELDS(X)
#undef X
  return j;
}

TimingPolicy policy_from_json(const json& j, Missing missing) {
  require_object(j, "a timing policy");
  TimingPolicy p;
#define X(f) take(j, #f, p.f, missing);
  OCCTUNE_POLICY_FIELDS(X)
#undef X
  return p;
}

json to_json(const Candidate& c) {
  json j = json::object();
#define X(f) put(j, #f, c.f);
  OCCTUNE_CANDIDATE_FIELDS(X)
#undef X
  return j;
}

void candidate_fields_from_json(const json& j, Candidate& c, Missing missing) {
  require_object(j, "a candidate");
#define X(f) take(j, #f, c.f, missing);
  OCCTUNE_CANDIDATE_FIELDS(X)
#undef X
}

json to_json(const Summary& s) {
  json j = json::object();
#define X(f, key) put(j, key, s.f);
  OCCTUNE_SUMMARY_FIELDS(X)
#undef X
  return j;
}

Summary summary_from_json(const json& j, Missing missing) {
  require_object(j, "a timing summary");
  Summary s;
#define X(f, key) take(j, key, s.f, missing);
  OCCTUNE_SUMMARY_FIELDS(X)
#undef X
  return s;
}

}  // namespace occtune::model
