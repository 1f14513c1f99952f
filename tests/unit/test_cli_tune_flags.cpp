// The protocol and search flags of `occtune tune` as a user meets them: bad values are usage
// errors (exit 2) naming the flag, found before any GPU work; the help lists every flag.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

void expect_usage(const std::string& args, const std::string& mention) {
  // A usage error comes before the database is opened: the directory is never created.
  const fs::path dir = fs::temp_directory_path() / ("occtune_flags_" + std::to_string(::getpid()));
  auto r = run_cli("tune --shape 64x64x64 --db " + (dir / "never.db").string() + " " + args);
  EXPECT_FALSE(fs::exists(dir)) << args;
  fs::remove_all(dir);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << args << "\nstderr: " << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(CliTuneFlags, BadProtocolAndSearchValuesNameTheFlag) {
  expect_usage("--strategy greedy", "'greedy'");
  expect_usage("--strategy greedy", "halving, exhaustive, occupancy");
  expect_usage("--samples 50 --max-samples 10", "--max-samples = 10");
  expect_usage("--target-noise 0", "--target-noise = 0");
  expect_usage("--tie-level 1.5", "--tie-level = 1.5");
  expect_usage("--drop-factor 0.5", "--drop-factor = 0.5");
  expect_usage("--time-budget -1", "--time-budget = -1");
  expect_usage("--throttle-ratio 2", "--throttle-ratio = 2");
  expect_usage("--max-seconds 0", "--max-seconds = 0");
  expect_usage("--batch 0", "--batch");
  expect_usage("--max-candidates -2", "--max-candidates");
  expect_usage("--flush-l2 maybe", "--flush-l2");
  expect_usage("--finalists many", "many");
  expect_usage("--prune roofline", "'roofline'");  // issue #18
  expect_usage("--prune roofline", "cost, none");
  expect_usage("--prune-factor 0.5", "--prune-factor = 0.5");
  expect_usage("--prune-keep -1", "--prune-keep = -1");
  expect_usage("--abandon-factor 0.9", "--abandon-factor = 0.9");  // issue #18
  expect_usage("--behind-factor 1", "--behind-factor = 1");
}

TEST(CliTuneFlags, HelpListsEveryProtocolAndSearchFlag) {
  auto r = run_cli("tune --help");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* flag : {"--strategy",       "--time-budget",
                           "--max-candidates", "--force",
                           "--samples",        "--warmup",
                           "--min-seconds",    "--target-noise",
                           "--max-seconds",    "--max-samples",
                           "--batch",          "--flush-l2",
                           "--tolerance",      "--seed",
                           "--settle-ms",      "--settle-timeout-ms",
                           "--throttle-ratio", "--throttle-retries",
                           "--screen-samples", "--drop-factor",
                           "--finalists",      "--confirm-samples",
                           "--tie-level",      "--quiet",
                           "--no-isolation",   "--prune",
                           "--prune-factor",   "--prune-keep",
                           "--abandon-factor", "--behind-factor"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace occtune
