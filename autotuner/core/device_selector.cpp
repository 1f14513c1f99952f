#include "autotuner/core/device_selector.hpp"

#include <fmt/format.h>

#include <cctype>

#include "autotuner/core/error.hpp"

namespace occtune {
namespace {

constexpr std::size_t kUuidLength = 36;  // xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx

[[noreturn]] void invalid(std::string_view text, std::string_view why) {
  // Error escapes control bytes, so any text stays on one line; long text is cut.
  std::string shown(text.substr(0, 80));
  if (text.size() > 80) shown += "...";
  fail(ExitCode::kUsage,
       fmt::format("invalid device selector '{}': {}; pass a GPU index (0, 1, ...) or a UUID from "
                   "`occtune devices` (GPU-xxxxxxxx-..., a unique prefix is enough)",
                   shown, why));
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

DeviceSelector parse_device_selector(std::string_view text) {
  DeviceSelector s;
  s.text = std::string(text);
  if (text.empty()) return s;
  bool digits_only = true;
  for (char c : text) digits_only &= c >= '0' && c <= '9';
  if (digits_only) {
    if (text.size() > 4) invalid(text, fmt::format("indices go up to {}", kMaxDeviceIndex));
    s.kind = DeviceSelector::Kind::kIndex;
    for (char c : text) s.index = s.index * 10 + (c - '0');
    return s;
  }
  if (text.front() == '-' || text.front() == '+') {
    const bool number =
        text.size() > 1 && text.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
    if (number) invalid(text, "an index is a whole number from 0");
  }
  std::string_view hex = text;
  if (hex.size() >= 4 && (hex.substr(0, 4) == "GPU-" || hex.substr(0, 4) == "gpu-"))
    hex.remove_prefix(4);
  if (hex.empty()) invalid(text, "the UUID after 'GPU-' is empty");
  if (hex.size() > kUuidLength) invalid(text, "a UUID has 36 characters after 'GPU-'");
  for (std::size_t i = 0; i < hex.size(); ++i) {
    // Dashes sit at fixed places in a UUID (8, 13, 18, 23); a prefix must follow the pattern.
    const bool dash_place = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_place ? hex[i] != '-' : !is_hex(hex[i]))
      invalid(text, dash_place ? "expected '-' after each UUID group"
                               : "a UUID holds only hexadecimal digits and dashes");
  }
  s.kind = DeviceSelector::Kind::kUuid;
  s.uuid_prefix = "GPU-";
  for (char c : hex) s.uuid_prefix += char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const DeviceInfo& match_device(const std::vector<DeviceInfo>& devices,
                               const DeviceSelector& selector) {
  if (devices.empty())
    fail(ExitCode::kRuntime, "no CUDA device is visible; run `occtune devices` to see why");
  switch (selector.kind) {
    case DeviceSelector::Kind::kDefault:
      return devices.front();
    case DeviceSelector::Kind::kIndex:
      if (selector.index >= int(devices.size()))
        fail(ExitCode::kUsage,
             fmt::format("device index {} does not exist; {} device(s) are visible (run "
                         "`occtune devices`)",
                         selector.index, devices.size()));
      return devices[std::size_t(selector.index)];
    case DeviceSelector::Kind::kUuid:
      break;
  }
  const DeviceInfo* match = nullptr;
  for (auto& d : devices) {
    std::string uuid;
    for (char c : d.uuid) uuid += char(std::tolower(static_cast<unsigned char>(c)));
    if (uuid.rfind("gpu-", 0) == 0) uuid.replace(0, 4, "GPU-");
    if (uuid.rfind(selector.uuid_prefix, 0) != 0) continue;
    if (match)
      fail(ExitCode::kUsage, fmt::format("device selector '{}' matches more than one GPU; give "
                                         "more of the UUID (run `occtune devices`)",
                                         selector.text));
    match = &d;
  }
  if (!match)
    fail(ExitCode::kUsage, fmt::format("no visible device matches '{}'; pass an index or a UUID "
                                       "from `occtune devices`",
                                       selector.text));
  return *match;
}

}  // namespace occtune
