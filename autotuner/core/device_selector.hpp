// The device selector of --device, OCCTUNE_DEVICE and [job].device: a GPU index ("0") or a UUID
// as `occtune devices` prints it, a unique prefix being enough ("GPU-8c1f", "8c1f"). Parsing and
// matching are pure functions, so bad selectors are rejected, tested and fuzzed with no GPU.
// Included by .cu files: C++17, no host-only libraries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/device_info.hpp"

namespace occtune {

struct DeviceSelector {
  enum class Kind { kDefault, kIndex, kUuid };
  Kind kind = Kind::kDefault;  // kDefault: empty text, the first visible device
  int index = 0;               // kIndex
  std::string uuid_prefix;     // kUuid: lower case, always starting with "GPU-"
  std::string text;            // as written, for messages
};

// Largest index accepted; anything above is surely a typo, and keeps the value in an int.
inline constexpr int kMaxDeviceIndex = 9999;

// Throws Error(kUsage) naming the text and the accepted forms.
DeviceSelector parse_device_selector(std::string_view text);

// The one device the selector names. Throws Error(kUsage) when it names none or (a UUID prefix)
// more than one, saying how many devices are visible and how to list them.
const DeviceInfo& match_device(const std::vector<DeviceInfo>& devices,
                               const DeviceSelector& selector);

}  // namespace occtune
