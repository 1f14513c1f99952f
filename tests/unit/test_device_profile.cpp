// Unit tests of device profiles (autotuner/core/device_profile): every shipped profile loads with
// sane, self-consistent numbers and is named after its file; lookup is case-insensitive and takes
// file paths; every kind of bad input is refused with a one-line usage error naming the key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/embedded_configs.hpp"
#include "autotuner/core/error.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kShipped = {"a100", "h100", "h200", "l4", "rtx4090", "t4"};

std::string embedded_text(const std::string& stem) {
  for (auto& f : embedded_configs())
    if (f.path == "profiles/" + stem + ".toml") return std::string(f.contents);
  ADD_FAILURE() << "profiles/" << stem << ".toml is not embedded";
  return {};
}

// The H100 profile with the line that sets `key` replaced by `line` (or removed when empty).
std::string h100_with(const std::string& key, const std::string& line) {
  std::string text = embedded_text("h100");
  // `sources` spans several lines in the shipped files; every other key is on one line.
  const std::string value = key == "sources" ? " *= *\\[[\\s\\S]*?\n\\]" : " *=[^\n]*";
  std::regex re("(^|\n)" + key + value);
  EXPECT_TRUE(std::regex_search(text, re)) << key;
  return std::regex_replace(text, re, line.empty() ? std::string("$1") : "$1" + line,
                            std::regex_constants::format_first_only);
}

// Parses `text` expecting a usage error; returns its message.
std::string usage_error(const std::string& text) {
  try {
    parse_device_profile(text, "test.toml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    EXPECT_NE(msg.find("test.toml"), std::string::npos) << "does not name the origin: " << msg;
    return msg;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    path_ = fs::temp_directory_path() / ("occtune_profile_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(counter_++) + ".toml");
    std::ofstream(path_) << contents;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

// --- shipped profiles -----------------------------------------------------------------------

TEST(DeviceProfile, ShipsTheDocumentedProfiles) { EXPECT_EQ(profile_names(), kShipped); }

TEST(DeviceProfile, EmbeddedProfilesMatchTheFilesInConfigs) {
  std::set<std::string> on_disk;
  for (auto& entry : fs::directory_iterator(fs::path(OCCTUNE_SOURCE_DIR) / "configs/profiles"))
    if (entry.path().extension() == ".toml") on_disk.insert(entry.path().stem().string());
  EXPECT_EQ(std::vector<std::string>(on_disk.begin(), on_disk.end()), profile_names());
}

TEST(DeviceProfile, EveryShippedProfileLoadsWithSaneValues) {
  for (auto& name : profile_names()) {
    SCOPED_TRACE(name);
    const DeviceInfo d = load_device_profile(name);
    EXPECT_EQ(d.index, -1);
    EXPECT_TRUE(d.uuid.empty());
    EXPECT_EQ(d.source, "profile:" + name);
    EXPECT_EQ(d.driver_version, 0);
    EXPECT_EQ(d.runtime_version, 0);
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.cc_major, 7);
    EXPECT_GE(d.cc_minor, 0);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_EQ(d.warp_size, 32);
    EXPECT_EQ(d.max_threads_per_block, 1024);
    EXPECT_GE(d.max_threads_per_sm, d.max_threads_per_block);
    EXPECT_EQ(d.max_threads_per_sm % d.warp_size, 0);
    EXPECT_GT(d.max_blocks_per_sm, 0);
    EXPECT_EQ(d.regs_per_sm, 65536);
    EXPECT_LE(d.regs_per_block, d.regs_per_sm);
    EXPECT_EQ(d.shared_mem_per_block, 48u * 1024);
    EXPECT_GE(d.shared_mem_per_block_optin, d.shared_mem_per_block);
    // The opt-in limit is what is left of the SM's shared memory after the per-block reservation.
    EXPECT_EQ(d.shared_mem_per_block_optin + d.reserved_shared_mem_per_block, d.shared_mem_per_sm);
    EXPECT_GT(d.l2_bytes, 0u);
    EXPECT_GT(d.global_mem_bytes, d.l2_bytes);
    EXPECT_GT(d.clock_khz, 0);
    EXPECT_EQ(d.clock_khz % 1000, 0);
    EXPECT_GT(d.memory_clock_khz, 0);
    EXPECT_GT(d.memory_bus_width, 0);
    EXPECT_EQ(d.max_grid_x, 2147483647);
    EXPECT_EQ(d.max_grid_y, 65535);
  }
}

TEST(DeviceProfile, NamesAreLowerCaseAndMatchTheFileStem) {
  for (auto& name : profile_names()) {
    SCOPED_TRACE(name);
    std::string lowered = name;
    std::transform(lowered.begin(), lowered.end(), lowered.begin(), ::tolower);
    EXPECT_EQ(name, lowered);
    const std::string text = embedded_text(name);
    EXPECT_TRUE(std::regex_search(text, std::regex("(^|\n)profile = \"" + name + "\"")))
        << "profile key differs from the file stem";
  }
}

TEST(DeviceProfile, PublishedNumbersOfTheH100) {
  const DeviceInfo d = load_device_profile("h100");
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.compute_capability(), 90);
  EXPECT_EQ(d.arch(), "sm_90");
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.max_threads_per_sm, 2048);
  EXPECT_EQ(d.max_blocks_per_sm, 32);
  EXPECT_EQ(d.shared_mem_per_block_optin, 227u * 1024);
  EXPECT_EQ(d.shared_mem_per_sm, 228u * 1024);
  EXPECT_EQ(d.reserved_shared_mem_per_block, 1024u);
  EXPECT_EQ(d.l2_bytes, 50u * 1024 * 1024);
  EXPECT_EQ(d.clock_khz, 1980 * 1000);
  EXPECT_EQ(d.memory_clock_khz, 2619 * 1000);
  EXPECT_EQ(d.memory_bus_width, 5120);
}

TEST(DeviceProfile, ArchitectureDifferencesAreThePublishedOnes) {
  const DeviceInfo a100 = load_device_profile("a100");
  EXPECT_EQ(a100.compute_capability(), 80);
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.shared_mem_per_sm, 164u * 1024);
  EXPECT_EQ(a100.shared_mem_per_block_optin, 163u * 1024);

  const DeviceInfo t4 = load_device_profile("t4");
  EXPECT_EQ(t4.compute_capability(), 75);
  EXPECT_EQ(t4.sm_count, 40);
  EXPECT_EQ(t4.max_threads_per_sm, 1024);
  EXPECT_EQ(t4.max_blocks_per_sm, 16);
  EXPECT_EQ(t4.shared_mem_per_sm, 64u * 1024);
  EXPECT_EQ(t4.reserved_shared_mem_per_block, 0u);

  const DeviceInfo rtx = load_device_profile("rtx4090");
  EXPECT_EQ(rtx.compute_capability(), 89);
  EXPECT_EQ(rtx.sm_count, 128);
  EXPECT_EQ(rtx.max_threads_per_sm, 1536);
  EXPECT_EQ(rtx.max_blocks_per_sm, 24);
  EXPECT_EQ(rtx.shared_mem_per_sm, 100u * 1024);
  EXPECT_EQ(rtx.shared_mem_per_block_optin, 99u * 1024);
  EXPECT_EQ(rtx.l2_bytes, 72u * 1024 * 1024);

  const DeviceInfo l4 = load_device_profile("l4");
  EXPECT_EQ(l4.compute_capability(), 89);
  EXPECT_EQ(l4.sm_count, 58);

  const DeviceInfo h200 = load_device_profile("h200");
  EXPECT_EQ(h200.compute_capability(), 90);
  EXPECT_EQ(h200.sm_count, 132);
  EXPECT_GT(h200.global_mem_bytes, load_device_profile("h100").global_mem_bytes);
}

// --- lookup ---------------------------------------------------------------------------------

TEST(DeviceProfile, LookupIgnoresCase) {
  const DeviceInfo lower = load_device_profile("h100");
  const DeviceInfo upper = load_device_profile("H100");
  const DeviceInfo mixed = load_device_profile("Rtx4090");
  EXPECT_EQ(upper.name, lower.name);
  EXPECT_EQ(upper.sm_count, lower.sm_count);
  EXPECT_EQ(upper.source, "profile:h100");
  EXPECT_EQ(mixed.source, "profile:rtx4090");
}

TEST(DeviceProfile, LoadsAProfileFromAFile) {
  TempFile file(h100_with("sm_count", "sm_count = 114"));
  const DeviceInfo d = load_device_profile(file.path());
  EXPECT_EQ(d.sm_count, 114);
  EXPECT_EQ(d.source, "profile:" + file.path());
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
}

TEST(DeviceProfile, ErrorsInAFileNameTheFile) {
  TempFile file(h100_with("sm_count", "sm_count = 0"));
  try {
    load_device_profile(file.path());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(file.path()), std::string::npos) << e.what();
  }
}

TEST(DeviceProfile, UnknownNameListsTheKnownProfiles) {
  try {
    load_device_profile("x100");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_STREQ(e.what(),
                 "unknown device profile 'x100'; known profiles: a100, h100, h200, l4, rtx4090, "
                 "t4 (or pass a path to a .toml profile)");
  }
  EXPECT_THROW(load_device_profile(""), Error);
  EXPECT_THROW(load_device_profile("/nonexistent/dir/h100.toml"), Error);
}

// --- bad input ------------------------------------------------------------------------------

TEST(DeviceProfile, MalformedTomlGivesLineAndColumn) {
  const std::string msg = usage_error(h100_with("sm_count", "sm_count = = 132"));
  EXPECT_NE(msg.find("not valid TOML at line"), std::string::npos) << msg;
  EXPECT_NE(msg.find("column"), std::string::npos) << msg;
}

TEST(DeviceProfile, MissingKey) {
  const std::string msg = usage_error(h100_with("regs_per_sm", ""));
  EXPECT_NE(msg.find("missing key 'regs_per_sm'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("regs_per_sm = 65536"), std::string::npos) << "no example fix: " << msg;
}

TEST(DeviceProfile, WrongType) {
  std::string msg = usage_error(h100_with("sm_count", "sm_count = \"132\""));
  EXPECT_NE(msg.find("'sm_count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be an integer, not a string"), std::string::npos) << msg;

  msg = usage_error(h100_with("clock_mhz", "clock_mhz = 1980.5"));
  EXPECT_NE(msg.find("'clock_mhz'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a float"), std::string::npos) << msg;

  msg = usage_error(h100_with("name", "name = 42"));
  EXPECT_NE(msg.find("'name'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be a string"), std::string::npos) << msg;

  msg = usage_error(h100_with("sources", "sources = \"whitepaper\""));
  EXPECT_NE(msg.find("'sources'"), std::string::npos) << msg;

  msg = usage_error(h100_with("sources", "sources = []"));
  EXPECT_NE(msg.find("'sources'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is empty"), std::string::npos) << msg;
}

TEST(DeviceProfile, UnknownKey) {
  const std::string msg = usage_error(embedded_text("h100") + "\nsm_cout = 132\n");
  EXPECT_NE(msg.find("unknown key 'sm_cout'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("remove it or fix its spelling"), std::string::npos) << msg;

  const std::string table = usage_error(embedded_text("h100") + "\n[extra]\nx = 1\n");
  EXPECT_NE(table.find("unknown key 'extra'"), std::string::npos) << table;
}

TEST(DeviceProfile, ZeroAndNegativeValues) {
  std::string msg = usage_error(h100_with("sm_count", "sm_count = 0"));
  EXPECT_NE(msg.find("'sm_count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be positive, got 0"), std::string::npos) << msg;

  msg = usage_error(h100_with("clock_mhz", "clock_mhz = -5"));
  EXPECT_NE(msg.find("'clock_mhz'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be positive, got -5"), std::string::npos) << msg;

  msg =
      usage_error(h100_with("reserved_shared_mem_per_block", "reserved_shared_mem_per_block = -1"));
  EXPECT_NE(msg.find("'reserved_shared_mem_per_block'"), std::string::npos) << msg;

  // Zero reserved shared memory is legitimate (Turing reserves none).
  EXPECT_EQ(parse_device_profile(
                h100_with("reserved_shared_mem_per_block", "reserved_shared_mem_per_block = 0"),
                "test.toml")
                .reserved_shared_mem_per_block,
            0u);

  msg = usage_error(h100_with("sm_count", "sm_count = 3000000000"));
  EXPECT_NE(msg.find("'sm_count'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("too large"), std::string::npos) << msg;
}

TEST(DeviceProfile, OnlyVersionOneIsRead) {
  const std::string msg = usage_error(h100_with("version", "version = 2"));
  EXPECT_NE(msg.find("'version'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("version = 1"), std::string::npos) << msg;
}

TEST(DeviceProfile, ComputeCapabilityFormat) {
  for (const char* bad :
       {"\"9\"", "\"sm_90\"", "\"9.0.1\"", "\"9.10\"", "\"0.0\"", "\".9\"", "90"}) {
    SCOPED_TRACE(bad);
    const std::string msg =
        usage_error(h100_with("compute_capability", std::string("compute_capability = ") + bad));
    EXPECT_NE(msg.find("'compute_capability'"), std::string::npos) << msg;
  }
  const DeviceInfo d = parse_device_profile(
      h100_with("compute_capability", "compute_capability = \"12.0\""), "test.toml");
  EXPECT_EQ(d.cc_major, 12);
  EXPECT_EQ(d.cc_minor, 0);
}

TEST(DeviceProfile, ProfileNameMustBeLowerCase) {
  const std::string msg = usage_error(h100_with("profile", "profile = \"H100\""));
  EXPECT_NE(msg.find("'profile'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("profile = \"h100\""), std::string::npos) << msg;
}

TEST(DeviceProfile, InconsistentNumbersAreRefused) {
  std::string msg =
      usage_error(h100_with("shared_mem_per_block_optin", "shared_mem_per_block_optin = 1024"));
  EXPECT_NE(msg.find("'shared_mem_per_block_optin'"), std::string::npos) << msg;

  msg = usage_error(h100_with("max_threads_per_sm", "max_threads_per_sm = 2000"));
  EXPECT_NE(msg.find("'max_threads_per_sm'"), std::string::npos) << msg;

  msg = usage_error(h100_with("regs_per_block", "regs_per_block = 131072"));
  EXPECT_NE(msg.find("'regs_per_block'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace occtune
