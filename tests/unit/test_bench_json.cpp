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

}  // namespace
}  // namespace occtune
