// JSON encodings of the structured values the store keeps in text columns (device properties,
// timing policy, argv, samples). Private to db/; the text formats are part of the schema.
#pragma once

#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"

namespace occtune::db::codec {

std::string device_json(const DeviceInfo& device);
// Fields missing from the text keep their defaults, so rows written by older builds still load.
DeviceInfo device_from_json(const std::string& text);

std::string policy_json(const TimingPolicy& policy);
std::string strings_json(const std::vector<std::string>& values);
std::string samples_json(const std::vector<double>& samples);
std::vector<double> samples_from_json(const std::string& text);

}  // namespace occtune::db::codec
