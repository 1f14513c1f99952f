// libFuzzer harness for the device selector (autotuner/core/device_selector.cpp): any bytes as
// --device, matched against two made-up GPUs.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "autotuner/core/device_selector.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using occtune::DeviceSelector;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::vector<occtune::DeviceInfo> devices = [] {
    std::vector<occtune::DeviceInfo> d(2);
    d[0].index = 0;
    d[0].uuid = "GPU-8c1f0a2b-1111-2222-3333-444455556666";
    d[1].index = 1;
    d[1].uuid = "GPU-8c1f9999-aaaa-bbbb-cccc-ddddeeeeffff";
    return d;
  }();
  DeviceSelector s;
  if (!occtune::fuzz::accepts([&] { s = occtune::parse_device_selector(text); })) return 0;
  if (s.kind == DeviceSelector::Kind::kIndex && (s.index < 0 || s.index > occtune::kMaxDeviceIndex))
    occtune::fuzz::violation("accepted index", "out of range");
  if (s.kind == DeviceSelector::Kind::kUuid &&
      (s.uuid_prefix.rfind("GPU-", 0) != 0 || s.uuid_prefix.size() > 40))
    occtune::fuzz::violation("accepted UUID", s.uuid_prefix.c_str());
  const occtune::DeviceInfo* match = nullptr;
  if (occtune::fuzz::accepts([&] { match = &occtune::match_device(devices, s); })) {
    if (match != &devices[0] && match != &devices[1])
      occtune::fuzz::violation("match", "returned a device that is not in the list");
  }
  return 0;
}
