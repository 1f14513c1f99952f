// JSON encodings of device properties, timing policies and sample lists for the store's text
// columns. nlohmann::json prints doubles with round-trip precision, so samples come back exact.
#include "db/codec.hpp"

#include "autotuner/core/model_json.hpp"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

namespace occtune::db::codec {
namespace {

using nlohmann::json;

// Text from outside (device names, argv) may hold invalid UTF-8; replace it rather than throw in
// the middle of a run.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string device_json(const DeviceInfo& d) { return dump(model::to_json(d)); }

DeviceInfo device_from_json(const std::string& text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return DeviceInfo{};
  return model::device_from_json(j, model::Missing::kDefault);
}

// Every field that changes what a sample means or when sampling stops: reuse of stored
// measurements compares this text, so two protocols are the same exactly when it is.
std::string policy_json(const TimingPolicy& p) { return dump(model::to_json(p)); }

std::string strings_json(const std::vector<std::string>& values) { return dump(json(values)); }

std::string samples_json(const std::vector<double>& samples) { return json(samples).dump(); }

std::vector<double> samples_from_json(const std::string& text) {
  std::vector<double> samples;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return samples;
  for (const auto& value : j)
    if (value.is_number()) samples.push_back(value.get<double>());
  return samples;
}

}  // namespace occtune::db::codec
