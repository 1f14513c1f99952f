// libFuzzer harness for the device-profile parser (autotuner/core/device_profile.cpp): any
// bytes as a profile TOML file (`occtune plan --profile FILE`).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "autotuner/core/device_profile.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  occtune::fuzz::accepts([&] { (void)occtune::parse_device_profile(text, "fuzz.toml"); });
  return 0;
}
