// Hostile imports (issue #16, defect 3): every forged document of the issue is refused whole,
// exit 2, with the JSON path of the problem, and the store is left byte-for-byte as it was.
// Before db/import_validation these were accepted and served as the best configuration, or
// crashed the importer (a 100,000-deep array) or gave exit 4 with raw parser text (1e999).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "autotuner/core/error.hpp"
#include "db/exchange.hpp"
#include "tests/support/gate_fixtures.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ImportValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("occtune_import_validation_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    Store source = Store::open(dir_ / "source.db");
    std::mt19937_64 rng(7);
    testing::add_tuning_run(source, testing::gate_device(), {1024, 1024, 1024},
                            {{32, 0.26}, {16, 0.29}, {8, 0.43, Outcome::kWrongResult}}, rng,
                            testing::NoiseModel{});
    good_ = json::parse(export_runs(source, {"t", {"occtune", "export"}}).json);
    Store::open(target());  // the store every import below must leave untouched
    before_ = testing::slurp(target());
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path target() const { return dir_ / "target.db"; }

  // Imports `text`; expects exit 2 naming `path` (and `detail`), and no change to the store.
  void expect_refused(const std::string& text, const std::string& path,
                      const std::string& detail = "") {
    SCOPED_TRACE(path);
    Store store = Store::open(target());
    try {
      import_runs(store, text, "forged.json");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.code(), ExitCode::kUsage) << msg;
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(detail), std::string::npos) << msg;
      EXPECT_NE(msg.find("forged.json"), std::string::npos) << msg;
      EXPECT_LT(msg.size(), 600u) << "long values must be cut: " << msg.size();
    }
    EXPECT_TRUE(store.runs().empty());
  }
  json& m0() { return good_["runs"][0]["measurements"][0]; }
  std::string with_value(const std::string& raw) {
    json doc = good_;
    doc["runs"][0]["measurements"][0]["timing"]["median_ms"] = "@@RAW@@";
    std::string text = doc.dump();
    text.replace(text.find("\"@@RAW@@\""), 9, raw);
    return text;
  }

  fs::path dir_;
  json good_;
  std::string before_;
};

TEST_F(ImportValidation, TheGoodExportImports) {
  Store store = Store::open(target());
  EXPECT_EQ(import_runs(store, good_.dump(), "good.json").runs_added, 1);
}

TEST_F(ImportValidation, AnotherBuildsVariantsImportWhenTheyAreTheFamilysTemplates) {
  // A fleet node or an older store with another kernel build: its variants need not exist in
  // this binary (they are never served for this build), but they must be the family's templates.
  good_["runs"][0]["build_id"] = "0123456789abcdef";
  const json saved = good_;
  m0()["variant"] = "Evil<1337>";
  expect_refused(good_.dump(), "runs[0].measurements[0].variant", "Evil<1337>");
  good_ = saved;
  m0()["variant"] = "TiledDynamic<16>; DROP TABLE runs";
  expect_refused(good_.dump(), "runs[0].measurements[0].variant", "DROP");
  good_ = saved;
  m0()["label"] = "tile=16,evil";
  expect_refused(good_.dump(), "runs[0].measurements[0].label", "evil");
  good_ = saved;
  m0()["params"] = {{"tile", 7}};  // not what the label says
  expect_refused(good_.dump(), "runs[0].measurements[0].params", "but the label");
  good_ = saved;
  m0()["variant"] = "TiledDynamic<48>";
  m0()["label"] = "tile=48";
  m0()["params"] = {{"tile", 48}};
  Store store = Store::open(target());
  EXPECT_EQ(import_runs(store, good_.dump(), "other-build.json").runs_added, 1);
}

TEST_F(ImportValidation, AnOkRowWithAHugeErrorIsALie) {
  m0()["rel_error"] = 1e9;
  m0()["timing"]["median_ms"] = 1e-4;
  expect_refused(good_.dump(), "runs[0].measurements[0].rel_error", "tolerance");
}

TEST_F(ImportValidation, UnknownVariantsAndImpossibleCandidates) {
  const json saved = good_;
  m0()["variant"] = "Evil<1337>";
  expect_refused(good_.dump(), "runs[0].measurements[0].variant", "Evil<1337>");
  good_ = saved;
  m0()["threads"] = -5;
  expect_refused(good_.dump(), "runs[0].measurements[0].threads", "-5");
  good_ = saved;
  m0()["dynamic_smem"] = -1;
  expect_refused(good_.dump(), "runs[0].measurements[0].dynamic_smem", "-1");
  good_ = saved;
  m0()["occupancy"] = 7.5;
  expect_refused(good_.dump(), "runs[0].measurements[0].occupancy", "7.5");
  good_ = saved;
  good_["runs"][0]["kernel"] = "evil_gemm";
  expect_refused(good_.dump(), "runs[0].kernel", "evil_gemm");
}

TEST_F(ImportValidation, DatesMustBeRealAndNotInTheFuture) {
  const json saved = good_;
  good_["runs"][0]["started_at"] = "9999-12-31T00:00:00.000Z";
  expect_refused(good_.dump(), "runs[0].started_at", "in the future");
  good_ = saved;
  good_["runs"][0]["started_at"] = "zzzz";
  expect_refused(good_.dump(), "runs[0].started_at", "\"zzzz\"");
  good_ = saved;
  good_["runs"][0]["finished_at"] = "2026-02-30T00:00:00.000Z";
  expect_refused(good_.dump(), "runs[0].finished_at");
}

TEST_F(ImportValidation, TypesFollowTheSchema) {
  const json saved = good_;
  m0()["timing"]["median_ms"] = "0.5";
  expect_refused(good_.dump(), "runs[0].measurements[0].timing.median_ms", "must be a number");
  good_ = saved;
  m0()["winner"] = 1;  // a boolean in this layout
  expect_refused(good_.dump(), "runs[0].measurements[0].winner", "true or false");
  good_ = saved;
  good_["runs"][0]["m"] = json(std::uint64_t(9223372036854775808ULL));
  expect_refused(good_.dump(), "runs[0].m", "9223372036854775808");
  good_ = saved;
  good_["devices"][0]["properties"]["warp_size"] = 0;
  expect_refused(good_.dump(), "devices[0].properties.warp_size", "is 0");
}

TEST_F(ImportValidation, OutcomesAgreeWithErrors) {
  const json saved = good_;
  json& wrong = good_["runs"][0]["measurements"][2];
  ASSERT_EQ(wrong["outcome"], "wrong_result");
  wrong["error"] = "";
  expect_refused(good_.dump(), "runs[0].measurements[2].error", "needs its reason");
  good_ = saved;
  good_["runs"][0]["measurements"][2]["winner"] = true;
  expect_refused(good_.dump(), "runs[0].measurements[2].winner");
  good_ = saved;
  m0()["error"] = "it crashed";
  expect_refused(good_.dump(), "runs[0].measurements[0].error", "no error");
}

TEST_F(ImportValidation, SizesAreBounded) {
  const json saved = good_;
  m0()["samples_ms"] = json(std::vector<double>(2000000, 0.25));
  expect_refused(good_.dump(), "runs[0].measurements[0].samples_ms", "2000000 items");
  good_ = saved;
  m0()["error"] = std::string(100000, 'x');
  expect_refused(good_.dump(), "a string", "100000 bytes");
}

TEST_F(ImportValidation, DeepNestingIsRefusedBeforeParsing) {
  for (std::size_t depth : {60000u, 100000u}) {
    json doc = good_;
    doc["runs"][0]["deep"] = "@@DEEP@@";
    std::string text = doc.dump();
    text.replace(text.find("\"@@DEEP@@\""), 10, std::string(depth, '[') + std::string(depth, ']'));
    expect_refused(text, "deeper than 32 levels");
  }
}

TEST_F(ImportValidation, NumbersNoDoubleHoldsNameTheirPath) {
  expect_refused(with_value("1e999"), "runs[0].measurements[0].timing.median_ms", "1e999");
  expect_refused(with_value("-1e999"), "runs[0].measurements[0].timing.median_ms", "too large");
}

// The CLI: exit 2 and the store's bytes unchanged, where 1e999 used to give exit 4 with the
// parser's raw text and a 100,000-deep array a SIGSEGV.
TEST_F(ImportValidation, TheCliExitsTwoAndTouchesNothing) {
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  };
  json deep = good_;
  deep["runs"][0]["deep"] = "@@DEEP@@";
  std::string deep_text = deep.dump();
  deep_text.replace(deep_text.find("\"@@DEEP@@\""), 10,
                    std::string(100000, '[') + std::string(100000, ']'));
  m0()["variant"] = "Evil<1337>";
  for (auto& [file, expected] : std::vector<std::pair<std::string, std::string>>{
           {write("big.json", with_value("1e999")), "runs[0].measurements[0].timing.median_ms"},
           {write("deep.json", deep_text), "deeper than 32 levels"},
           {write("evil.json", good_.dump()), "runs[0].measurements[0].variant"}}) {
    SCOPED_TRACE(file);
    const auto r = testing::run_cli("import " + file + " --db " + target().string());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
    EXPECT_EQ(testing::slurp(target()), before_) << "the store changed";
  }
  // A bad file does not create a store either.
  const auto fresh = dir_ / "never.db";
  EXPECT_EQ(
      testing::run_cli("import " + (dir_ / "evil.json").string() + " --db " + fresh.string()).code,
      2);
  EXPECT_FALSE(fs::exists(fresh));
}

}  // namespace
}  // namespace occtune::db
