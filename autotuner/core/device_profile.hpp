// Device profiles: the published properties of a GPU model as TOML (configs/profiles/*.toml,
// embedded in the binary), so `occtune plan --profile h100` plans with no GPU present.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/device_info.hpp"

namespace occtune {

// `name_or_file` is a shipped profile name ("h100", case-insensitive) or a path to a TOML file.
// Throws Error(kUsage) naming the profile/key and listing the known names or the fix.
DeviceInfo load_device_profile(const std::string& name_or_file);
DeviceInfo parse_device_profile(std::string_view toml_text, const std::string& origin);
std::vector<std::string> profile_names();

}  // namespace occtune
