// `occtune bench --format json` keeps every candidate of every family's race, not only the
// winners (race_candidates, each as `tune --format json` lists it): how fast a losing
// configuration ran, which failed its check and which the cost model pruned, beside the
// per-family winners (families) it always had.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "autotuner/cli/bench_rows.hpp"
#include "kernels/registry.hpp"
#include "tests/support/result_builders.hpp"

namespace occtune {
namespace {

Measurement timed(const kernels::VariantInfo* variant, double ms) {
  Measurement m = testing::measured_variant(variant, ms, 3);
  m.rel_error = 2e-7;
  m.timing.stop = StopReason::kConverged;
  return m;
}

TEST(BenchJson, ListsEveryRaceCandidateWithItsOutcomeAndMedian) {
  const auto regblocked = kernels::variants_of("regblocked");
  const auto splitk = kernels::variants_of("splitk");
  ASSERT_GE(regblocked.size(), 3u);
  ASSERT_GE(splitk.size(), 1u);
  ShapeResult r = testing::shape_result({1024, 1024, 1024}, 0.05);

  KernelResult reg;
  reg.kernel = "regblocked";
  Measurement wrong = timed(regblocked[1], 0.01);
  wrong.outcome = Outcome::kWrongResult;
  wrong.timing = {};
  wrong.error = "relative Frobenius error 3e-01 exceeds the tolerance 1e-05";
  Measurement pruned = timed(regblocked[2], 0);
  pruned.timing = {};
  pruned.timing.stop = StopReason::kPruned;
  pruned.error = "the cost model puts it 3x behind the best";
  reg.measurements = {timed(regblocked[0], 0.1), wrong, pruned};
  reg.winner = 0;
  KernelResult sk;
  sk.kernel = "splitk";
  sk.measurements = {timed(splitk[0], 0.04)};
  sk.winner = 0;
  r.kernels = {reg, sk};

  cli::BenchRow row;
  row.result = &r;
  row.best = cli::best_of(r);
  const cli::BenchHeader header;  // a named header: GCC 12 warns on the temporary's strings
  const auto doc = cli::bench_json(header, {row});
  const auto& shape = doc.at("shapes").at(0);

  const auto& reg_list = shape.at("race_candidates").at("regblocked");
  ASSERT_EQ(reg_list.size(), 3u);
  EXPECT_EQ(reg_list[0].at("outcome"), "ok");
  EXPECT_DOUBLE_EQ(reg_list[0].at("timing").at("median_ms").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(reg_list[0].at("ratio_to_cublas").get<double>(), 0.5);
  EXPECT_EQ(reg_list[0].at("stop_reason"), "converged");
  EXPECT_EQ(reg_list[0].at("timing").at("count"), 3);
  EXPECT_EQ(reg_list[1].at("outcome"), "wrong_result");
  EXPECT_EQ(reg_list[1].at("timing").at("count"), 0);  // a wrong result has no time
  EXPECT_FALSE(reg_list[1].contains("ratio_to_cublas"));
  EXPECT_EQ(reg_list[1].at("error"), wrong.error);
  EXPECT_EQ(reg_list[2].at("outcome"), "pruned");
  EXPECT_EQ(reg_list[2].at("timing").at("count"), 0);
  EXPECT_EQ(reg_list[2].at("pruned"), pruned.error);
  // Parameters as the families' winners spell them, one field a parameter.
  EXPECT_EQ(reg_list[0].at("params"), shape.at("families").at("regblocked").at("params"));

  const auto& sk_list = shape.at("race_candidates").at("splitk");
  ASSERT_EQ(sk_list.size(), 1u);
  EXPECT_DOUBLE_EQ(sk_list[0].at("ratio_to_cublas").get<double>(), 1.25);
  EXPECT_EQ(shape.at("best_kernel"), "splitk");
}

// Issue #18's HBM target for M <= 16 or N <= 16: bench prints the larger operand's bytes over
// the interleaved median and, since a few rows of C over a long K read a B nearly as large as A,
// the bytes of A and B together; both are absent for a shape that is neither.
TEST(BenchJson, ReadBandwidthCountsBothOperandsOfASkinnyShape) {
  const auto splitk = kernels::variants_of("splitk");
  ASSERT_GE(splitk.size(), 1u);
  auto row_for = [&](ShapeResult& r) {
    KernelResult sk;
    sk.kernel = "splitk";
    sk.measurements = {timed(splitk[0], 0.5)};
    sk.winner = 0;
    r.kernels = {sk};
    cli::BenchRow row;
    row.result = &r;
    row.best = cli::best_of(r);
    row.paired.ratio = 2.0;
    row.paired.reference.summary.median = 1.0;  // ms
    row.paired.candidate.summary.median = 0.5;
    return row;
  };
  ShapeResult skinny = testing::shape_result({20, 10, 1000000}, 1.0);
  const cli::BenchRow row = row_for(skinny);
  EXPECT_DOUBLE_EQ(row.large_operand_bytes(), 4.0 * 20 * 1000000);
  EXPECT_DOUBLE_EQ(row.read_bytes(), 4.0 * (20 + 10) * 1000000);
  const cli::BenchHeader header;
  const auto shape = cli::bench_json(header, {row}).at("shapes").at(0);
  // 80 MB of A in 0.5 ms: 0.16 TB/s; with B's 40 MB, 0.24 TB/s (cuBLAS: 1 ms, half of each).
  EXPECT_NEAR(shape.at("operand_tbps").get<double>(), 0.16, 1e-12);
  EXPECT_NEAR(shape.at("read_tbps").get<double>(), 0.24, 1e-12);
  EXPECT_NEAR(shape.at("cublas_read_tbps").get<double>(), 0.12, 1e-12);

  ShapeResult square = testing::shape_result({1024, 1024, 1024}, 1.0);
  const cli::BenchRow square_row = row_for(square);
  EXPECT_EQ(square_row.read_bytes(), 0.0);
  const auto square_shape = cli::bench_json(header, {square_row}).at("shapes").at(0);
  EXPECT_TRUE(square_shape.at("read_tbps").is_null());
  EXPECT_TRUE(square_shape.at("operand_tbps").is_null());
}

}  // namespace
}  // namespace occtune
