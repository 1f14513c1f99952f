// Device selectors as pure functions (autotuner/core/device_selector): which texts are indices,
// which are UUID prefixes, which are rejected, and how they match a list of devices. The CLI
// side of the same rules is in test_bad_input.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autotuner/core/device_selector.hpp"
#include "autotuner/core/error.hpp"

namespace occtune {
namespace {

using Kind = DeviceSelector::Kind;

std::vector<DeviceInfo> two_gpus() {
  std::vector<DeviceInfo> d(2);
  d[0].index = 0;
  d[0].uuid = "GPU-8c1f0a2b-1111-2222-3333-444455556666";
  d[1].index = 1;
  d[1].uuid = "GPU-8c1f9999-aaaa-bbbb-cccc-ddddeeeeffff";
  return d;
}

void expect_usage_error(const std::string& text, const std::string& mention) {
  try {
    parse_device_selector(text);
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << text;
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("occtune devices"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelector, ParsesIndicesAndUuidPrefixes) {
  EXPECT_EQ(parse_device_selector("").kind, Kind::kDefault);
  auto s = parse_device_selector("0");
  EXPECT_EQ(s.kind, Kind::kIndex);
  EXPECT_EQ(s.index, 0);
  EXPECT_EQ(parse_device_selector("9999").index, 9999);
  EXPECT_EQ(parse_device_selector("007").index, 7);
  s = parse_device_selector("GPU-8C1F0A2B-11");
  EXPECT_EQ(s.kind, Kind::kUuid);
  EXPECT_EQ(s.uuid_prefix, "GPU-8c1f0a2b-11");
  EXPECT_EQ(parse_device_selector("8c1f").uuid_prefix, "GPU-8c1f");
  EXPECT_EQ(parse_device_selector("gpu-8c1f").uuid_prefix, "GPU-8c1f");
  EXPECT_EQ(parse_device_selector("GPU-8c1f0a2b-1111-2222-3333-444455556666").kind, Kind::kUuid);
}

TEST(DeviceSelector, RejectsWhatCanNameNoDevice) {
  for (std::string bad :
       {"-1", "+1", "-", "foo", "GPU-", "GPU-zz", "GPU-8c1f0a2b_1111", "GPU-8c1f0a2b1", "12345",
        " 0", "0 ", "1.0", "MIG-1234", "GPU-8c1f0a2b-1111-2222-3333-4444555566667"})
    expect_usage_error(bad, "'" + bad + "'");
  // Control characters are shown escaped: the message stays one line.
  try {
    parse_device_selector("0\n1");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'0\\n1'"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelector, MatchesOneDeviceOrSaysWhy) {
  const auto gpus = two_gpus();
  EXPECT_EQ(&match_device(gpus, parse_device_selector("")), &gpus[0]);
  EXPECT_EQ(&match_device(gpus, parse_device_selector("1")), &gpus[1]);
  EXPECT_EQ(&match_device(gpus, parse_device_selector("8c1f99")), &gpus[1]);
  EXPECT_EQ(&match_device(gpus, parse_device_selector("GPU-8C1F0A")), &gpus[0]);
  auto expect_error = [&](const std::string& text, ExitCode code, const std::string& mention) {
    try {
      match_device(gpus, parse_device_selector(text));
      ADD_FAILURE() << "matched '" << text << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << text;
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  };
  expect_error("2", ExitCode::kUsage, "2 device(s) are visible");
  expect_error("8c1f", ExitCode::kUsage, "more than one GPU");
  expect_error("GPU-ffff", ExitCode::kUsage, "no visible device matches 'GPU-ffff'");
  EXPECT_THROW(match_device({}, parse_device_selector("0")), Error);
}

}  // namespace
}  // namespace occtune
