// Outputs that scripts and spreadsheets can trust: RFC 4180 CSV read back by Python's csv module
// (tune rows whose variant names hold commas, plan through the CLI with --output), and tables
// measured in display columns with numbers right-aligned and detail columns only with --wide.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "autotuner/cli/tune_report.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"
#include "kernels/registry.hpp"
#include "tests/support/gate_fixtures.hpp"
#include "tests/support/result_builders.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune {
namespace {

using testing::TempDir;

// Rows as Python's csv module reads the file (a list of lists), so quoting is judged by a
// standard reader, not by our own parser.
nlohmann::json read_with_python(const std::filesystem::path& file) {
  const std::string cmd =
      "python3 -c 'import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], "
      "newline=\"\")))))' " +
      file.string();
  std::string out;
  if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    EXPECT_EQ(::pclose(pipe), 0) << cmd;
  }
  return nlohmann::json::parse(out);
}

TEST(Csv, QuotesOnlyWhatRfc4180Requires) {
  EXPECT_EQ(output::csv_field("tile=16"), "tile=16");
  EXPECT_EQ(output::csv_field("bm=64,bn=32"), "\"bm=64,bn=32\"");
  EXPECT_EQ(output::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(output::csv_field("two\nlines"), "\"two\nlines\"");
  std::ostringstream out;
  output::write_csv_record(out, {"a", "b,c", ""});
  EXPECT_EQ(out.str(), "a,\"b,c\",\r\n");
}

TEST(Csv, TuneRowsReadBackWithEveryFieldInPlace) {
  const auto variants = kernels::variants_of("regblocked");
  ASSERT_GE(variants.size(), 2u);
  ASSERT_NE(variants[0]->label().find(','), std::string::npos) << "needs a label with commas";
  ShapeResult r = testing::shape_result({1024, 1024, 1024}, 0.05);
  KernelResult k;
  k.kernel = "regblocked";
  Measurement ok = testing::measured_variant(variants[0], 0.1, 3);
  ok.flops = r.shape.flops();
  ok.rel_error = 2e-7;
  Measurement failed = ok;
  failed.candidate.variant = variants[1];
  failed.outcome = Outcome::kWrongResult;
  failed.timing = {};
  failed.rel_error = -1;
  k.measurements = {ok, failed};
  k.winner = 0;
  r.kernels.push_back(k);
  DeviceInfo device;
  device.uuid = "GPU-1";

  TempDir dir;
  const auto file = dir.path / "tune.csv";
  {
    std::ofstream out(file, std::ios::binary);
    cli::print_csv_header(out);
    cli::print_csv_rows(out, device, r);
  }
  const auto rows = read_with_python(file);
  ASSERT_EQ(rows.size(), 4u);  // header, two candidates, cuBLAS
  const auto& header = rows[0];
  auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t(0);
  };
  for (auto& row : rows) EXPECT_EQ(row.size(), header.size());
  EXPECT_EQ(rows[1][col("params")], variants[0]->label());
  EXPECT_EQ(rows[1][col("outcome")], "ok");
  EXPECT_EQ(std::stod(rows[1][col("median_ms")].get<std::string>()), 0.1);
  EXPECT_EQ(std::stod(rows[1][col("ratio_to_cublas")].get<std::string>()), 0.5);
  EXPECT_EQ(rows[1][col("winner")], "1");
  EXPECT_EQ(rows[2][col("outcome")], "wrong_result");
  EXPECT_EQ(rows[2][col("median_ms")], "");  // absent, not 0
  EXPECT_EQ(rows[2][col("rel_error")], "");
  EXPECT_EQ(rows[3][col("kernel")], "cublas");
}

TEST(Csv, PlanCsvThroughTheCliWithOutputFile) {
  TempDir dir;
  const auto file = dir.path / "plan.csv";
  auto r = testing::run_cli(
      "plan --profile h100 --kernel regblocked --kernel tiled_dynamic "
      "--shape 1000x1000x1000 --format csv --output " +
      file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // the CSV went to the file only
  const auto rows = read_with_python(file);
  auto json = testing::run_cli(
      "plan --profile h100 --kernel regblocked --kernel tiled_dynamic "
      "--shape 1000x1000x1000 --format json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  std::size_t candidates = 0;
  for (auto& plan : doc.at("plans")) candidates += plan.at("candidates").size();
  ASSERT_EQ(rows.size(), candidates + 1);
  for (auto& row : rows) EXPECT_EQ(row.size(), rows[0].size());
  EXPECT_EQ(rows[1][1], "1000x1000x1000");
  EXPECT_EQ(rows[1][2], "regblocked");
  EXPECT_NE(rows[1][6].get<std::string>().find(','), std::string::npos);  // params, one field
}

TEST(Csv, CompareAndQueryCsvReadBack) {
  TempDir dir;
  const auto db_path = (dir.path / "s.db").string();
  std::mt19937_64 rng(5);
  {
    auto store = db::Store::open(db_path);
    testing::add_tuning_run(store, testing::gate_device(), {1024, 1024, 1024},
                            {{32, 0.26}, {16, 0.29}}, rng, testing::NoiseModel{});
  }
  const auto exported = (dir.path / "e.json").string();
  ASSERT_EQ(testing::run_cli("export --db " + db_path + " --out " + exported).code, 0);
  const auto gate_file = dir.path / "gate.csv";
  auto r = testing::run_cli("compare " + exported + " " + exported + " --format csv --output " +
                            gate_file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto rows = read_with_python(gate_file);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][2], "verdict");
  EXPECT_EQ(rows[1][2], "SAME");
  EXPECT_EQ(rows[1].size(), rows[0].size());

  // query: the cached winner of a seeded run, found by UUID (no GPU).
  {
    auto store = db::Store::open(db_path);
    testing::seed_run(store, testing::seed_device("GPU-77777777"), {512, 512, 512}, 0.2);
  }
  const auto query_file = dir.path / "query.csv";
  r = testing::run_cli("query --db " + db_path +
                       " --device GPU-77777777 --shape 512x512x512 "
                       "--format csv --output " +
                       query_file.string());
  ASSERT_EQ(r.code, 0) << r.err;
  rows = read_with_python(query_file);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][3], "tile=16");
  EXPECT_EQ(std::stod(rows[1][7].get<std::string>()), 0.2);
  EXPECT_EQ(rows[1][14], "1");
}

// One shape per field (JSON schema_version 2): params an object of name -> integer wherever it
// appears, absent values null, device limits named as in device profiles.
TEST(JsonShape, ParamsObjectNullsAndDeviceNames) {
  TempDir dir;
  const auto db_path = (dir.path / "j.db").string();
  {
    auto store = db::Store::open(db_path);
    testing::seed_run(store, testing::seed_device("GPU-88888888"), {256, 256, 256}, 0.1);
  }
  auto r = testing::run_cli("query --db " + db_path +
                            " --device GPU-88888888 --shape 256x256x256 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto q = nlohmann::json::parse(r.out);
  EXPECT_EQ(q.at("schema_version"), 3);
  EXPECT_EQ(q.at("best").at("params"), (nlohmann::json{{"tile", 16}}));
  EXPECT_EQ(q.at("config").at("params"), (nlohmann::json{{"tile", 16}}));
  r = testing::run_cli("plan --profile h100 --kernel regblocked --shape 512x512x512 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto p = nlohmann::json::parse(r.out);
  EXPECT_TRUE(p.at("device").contains("max_grid_x"));
  EXPECT_FALSE(p.at("device").contains("max_grid"));
  const auto& c = p.at("plans").at(0).at("candidates").at(0);
  EXPECT_TRUE(c.at("params").is_object());
  EXPECT_TRUE(c.at("tile").is_null());  // register blocking has no square tile
  EXPECT_EQ(output::params_json("bm=64,bn=32"), (nlohmann::json{{"bm", 64}, {"bn", 32}}));
  EXPECT_EQ(output::params_json(""), nlohmann::json::object());
  EXPECT_TRUE(output::rel_error_json(-1).is_null());
}

// tune's closing summary: the winner across families and where the textbook pick landed.
TEST(TuneSummary, NamesTheWinnerAndTheTextbookPicksRank) {
  ShapeResult r = testing::shape_result({1024, 1024, 1024}, 0.04);
  auto measured = [&](const kernels::VariantInfo* v, double ms) {
    Measurement m = testing::measured_variant(v, ms);
    m.candidate.occupancy = 1.0;
    return m;
  };
  KernelResult tiled;
  tiled.kernel = "tiled_dynamic";
  auto textbook = measured(kernels::find_tile_variant("tiled_dynamic", 32), 0.32);
  textbook.candidate.origin = "occupancy-api";
  textbook.candidate.step = 1;
  tiled.measurements = {textbook, measured(kernels::find_tile_variant("tiled_dynamic", 16), 0.2)};
  tiled.winner = 1;
  KernelResult reg;
  reg.kernel = "regblocked";
  reg.measurements = {measured(kernels::variants_of("regblocked")[0], 0.05)};
  reg.winner = 0;
  r.kernels = {tiled, reg};
  std::ostringstream out;
  cli::print_summary(out, {r});
  const std::string text = out.str();
  EXPECT_NE(text.find("regblocked"), std::string::npos) << text;
  EXPECT_NE(text.find(kernels::variants_of("regblocked")[0]->label()), std::string::npos) << text;
  EXPECT_NE(text.find("0.800x"), std::string::npos) << text;  // 0.04 / 0.05
  EXPECT_NE(text.find("tile=32 (1024 thr, 100%)"), std::string::npos) << text;
  EXPECT_NE(text.find("6.40x"), std::string::npos) << text;   // 0.32 / 0.05
  EXPECT_NE(text.find("3 of 3"), std::string::npos) << text;  // the slowest of three
}

// Issue #18: an abandoned candidate's row keeps its few-sample median and says why it stopped;
// a family with no winner marks its fastest abandoned row; the family line counts them; JSON
// carries the stop reason and how far behind the incumbent it was.
TEST(TuneTable, AbandonedRowsSayHowFarBehindTheyWere) {
  ShapeResult r = testing::shape_result({4096, 4096, 4096}, 2.7);
  auto abandoned = [](const kernels::VariantInfo* v, double ms, double behind, int n = 3) {
    Measurement m;
    m.candidate.variant = v;
    m.candidate.threads = v->threads();
    m.timing.samples_ms = {ms, ms * 1.01, ms * 1.02};
    m.timing.samples_ms.resize(size_t(n));  // 1: abandoned at the screen's probe
    m.timing.summary = summarize(m.timing.samples_ms);
    m.timing.stop = StopReason::kAbandoned;
    m.behind = behind;
    return m;
  };
  KernelResult tiled;
  tiled.kernel = "tiled_dynamic";
  tiled.strategy = "halving";
  tiled.candidates = 2;
  tiled.measurements = {abandoned(kernels::find_tile_variant("tiled_dynamic", 8), 26.6, 9.5),
                        abandoned(kernels::find_tile_variant("tiled_dynamic", 32), 16.6, 5.94, 1)};
  tiled.abandoned = 2;
  r.kernels = {tiled};
  std::ostringstream out;
  cli::print_shape_table(out, r, DeviceInfo{}, false);
  const std::string text = out.str();
  EXPECT_NE(text.find("abandoned r0: 1 sample, min 5.94x best"), std::string::npos) << text;
  EXPECT_NE(text.find("abandoned r0: 3 samples, min 9.50x best"), std::string::npos) << text;
  EXPECT_NE(text.find("16.6000"), std::string::npos) << text;  // its one-sample median
  EXPECT_NE(text.find("<- fastest tiled_dynamic, abandoned"), std::string::npos) << text;
  EXPECT_EQ(text.find("<- best"), std::string::npos) << text;
  EXPECT_NE(text.find("2 abandoned far behind the shape's best"), std::string::npos) << text;
  // The mark sits on the 16.6 ms row, not the 26.6 ms one.
  const auto mark = text.find("<- fastest");
  EXPECT_NE(text.rfind("16.6000", mark), std::string::npos);
  EXPECT_EQ(text.find("26.8660", text.rfind('\n', mark)), std::string::npos);
  const auto doc = cli::shape_json(r, DeviceInfo{});
  const auto& c = doc["kernels"][0]["candidates"][1];
  EXPECT_EQ(c["stop_reason"], "abandoned");
  EXPECT_DOUBLE_EQ(c["behind_best"].get<double>(), 5.94);
  EXPECT_EQ(doc["kernels"][0]["abandoned"], 2);
  EXPECT_EQ(doc["kernels"][0]["winner"], -1);
}

TEST(TuneSummary, ReportPathIsCheckedBeforeAnyGpuWork) {
  // No GPU here: a bad --report must be a usage error (2), not the no-GPU runtime error (4).
  auto r = testing::run_cli("tune --shape 64x64x64 --report /nonexistent-dir/r.html");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("/nonexistent-dir/r.html"), std::string::npos) << r.err;
  r = testing::run_cli("bench --shape 64x64x64 --report /tmp");
  EXPECT_EQ(r.code, 2) << r.err;
}

TEST(TextTable, DisplayColumnsRightAlignedNumbersAndWideColumns) {
  EXPECT_EQ(output::display_width("0.95×"), 5u);
  EXPECT_EQ(output::display_width("漢字"), 4u);
  EXPECT_EQ(output::display_width("e\xCC\x81"), 1u);  // e + combining acute
  EXPECT_TRUE(output::looks_numeric("1.2e-05"));
  EXPECT_TRUE(output::looks_numeric("48 KiB"));
  EXPECT_TRUE(output::looks_numeric("0.95x"));
  EXPECT_FALSE(output::looks_numeric("1024x1024x1024"));
  EXPECT_FALSE(output::looks_numeric("tile=16"));

  output::TextTable t({"name", "ratio", "detail"});
  t.wide_only({"detail"});
  t.add_row({"×", "0.95x", "d"});
  t.add_row({"ab", "12.00x", "-"});
  std::ostringstream narrow, wide;
  t.print(narrow, false);
  t.print(wide, true);
  EXPECT_EQ(narrow.str(), "name   ratio\n----  ------\n×      0.95x\nab    12.00x\n");
  EXPECT_NE(wide.str().find("detail"), std::string::npos);
}

}  // namespace
}  // namespace occtune
