// `occtune bench` as a user meets it without a GPU: bad input is exit 2 before any GPU work,
// no GPU is exit 4, and the throwaway database is removed in every case.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

int bench_databases() {
  int count = 0;
  for (auto& entry : fs::directory_iterator(fs::temp_directory_path()))
    if (entry.path().filename().string().rfind("occtune-bench-", 0) == 0) ++count;
  return count;
}

void expect_error(const testing::CliResult& r, int code, const std::string& mention) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << "stderr: " << r.err;
}

TEST(CliBench, HelpListsTheOptions) {
  auto r = run_cli("bench --help");
  EXPECT_EQ(r.code, 0);
  for (auto* option : {"--shape", "--kernel", "--config", "--db", "--format"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

TEST(CliBench, BadInputIsAUsageError) {
  const int before = bench_databases();
  expect_error(run_cli("bench --kernel nope"), 2, "unknown kernel 'nope'");
  expect_error(run_cli("bench --shape 12x"), 2, "12x");
  expect_error(run_cli("bench --format csv"), 2, "csv");
  EXPECT_EQ(bench_databases(), before);
}

TEST(CliBench, NoGpuIsARuntimeFailureAndLeavesNoDatabase) {
  const int before = bench_databases();
  auto r = run_cli("bench --shape 64x64x64 --kernel pipelined --quiet", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  EXPECT_EQ(bench_databases(), before);
}

}  // namespace
}  // namespace occtune
