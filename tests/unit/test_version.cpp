// `occtune --version` and include/occtune/version.hpp: the CLI names the version, the kernel build
// id, the CUDA runtime and the git commit, and they are the library's; the git commit reads
// "unknown" outside a git checkout.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "kernels/kernel_manifest.hpp"
#include "occtune/version.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune {
namespace {

using testing::run_cli;

std::string runtime_of_header() {
  return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
}

TEST(Version, LibraryNamesWhatItWasBuiltFrom) {
  EXPECT_STREQ(version(), OCCTUNE_PROJECT_VERSION);  // CMake's project version
  EXPECT_STREQ(kernel_build_id(), std::string(kernels::kernel_build_id()).c_str());
  EXPECT_TRUE(std::regex_match(kernel_build_id(), std::regex("[0-9a-f]{16}"))) << kernel_build_id();
  EXPECT_EQ(cuda_runtime_version(), runtime_of_header());
  EXPECT_EQ(OCCTUNE_VERSION_NUMBER, OCCTUNE_VERSION_MAJOR * 10000 + OCCTUNE_VERSION_MINOR * 100 +
                                        OCCTUNE_VERSION_PATCH);
}

TEST(Version, GitCommitIsACommitOfThisCheckoutOrUnknown) {
  const std::string commit = git_commit();
  if (commit == "unknown") {
    EXPECT_NE(std::system(("git -C '" OCCTUNE_SOURCE_DIR "' rev-parse 2>/dev/null >&2")), 0)
        << "built in a git checkout, yet the commit is unknown";
    return;
  }
  // `git describe --always --dirty`: [TAG-N-g]HASH[-dirty]
  std::smatch m;
  ASSERT_TRUE(std::regex_match(commit, m,
                               std::regex("(?:.+-[0-9]+-g)?([0-9a-f]{7,40})(?:-dirty)?")))
      << commit;
  const std::string hash = m[1];
  EXPECT_EQ(std::system(("git -C '" OCCTUNE_SOURCE_DIR "' cat-file -e " + hash + "^{commit}")
                            .c_str()),
            0)
      << hash << " is not a commit of " << OCCTUNE_SOURCE_DIR;
}

TEST(Version, CliPrintsVersionBuildIdRuntimeAndCommit) {
  const auto r = run_cli("--version");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("occtune ") + OCCTUNE_PROJECT_VERSION + "\n" +
                       "kernel build id: " + kernel_build_id() + "\n" +
                       "CUDA runtime: " + runtime_of_header() + "\n" +
                       "git commit: " + git_commit() + "\n");
}

// The generator run as the build runs it, on a directory that is no git checkout, and on a
// folder inside this checkout (a source tree unpacked in someone else's repository).
TEST(Version, GitCommitIsUnknownOutsideACheckout) {
  testing::TempDir tmp;
  for (const std::string& source :
       {tmp.path.string(), std::string(OCCTUNE_SOURCE_DIR "/cmake")}) {
    const auto out = tmp.path / "git_commit.cpp";
    const std::string cmd = std::string("'" OCCTUNE_CMAKE "' -DSOURCE_DIR='") + source +
                            "' -DOUTPUT='" + out.string() + "' -P '" OCCTUNE_SOURCE_DIR
                            "/cmake/generate-git-commit.cmake'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string code = testing::slurp(out);
    EXPECT_NE(code.find("return \"unknown\";"), std::string::npos) << source << ":\n" << code;
  }
}

}  // namespace
}  // namespace occtune
