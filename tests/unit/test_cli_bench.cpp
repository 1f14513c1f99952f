// `occtune bench` as a user meets it without a GPU: bad input is exit 2 before any GPU work,
// no GPU is exit 4, and the throwaway database is removed in every case.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

// A private TMPDIR per test, where bench puts its throwaway database: tests running in
// parallel must not see each other's files.
struct PrivateTmp {
  fs::path dir;
  PrivateTmp() {
    dir = fs::temp_directory_path() /
          ("occtune-bench-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  ~PrivateTmp() { fs::remove_all(dir); }
  std::string env() const { return "TMPDIR=" + dir.string(); }
  int bench_databases() const {
    int count = 0;
    for (auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename().string().rfind("occtune-bench-", 0) == 0) ++count;
    return count;
  }
};

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
  const PrivateTmp tmp;
  expect_error(run_cli("bench --kernel nope", tmp.env()), 2, "unknown kernel 'nope'");
  expect_error(run_cli("bench --shape 12x", tmp.env()), 2, "12x");
  expect_error(run_cli("bench --format xml", tmp.env()), 2, "xml");
  EXPECT_EQ(tmp.bench_databases(), 0);
}

TEST(CliBench, NoGpuIsARuntimeFailureAndLeavesNoDatabase) {
  const PrivateTmp tmp;
  auto r = run_cli("bench --shape 64x64x64 --kernel pipelined --quiet",
                   tmp.env() + " CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  EXPECT_EQ(tmp.bench_databases(), 0);
}

}  // namespace
}  // namespace occtune
