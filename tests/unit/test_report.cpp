// The HTML report without a browser: what gather() takes from a seeded store (the newest run of
// each family per shape, the textbook pick, the winner, history with checks), the FMA limit,
// escaping and self-containment of the page, the check history's round trip through the store
// with absent values kept absent, and `occtune report` as a user runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/check_record.hpp"
#include "autotuner/report/charts.hpp"
#include "autotuner/report/html_page.hpp"
#include "autotuner/report/report_data.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/seed_report.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune {
namespace {

using testing::TempDir;

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Every registered variant of every family: what one run per family stores at a shape.
std::size_t seeded_points_per_shape() {
  std::size_t n = 0;
  for (auto& f : testing::seed_families()) n += kernels::variants_of(f).size();
  return n;
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (dir_.path / "report.db").string();
    device_ = testing::seed_report_store(path_);
  }
  TempDir dir_;
  std::string path_;
  DeviceInfo device_;
};

TEST(ReportMath, FmaLimitIsTwoFlopsPerLanePerClock) {
  const DeviceInfo h100 = testing::seed_device("GPU-1");
  EXPECT_EQ(report::fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(report::fp32_lanes_per_sm(8, 0), 64);  // A100: 64 FP32 lanes per SM
  EXPECT_EQ(report::fp32_lanes_per_sm(8, 9), 128);
  EXPECT_DOUBLE_EQ(report::fma_peak_flops(h100), 2.0 * 132 * 128 * 1980e6);
}

// Every family of the default job (all built-in families) has its own colour and its own marker,
// none of them the grey fallback that user families get.
TEST(ReportSvg, EveryBuiltInFamilyHasItsOwnColourAndMarker) {
  const auto families = load_job_config("").kernels;
  ASSERT_GE(families.size(), 8u);
  std::set<std::string> colours;
  std::set<report::Marker> markers;
  for (const auto& f : families) {
    const report::FamilyStyle st = report::family_style(f);
    EXPECT_NE(st.marker, report::Marker::kPlus) << f << " has the fallback style";
    EXPECT_TRUE(colours.insert(st.colour).second) << f << " shares colour " << st.colour;
    EXPECT_TRUE(markers.insert(st.marker).second) << f << " shares its marker";
  }
}

// A configuration that did not compile (a source kernel) has its own band, not "not run".
TEST(ReportSvg, CompileFailedHasItsOwnBand) {
  EXPECT_EQ(report::outcome_band("compile_failed"), "compile failed");
  EXPECT_EQ(report::outcome_band("exceeds_limits"), "not run");
}

TEST(ReportSvg, ScalesAndEscaping) {
  EXPECT_EQ(report::escape("RegBlocked<128,\"x\">&'"), "RegBlocked&lt;128,&quot;x&quot;&gt;&amp;&#39;");
  const report::LogScale y{0.1, 10, 100, 0};
  EXPECT_DOUBLE_EQ(y(1), 50);
  const auto ticks = y.ticks();
  EXPECT_EQ(ticks.front(), 0.1);
  EXPECT_EQ(ticks.back(), 10);
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), 0.2), ticks.end());
  const report::LinearScale x{0, 1, 0, 100};
  EXPECT_EQ(x.ticks(10).size(), 11u);
  EXPECT_EQ(report::tick_label(0.25), "0.25");
  EXPECT_EQ(report::tick_label(20), "20");
}

TEST_F(Report, GathersEveryCandidateOfTheNewestRunPerFamily) {
  auto store = db::Store::open(path_, db::OpenMode::kReadOnly);
  const auto data = report::gather(store, "", "test");
  ASSERT_EQ(data.devices.size(), 1u);
  const auto& v = data.devices[0];
  EXPECT_EQ(v.device.uuid, device_.uuid);
  ASSERT_EQ(v.shapes.size(), 3u);
  EXPECT_EQ(v.shapes[0].shape, (Shape{1024, 1024, 1024}));  // by size, smallest first
  const auto families = testing::seed_families();
  for (auto& s : v.shapes) {
    SCOPED_TRACE(s.shape.str());
    EXPECT_EQ(s.families.size(), families.size());
    EXPECT_EQ(s.points.size(), seeded_points_per_shape());
    for (auto& f : s.families) EXPECT_EQ(f.build_id, std::string(kernels::kernel_build_id()));
    // The winner is the fastest timed point; the textbook pick is tiled_dynamic's step 1.
    ASSERT_GE(s.winner, 0);
    for (auto& p : s.points)
      if (p.timed()) {
        EXPECT_GE(p.median_ms, s.points[size_t(s.winner)].median_ms);
      }
    ASSERT_GE(s.textbook, 0);
    const auto& t = s.points[size_t(s.textbook)];
    EXPECT_EQ(t.family, "tiled_dynamic");
    EXPECT_EQ(t.config, "tile=32");
    EXPECT_GT(s.textbook_rank, 1);
    EXPECT_GT(s.cublas_ms, 0);
  }
  // Failed outcomes are kept as points, not dropped.
  const auto& big = v.shapes[2].shape == Shape{4096, 4096, 4096} ? v.shapes[2] : v.shapes[1];
  ASSERT_EQ(big.shape, (Shape{4096, 4096, 4096}));
  auto has = [&](const char* outcome) {
    return std::any_of(big.points.begin(), big.points.end(),
                       [&](auto& p) { return p.outcome == outcome; });
  };
  EXPECT_TRUE(has("crashed"));
  EXPECT_TRUE(has("timeout"));
  EXPECT_TRUE(has("exceeds_limits"));

  // History: two tune sessions and three checks per key, oldest first.
  const auto key = std::find_if(v.history.begin(), v.history.end(), [](auto& h) {
    return h.family == "regblocked" && h.shape == Shape{4096, 4096, 4096};
  });
  ASSERT_NE(key, v.history.end());
  ASSERT_EQ(key->points.size(), 5u);
  EXPECT_EQ(key->points[0].kind, "tune");
  EXPECT_EQ(key->points[0].build_id, "0ldb0ld0ldb0ld00");
  EXPECT_EQ(key->points[4].kind, "check");
  EXPECT_EQ(key->points[4].verdict, "SLOW");
  EXPECT_TRUE(std::is_sorted(key->points.begin(), key->points.end(),
                             [](auto& a, auto& b) { return a.when < b.when; }));
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_EQ(v.runs.size(), 2 * 3 * families.size());
}

TEST_F(Report, DeviceSelectorMatchesStoredDevicesOnly) {
  auto store = db::Store::open(path_, db::OpenMode::kReadOnly);
  EXPECT_EQ(report::gather(store, "GPU-5eed", "t").devices.size(), 1u);
  EXPECT_EQ(report::gather(store, "0", "t").devices.size(), 1u);
  try {
    report::gather(store, "GPU-ffff", "t");
    FAIL() << "a selector naming no stored device must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("GPU-ffff"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(device_.uuid), std::string::npos) << e.what();
  }
}

TEST_F(Report, PageIsSelfContainedAndHasEveryChartAndPoint) {
  auto store = db::Store::open(path_, db::OpenMode::kReadOnly);
  const auto data = report::gather(store, "", "test");
  const std::string html = report::render_html(data);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only URL is the SVG namespace.
  EXPECT_EQ(count_of(html, "http"), count_of(html, "http://www.w3.org/2000/svg"));
  EXPECT_EQ(count_of(html, "class=\"chart scatter\""), 3u);
  EXPECT_EQ(count_of(html, "class=\"chart history\""), 3u);
  EXPECT_EQ(count_of(html, "class=\"pt\""), 3 * seeded_points_per_shape());
  EXPECT_EQ(count_of(html, "winner-mark"), 3u);
  EXPECT_EQ(count_of(html, "textbook-mark"), 3u);
  EXPECT_NE(html.find("data-outcome=\"crashed\""), std::string::npos);
  EXPECT_NE(html.find("data-outcome=\"timeout\""), std::string::npos);
  EXPECT_NE(html.find("data-outcome=\"wrong_result\""), std::string::npos);
  EXPECT_NE(html.find("FMA limit (fp32): 2 FLOP per FMA &times; 132 SMs &times; 128 FP32 lanes"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"verdict bad\">SLOW</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"verdict unknown\">MISSING</span>"), std::string::npos);
  // Variant names hold '<' and ','; nothing of them may reach the markup unescaped.
  EXPECT_EQ(html.find("Dynamic<"), std::string::npos);
  EXPECT_EQ(html.find("Blocked<"), std::string::npos);
}

TEST(CheckHistory, RoundTripKeepsAbsentValuesAbsent) {
  TempDir dir;
  auto store = db::Store::open(dir.path / "c.db");
  db::CheckRecord c;
  c.device_uuid = "GPU-1";
  c.device_name = "X";
  c.build_id = "b";
  c.argv_json = "[]";
  c.exit_code = 3;
  db::CheckKeyRecord k;
  k.kernel = "tiled_dynamic";
  k.shape = {64, 64, 64};
  k.launched_kernel = "tiled_dynamic";
  k.verdict = "MISSING";
  k.reason = "no baseline";
  c.keys.push_back(k);
  k.verdict = "SAME";
  k.config = "tile=16";
  k.baseline_median_ms = 1.5;
  k.current_median_ms = 1.51;
  k.ratio = 1.51 / 1.5;
  c.keys.push_back(k);
  const auto id = store.record_check(c);
  EXPECT_GT(id, 0);
  EXPECT_TRUE(store.checks("GPU-other").empty());
  const auto back = store.checks("GPU-1");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].exit_code, 3);
  EXPECT_FALSE(back[0].recorded_at.empty());
  ASSERT_EQ(back[0].keys.size(), 2u);
  EXPECT_FALSE(back[0].keys[0].config.has_value());
  EXPECT_FALSE(back[0].keys[0].baseline_median_ms.has_value());
  EXPECT_FALSE(back[0].keys[0].ratio.has_value());
  EXPECT_EQ(back[0].keys[1].config, "tile=16");
  EXPECT_DOUBLE_EQ(*back[0].keys[1].current_median_ms, 1.51);
  EXPECT_FALSE(back[0].keys[1].p_value.has_value());
  // The check history never touches what the cache serves.
  EXPECT_TRUE(store.runs().empty());
}

// What `check` hands the store: the gate's verdicts with both sides summarised; a key without a
// baseline keeps its medians absent.
TEST(CheckHistory, RecordOfAGateReport) {
  gate::GateReport report;
  report.kind = "check";
  report.build_id = "b1";
  report.options.policy.threshold = 0.05;
  gate::KeyVerdict judged;
  judged.kernel = "tiled_dynamic";
  judged.shape = {64, 64, 64};
  judged.verdict = Verdict::kSlow;
  judged.reason = "slower";
  gate::Side base;
  base.run_id = 7;
  base.build_id = "b0";
  base.config = "tile=16";
  base.threads = 256;
  base.samples_ms = {1.0, 1.0, 1.0};
  base.summary = summarize(base.samples_ms);
  gate::Side now = base;
  now.run_id = 0;
  now.samples_ms = {1.2, 1.2, 1.2};
  now.summary = summarize(now.samples_ms);
  now.rel_error = 1e-7;
  judged.baseline = base;
  judged.current = now;
  judged.comparison = compare_samples(base.samples_ms, now.samples_ms, {});
  gate::KeyVerdict missing;
  missing.kernel = "naive";
  missing.shape = {64, 64, 64};
  missing.verdict = Verdict::kMissing;
  missing.reason = "no baseline";
  report.keys = {judged, missing};

  const DeviceInfo device = testing::seed_device("GPU-abc");
  const db::CheckRecord r = gate::check_record(report, device, "9.9", {"occtune", "check"});
  EXPECT_EQ(r.device_uuid, "GPU-abc");
  EXPECT_EQ(r.build_id, "b1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.argv_json, R"(["occtune","check"])");
  ASSERT_EQ(r.keys.size(), 2u);
  const auto& k = r.keys[0];
  EXPECT_EQ(k.verdict, "SLOW");
  EXPECT_EQ(k.launched_kernel, "tiled_dynamic");
  EXPECT_EQ(k.config, "tile=16");
  EXPECT_EQ(k.baseline_run_id, 7);
  EXPECT_DOUBLE_EQ(*k.baseline_median_ms, 1.0);
  EXPECT_DOUBLE_EQ(*k.current_median_ms, 1.2);
  EXPECT_NEAR(*k.ratio, 1.2, 1e-12);
  EXPECT_TRUE(k.p_value.has_value());
  EXPECT_DOUBLE_EQ(*k.current_rel_error, 1e-7);
  const auto& m = r.keys[1];
  EXPECT_EQ(m.verdict, "MISSING");
  EXPECT_FALSE(m.config.has_value());
  EXPECT_FALSE(m.baseline_median_ms.has_value());
  EXPECT_FALSE(m.current_median_ms.has_value());
  EXPECT_FALSE(m.ratio.has_value());
}

TEST_F(Report, CliWritesTheFileAndPrintsItsPath) {
  const auto out = dir_.path / "r.html";
  auto r = testing::run_cli("report --db " + path_ + " --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, out.string() + "\n");
  EXPECT_NE(testing::slurp(out).find("occtune tuning report"), std::string::npos);

  r = testing::run_cli("report --db " + path_ + " --device GPU-ffff --out " + out.string());
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("GPU-ffff"), std::string::npos) << r.err;

  TempDir empty;
  { auto fresh = db::Store::open(empty.path / "e.db"); }
  r = testing::run_cli("report --db " + (empty.path / "e.db").string() + " --out " + out.string());
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("occtune tune"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace occtune
