// The codec of autotuner/core/model_json.hpp, expanded from the field lists.
#include "autotuner/core/model_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotuner/core/error.hpp"
#include "autotuner/core/model_fields.hpp"
#include "autotuner/core/outcome.hpp"

namespace occtune::model {

static_assert(sizeof(DeviceInfo) == 256,
              "DeviceInfo changed: list the new field in OCCTUNE_DEVICE_FIELDS "
              "(autotuner/core/model_fields.hpp), then update this size");
static_assert(sizeof(TimingPolicy) == 152,
              "TimingPolicy changed: list the new field in OCCTUNE_POLICY_FIELDS, then update "
              "this size");
static_assert(sizeof(Candidate) == 184,
              "Candidate changed: list the new field in OCCTUNE_CANDIDATE_FIELDS, then update "
              "this size");
static_assert(sizeof(StoredMeasurement) == 456,
              "StoredMeasurement changed: list the new field in OCCTUNE_CONFIG_FIELDS, "
              "OCCTUNE_MEASUREMENT_FIELDS or OCCTUNE_MEASUREMENT_TIMING_FIELDS, then update this "
              "size");
static_assert(sizeof(StoredRun) == 544,
              "StoredRun changed: list the new field in OCCTUNE_RUN_FIELDS or "
              "OCCTUNE_CUBLAS_FIELDS (or encode it beside argv and policy), then update this size");
static_assert(sizeof(CacheKey) == 240,
              "CacheKey changed: list the new field in OCCTUNE_KEY_FIELDS or "
              "OCCTUNE_KEY_DEVICE_FIELDS, then update this size");

// A run names its device by the device's key fields, under the names a device has everywhere.
constexpr std::string_view kDeviceKeyNames[] = {
#define X(f) #f,
    OCCTUNE_DEVICE_KEY_FIELDS(X)
#undef X
};
constexpr std::string_view kRunDeviceNames[] = {
#define X(f, key, absent) key,
    OCCTUNE_KEY_DEVICE_FIELDS(X)
#undef X
};
constexpr bool same_device_key_names() {
  if (std::size(kDeviceKeyNames) != std::size(kRunDeviceNames)) return false;
  for (std::size_t i = 0; i < std::size(kDeviceKeyNames); ++i)
    if (kDeviceKeyNames[i] != kRunDeviceNames[i]) return false;
  return true;
}
static_assert(same_device_key_names(),
              "OCCTUNE_KEY_DEVICE_FIELDS must name the fields of OCCTUNE_DEVICE_KEY_FIELDS");

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

// Which value of a field is written as null: none (kPlain), 0 (an id, a tile of no square tile),
// a negative value (rel_error -1: not checked) or "" (finished_at of a running run).
enum class Absent { kPlain, kZero, kNegative, kEmpty };
constexpr Absent kPlain = Absent::kPlain, kZero = Absent::kZero, kNegative = Absent::kNegative,
                 kEmpty = Absent::kEmpty;

template <class T>
constexpr bool is_count = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <class T>
bool is_absent(const T& v, Absent absent) {
  if constexpr (is_count<T>) {
    if (absent == kZero) return v == 0;
    if (absent == kNegative) return v < 0;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (absent == kEmpty) return v.empty();
  }
  return false;
}

template <class T>
void set_absent(T& v, Absent absent) {
  if constexpr (is_count<T>) {
    v = absent == kNegative ? T(-1) : T(0);
  } else if constexpr (std::is_same_v<T, std::string>) {
    v.clear();
  }
}

template <class T>
void put(json& j, const char* key, const T& v, Absent absent = kPlain) {
  if (is_absent(v, absent)) {
    j[key] = nullptr;
  } else if constexpr (std::is_same_v<T, double>) {
    j[key] = number(v);
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    json a = json::array();
    for (double x : v) a.push_back(number(x));
    j[key] = std::move(a);
  } else if constexpr (std::is_same_v<T, Outcome> || std::is_same_v<T, RunStatus>) {
    j[key] = std::string(to_string(v));
  } else {
    j[key] = v;
  }
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
// `group` prefixes the name in messages ("timing." for a field of a measurement's timing).
template <class T>
void take(const json& j, const char* key, T& v, Missing missing, Absent absent = kPlain,
          const char* group = "") {
  const auto it = j.find(key);
  const bool required = missing == Missing::kRequired;
  if (it != j.end() && it->is_null() && absent != kPlain) {
    set_absent(v, absent);
    return;
  }
  if (it == j.end() || it->is_null()) {
    if (required)
      throw Error(ExitCode::kRuntime, fmt::format("the field '{}{}' is missing", group, key));
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
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    std::vector<double> values;
    ok = it->is_array();
    for (std::size_t i = 0; ok && i < it->size(); ++i) {
      try {
        values.push_back(to_double((*it)[i]));
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (ok) v = std::move(values);
  } else if constexpr (std::is_same_v<T, Outcome> || std::is_same_v<T, RunStatus>) {
    std::optional<T> parsed;
    if (it->is_string()) {
      if constexpr (std::is_same_v<T, Outcome>)
        parsed = outcome_from_string(it->get<std::string>());
      else
        parsed = run_status_from_string(it->get<std::string>());
    }
    ok = parsed.has_value();
    if (ok) v = *parsed;
  } else {
    try {
      v = it->get<T>();
    } catch (const json::exception&) {
      ok = false;
    }
  }
  if (!ok && required)
    throw Error(ExitCode::kRuntime, fmt::format("the field '{}{}' has an unusable value {}", group,
                                                key, it->dump()));
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

namespace {

void summary_fields(const json& j, Summary& s, Missing missing, const char* group) {
#define X(f, key) take(j, key, s.f, missing, kPlain, group);
  OCCTUNE_SUMMARY_FIELDS(X)
#undef X
}

// The object under `key`, or nullptr when it is absent (an error naming it when required).
const json* member_object(const json& j, const char* key, Missing missing, const char* group) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (missing == Missing::kRequired)
      throw Error(ExitCode::kRuntime, fmt::format("the field '{}{}' is missing", group, key));
    return nullptr;
  }
  if (!it->is_object()) {
    if (missing == Missing::kRequired)
      throw Error(ExitCode::kRuntime, fmt::format("the field '{}{}' is {}, not an object", group,
                                                  key, it->dump().substr(0, 64)));
    return nullptr;
  }
  return &*it;
}

// argv and policy are JSON text in the store and JSON values in documents.
json parsed_or(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json(text) : j;
}

void take_text_json(const json& j, const char* key, std::string& text, Missing missing,
                    json::value_t type) {
  const auto it = j.find(key);
  if (it != j.end() && it->type() == type) {
    text = it->dump(-1, ' ', false, json::error_handler_t::replace);
  } else if (it != j.end() && it->is_string()) {
    text = it->get<std::string>();  // text the store held that was not JSON
  } else if (missing == Missing::kRequired) {
    throw Error(ExitCode::kRuntime,
                fmt::format("the field '{}' is {}", key,
                            it == j.end() ? std::string("missing")
                                          : "unusable: " + it->dump().substr(0, 64)));
  }
}

}  // namespace

Summary summary_from_json(const json& j, Missing missing) {
  require_object(j, "a timing summary");
  Summary s;
  summary_fields(j, s, missing, "");
  return s;
}

json params_json(std::string_view label) {
  json out = json::object();
  while (!label.empty()) {
    const auto comma = label.find(',');
    const std::string_view item = label.substr(0, comma);
    const auto eq = item.find('=');
    if (eq != std::string_view::npos) {
      const std::string value(item.substr(eq + 1));
      try {
        out[std::string(item.substr(0, eq))] = std::stoll(value);
      } catch (const std::exception&) {
        out[std::string(item.substr(0, eq))] = value;  // never written by occtune's labels
      }
    }
    label = comma == std::string_view::npos ? std::string_view() : label.substr(comma + 1);
  }
  return out;
}

json config_json(const StoredMeasurement& m, std::string_view family) {
  json j = json::object();
  j["family"] = std::string(family);
#define X(f, key, absent) put(j, key, m.f, absent);
  OCCTUNE_CONFIG_FIELDS(X)
#undef X
  j["params"] = params_json(m.params);
  return j;
}

json to_json(const StoredMeasurement& m, std::string_view family) {
  json j = config_json(m, family);
#define X(f, key, absent) put(j, key, m.f, absent);
  OCCTUNE_MEASUREMENT_FIELDS(X)
#undef X
  json timing = to_json(m.summary);
#define X(f, key, absent) put(timing, key, m.f, absent);
  OCCTUNE_MEASUREMENT_TIMING_FIELDS(X)
#undef X
  j["timing"] = std::move(timing);
  return j;
}

StoredMeasurement measurement_from_json(const json& j, Missing missing) {
  require_object(j, "a measurement");
  StoredMeasurement m;
#define X(f, key, absent) take(j, key, m.f, missing, absent);
  OCCTUNE_CONFIG_FIELDS(X)
  OCCTUNE_MEASUREMENT_FIELDS(X)
#undef X
  if (const json* timing = member_object(j, "timing", missing, "")) {
    summary_fields(*timing, m.summary, missing, "timing.");
#define X(f, key, absent) take(*timing, key, m.f, missing, absent, "timing.");
    OCCTUNE_MEASUREMENT_TIMING_FIELDS(X)
#undef X
  }
  return m;
}

json to_json(const CacheKey& k) {
  json device = json::object();
#define X(f, key, absent) put(device, key, k.f, absent);
  OCCTUNE_KEY_DEVICE_FIELDS(X)
#undef X
  device["compute_capability"] = fmt::format("{}.{}", k.cc_major, k.cc_minor);
  json j = json::object();
  j["device"] = std::move(device);
#define X(f, key, absent) put(j, key, k.f, absent);
  OCCTUNE_KEY_FIELDS(X)
#undef X
  return j;
}

CacheKey key_from_json(const json& j, Missing missing) {
  require_object(j, "a cache key");
  CacheKey k;
  if (const json* device = member_object(j, "device", missing, "")) {
#define X(f, key, absent) take(*device, key, k.f, missing, absent, "device.");
    OCCTUNE_KEY_DEVICE_FIELDS(X)
#undef X
  }
#define X(f, key, absent) take(j, key, k.f, missing, absent);
  OCCTUNE_KEY_FIELDS(X)
#undef X
  return k;
}

json to_json(const StoredRun& r) {
  json j = to_json(r.key);
#define X(f, key, absent) put(j, key, r.f, absent);
  OCCTUNE_RUN_FIELDS(X)
#undef X
  j["argv"] = parsed_or(r.argv_json, json::array());
  j["policy"] = parsed_or(r.policy_json, json::object());
  json cublas = json::object();
  cublas["timing"] = to_json(r.cublas);
#define X(f, key, absent) put(cublas, key, r.f, absent);
  OCCTUNE_CUBLAS_FIELDS(X)
#undef X
  j["cublas"] = std::move(cublas);
  return j;
}

StoredRun run_from_json(const json& j, Missing missing) {
  require_object(j, "a run");
  StoredRun r;
  r.key = key_from_json(j, missing);
#define X(f, key, absent) take(j, key, r.f, missing, absent);
  OCCTUNE_RUN_FIELDS(X)
#undef X
  take_text_json(j, "argv", r.argv_json, missing, json::value_t::array);
  take_text_json(j, "policy", r.policy_json, missing, json::value_t::object);
  if (const json* cublas = member_object(j, "cublas", missing, "")) {
    if (const json* timing = member_object(*cublas, "timing", missing, "cublas."))
      summary_fields(*timing, r.cublas, missing, "cublas.timing.");
#define X(f, key, absent) take(*cublas, key, r.f, missing, absent, "cublas.");
    OCCTUNE_CUBLAS_FIELDS(X)
#undef X
  }
  return r;
}

json to_json(const RunRecord& record) {
  json j = to_json(record.run);
  json measurements = json::array();
  for (auto& m : record.measurements) measurements.push_back(to_json(m, record.run.key.kernel));
  j["measurements"] = std::move(measurements);
  return j;
}

RunRecord run_record_from_json(const json& j, Missing missing) {
  RunRecord record;
  record.run = run_from_json(j, missing);
  const auto it = j.find("measurements");
  if (it == j.end() || !it->is_array()) {
    if (missing == Missing::kRequired)
      throw Error(ExitCode::kRuntime, "the field 'measurements' is missing or not an array");
    return record;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    try {
      record.measurements.push_back(measurement_from_json((*it)[i], missing));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("measurements[{}]: {}", i, e.what()));
    }
  }
  return record;
}

namespace {

void unknown_in(const json& j, const std::set<std::string_view>& known, const std::string& where,
                std::set<std::string>& out) {
  if (!j.is_object()) return;
  for (auto& [name, value] : j.items())
    if (!known.count(name)) out.insert(where + name);
}

}  // namespace

void unknown_fields(const json& record, std::set<std::string>& out) {
  static const std::set<std::string_view> run_known = {
#define X(f, key, absent) key,
      OCCTUNE_KEY_FIELDS(X) OCCTUNE_RUN_FIELDS(X)
#undef X
      "device", "argv", "policy", "cublas", "measurements"};
  static const std::set<std::string_view> device_known = {
#define X(f, key, absent) key,
      OCCTUNE_KEY_DEVICE_FIELDS(X)
#undef X
      "compute_capability"};
  static const std::set<std::string_view> cublas_known = {
#define X(f, key, absent) key,
      OCCTUNE_CUBLAS_FIELDS(X)
#undef X
      "timing"};
  static const std::set<std::string_view> summary_known = {
#define X(f, key) key,
      OCCTUNE_SUMMARY_FIELDS(X)
#undef X
  };
  static const std::set<std::string_view> measurement_known = {
#define X(f, key, absent) key,
      OCCTUNE_CONFIG_FIELDS(X) OCCTUNE_MEASUREMENT_FIELDS(X)
#undef X
      "family", "params", "timing"};
  std::set<std::string_view> timing_known = summary_known;
#define X(f, key, absent) timing_known.insert(key);
  OCCTUNE_MEASUREMENT_TIMING_FIELDS(X)
#undef X
  unknown_in(record, run_known, "runs.", out);
  if (auto it = record.find("device"); it != record.end())
    unknown_in(*it, device_known, "runs.device.", out);
  if (auto it = record.find("cublas"); it != record.end()) {
    unknown_in(*it, cublas_known, "runs.cublas.", out);
    if (auto t = it->find("timing"); it->is_object() && t != it->end())
      unknown_in(*t, summary_known, "runs.cublas.timing.", out);
  }
  if (auto it = record.find("measurements"); it != record.end() && it->is_array()) {
    for (auto& m : *it) {
      unknown_in(m, measurement_known, "measurements.", out);
      if (auto t = m.find("timing"); m.is_object() && t != m.end())
        unknown_in(*t, timing_known, "measurements.timing.", out);
    }
  }
}

}  // namespace occtune::model
