// Registers from the compiled code (issue #13), no GPU needed: this program's own kernels
// (tests/support/compiled_kernels.cu, built once per fatbin compression mode for the project's
// architectures) read back from /proc/self/exe must match what ptxas reported when it compiled
// them (generated/compiled_kernels_expected.inc, captured at build time), for every kernel,
// mode and architecture; an architecture the program lacks says so and names the fix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "autotuner/core/compiled_resources.hpp"
#include "autotuner/core/elf_view.hpp"
#include "autotuner/core/fatbin.hpp"
#include "tests/support/compiled_kernels.hpp"

namespace occtune {
namespace {

struct Expected {
  const char* mangled;
  int arch, registers, static_smem, barriers;
};
const Expected kExpected[] = {
#include "compiled_kernels_expected.inc"
};

std::map<std::pair<std::string, int>, Expected> expected_by_kernel() {
  std::map<std::pair<std::string, int>, Expected> out;
  for (const auto& e : kExpected) out[{e.mangled, e.arch}] = e;
  return out;
}

std::set<int> built_archs() {
  std::set<int> archs;
  for (const auto& e : kExpected) archs.insert(e.arch);
  return archs;
}

std::vector<std::pair<std::string, std::vector<ProbeKernel>>> modes() {
  return {{"default", probe_kernels_default()},
          {"none", probe_kernels_none()},
          {"zstd", probe_kernels_zstd()},
          {"lz4", probe_kernels_lz4()},
          {"shared", probe_kernels_shared()}};
}

std::vector<char> self_image() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(CompiledResources, EveryKernelModeAndArchMatchesPtxasReport) {
  const auto expected = expected_by_kernel();
  ASSERT_FALSE(expected.empty());
  int checked = 0;
  std::set<int> register_counts;
  for (const auto& [mode, kernels] : modes()) {
    for (const auto& k : kernels) {
      for (int arch : built_archs()) {
        SCOPED_TRACE(mode + " " + k.name + " sm_" + std::to_string(arch));
        const CompiledLookup found = compiled_resources(k.function, arch);
        ASSERT_TRUE(found.resources) << found.why;
        EXPECT_EQ(found.cubin_arch, arch);
        // The object that holds the function: the test program, or the shared library.
        EXPECT_NE(found.object.find(mode == "shared" ? "libprobe_kernels_shared.so"
                                                     : "test_compiled_resources"),
                  std::string::npos)
            << found.object;
        // The host function's symbol is the device kernel's mangled name, in the namespace of
        // the mode it was built in.
        EXPECT_NE(found.mangled.find("probe_" + mode), std::string::npos) << found.mangled;
        const auto e = expected.find({found.mangled, arch});
        ASSERT_NE(e, expected.end()) << found.mangled << " is not in ptxas's report";
        EXPECT_EQ(found.resources->registers, e->second.registers);
        EXPECT_EQ(found.resources->static_smem, e->second.static_smem);
        EXPECT_EQ(found.resources->barriers, e->second.barriers);
        register_counts.insert(found.resources->registers);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 5 * int(built_archs().size()));
  // The kernels differ, so a reader that returned one constant would fail above; say so here.
  EXPECT_GE(register_counts.size(), 3u);
}

TEST(CompiledResources, TheProgramHoldsEachCompressionNvccWrites) {
  // The modes above are only covered if nvcc really compressed their cubins both ways.
  const auto raw = self_image();
  const elf::View view({reinterpret_cast<const std::byte*>(raw.data()), raw.size()});
  const auto* section = view.section(".nv_fatbin");
  ASSERT_NE(section, nullptr);
  std::map<std::string, int> cubins;
  for (const auto& entry : fatbin::read_entries(view.bytes(*section)))
    if (entry.kind == fatbin::Entry::Kind::kCubin) {
      EXPECT_EQ(entry.error, "");
      ++cubins[std::string(entry.compression)];
    }
  EXPECT_GT(cubins["none"], 0);
  EXPECT_GT(cubins["zstd"], 0);
  EXPECT_GT(cubins["lz4"], 0);
}

TEST(CompiledResources, AnArchTheProgramLacksSaysWhatItHasAndTheFix) {
  const auto archs = built_archs();
  std::set<int> majors;
  for (int a : archs) majors.insert(a / 10);
  int missing = 0;  // an architecture no built cubin runs on
  for (int a : {100, 120, 61})
    if (!majors.count(a / 10)) {
      missing = a;
      break;
    }
  ASSERT_NE(missing, 0);
  const auto kernel = probe_kernels_default().front();
  const CompiledLookup found = compiled_resources(kernel.function, missing);
  EXPECT_FALSE(found.resources);
  const std::string arch = std::to_string(missing);
  EXPECT_NE(found.why.find("has no sm_" + arch + " code (it was built for"), std::string::npos)
      << found.why;
  EXPECT_NE(found.why.find("sm_" + std::to_string(*archs.begin())), std::string::npos)
      << found.why;
  EXPECT_NE(found.why.find("add " + arch + " to CUDA_ARCHITECTURES"), std::string::npos)
      << found.why;
}

TEST(CompiledResources, ANewerMinorVersionLoadsTheNearestCubin) {
  // sm_86 runs sm_80 code: with 80 built and 86 not, the reading is the sm_80 cubin's.
  const auto archs = built_archs();
  for (int a = 81; a <= 86; ++a)
    if (!archs.count(80) || archs.count(a))
      GTEST_SKIP() << "needs 80 and none of 81 to 86 among the architectures";
  const auto expected = expected_by_kernel();
  for (const auto& k : probe_kernels_none()) {
    const CompiledLookup found = compiled_resources(k.function, 86);
    ASSERT_TRUE(found.resources) << found.why;
    EXPECT_EQ(found.cubin_arch, 80);
    EXPECT_EQ(found.resources->registers, expected.at({found.mangled, 80}).registers);
  }
}

void not_a_kernel() {}

TEST(CompiledResources, AHostFunctionIsInNoCubin) {
  const CompiledLookup found =
      compiled_resources(reinterpret_cast<const void*>(&not_a_kernel), *built_archs().begin());
  EXPECT_FALSE(found.resources);
  EXPECT_NE(found.why.find("is in none of the cubins"), std::string::npos) << found.why;
  int local = 0;
  const CompiledLookup nowhere = compiled_resources(&local, 90);  // the stack: no object
  EXPECT_FALSE(nowhere.resources);
  EXPECT_NE(nowhere.why.find("no loaded program or library"), std::string::npos) << nowhere.why;
}

TEST(CompiledResources, AMalformedFatbinIsAnErrorNotACrash) {
  const auto raw = self_image();
  const elf::View view({reinterpret_cast<const std::byte*>(raw.data()), raw.size()});
  const auto bytes = view.bytes(*view.section(".nv_fatbin"));
  // Cut inside the first container: its declared size runs past what is left.
  EXPECT_THROW(fatbin::read_entries(bytes.first(100)), std::runtime_error);
  // A cubin entry's bytes that are no ELF.
  std::vector<std::byte> junk(64, std::byte{0x41});
  EXPECT_THROW(fatbin::read_cubin_kernels(junk), std::runtime_error);
  EXPECT_THROW(elf::View(std::span<const std::byte>(junk).first(10)), std::runtime_error);
}

// One container with one cubin entry of 8 payload bytes, laid out as nvcc writes it.
std::vector<std::byte> crafted(std::uint16_t container_header, std::uint32_t entry_header,
                               std::uint64_t flags, std::uint64_t original) {
  std::vector<std::byte> b(16 + 64 + 8, std::byte{0x5a});
  auto put = [&b](std::size_t at, auto value) { std::memcpy(b.data() + at, &value, sizeof value); };
  put(0, std::uint32_t{0xBA55ED50});
  put(4, std::uint16_t{1});
  put(6, container_header);
  put(8, std::uint64_t{64 + 8});
  put(16, std::uint16_t{2});
  put(18, std::uint16_t{0x0101});
  put(20, entry_header);
  put(24, std::uint64_t{8});   // payload
  put(32, std::uint32_t{8});   // compressed size
  put(44, std::uint32_t{90});  // arch
  put(56, flags);
  put(72, original);
  return b;
}

TEST(CompiledResources, CraftedContainersAreReadOrRefusedWithTheOffset) {
  const auto plain = fatbin::read_entries(crafted(16, 64, 0, 0));
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].arch, 90);
  EXPECT_EQ(plain[0].compression, "none");
  EXPECT_EQ(plain[0].data.size(), 8u);
  auto refusal = [](const std::vector<std::byte>& bytes) {
    try {
      fatbin::read_entries(bytes);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(refusal(crafted(0xffff, 64, 0, 0)), ::testing::HasSubstr("container at offset 0"));
  EXPECT_THAT(refusal(crafted(16, 0xffffffff, 0, 0)), ::testing::HasSubstr("entry at offset 16"));
  // Bytes that are no Zstandard frame, and no LZ4 block of the stated size: that entry's error,
  // the walk goes on.
  const auto zstd = fatbin::read_entries(crafted(16, 64, 0x8000, 100));
  ASSERT_EQ(zstd.size(), 1u);
  EXPECT_THAT(zstd[0].error, ::testing::HasSubstr("entry at offset 16: Zstandard"));
  EXPECT_TRUE(zstd[0].data.empty());
  const auto lz4 = fatbin::read_entries(crafted(16, 64, 0x2000, 100));
  ASSERT_EQ(lz4.size(), 1u);
  EXPECT_THAT(lz4[0].error, ::testing::HasSubstr("LZ4"));
}

}  // namespace
}  // namespace occtune
