// The lookup chain of db/lookup.hpp on a real (temporary) store: which step answers, that the
// exact step agrees with Store::best, that fallback is opt-in, that each step explains itself,
// and that entries() pages through keys once each. Also `occtune query --fallback/--explain`.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db/wal_watch.hpp"
#include "kernels/kernel_manifest.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune::testing {
namespace {

using db::LookupStep;
using State = db::StepReport::State;

constexpr const char* kA = "GPU-aaaaaaaa-0000-4000-8000-000000000001";
constexpr const char* kB = "GPU-bbbbbbbb-0000-4000-8000-000000000002";
constexpr const char* kC = "GPU-cccccccc-0000-4000-8000-000000000003";
constexpr const char* kD = "GPU-dddddddd-0000-4000-8000-000000000004";
const Shape k1024{1024, 1024, 1024}, k2048{2048, 2048, 2048}, k4096{4096, 4096, 4096};

class Lookup : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path / "lookup.db";
    store_.emplace(db::Store::open(path_));
    run_a_ = seed_run(*store_, seed_device(kA), k1024, 0.25);
    run_b_ = seed_run(*store_, seed_device(kB), k2048, 2.0);
    run_c_ = seed_run(*store_, seed_device(kC, "NVIDIA H200"), k4096, 16.0);
  }
  db::CacheKey key(Shape shape, const char* uuid = kA) const {
    return db::CacheKey::make(seed_device(uuid), "tiled_dynamic",
                              std::string(kernels::kernel_build_id()), shape);
  }
  TempDir dir_;
  std::filesystem::path path_;
  std::optional<db::Store> store_;
  std::int64_t run_a_ = 0, run_b_ = 0, run_c_ = 0;
};

TEST_F(Lookup, ExactKeyAnswersFirstAndAgreesWithBest) {
  const auto r = db::lookup(*store_, key(k1024));
  ASSERT_EQ(r.answered_by, LookupStep::kExact);
  ASSERT_TRUE(r.entry);
  EXPECT_EQ(r.entry->run.id, run_a_);
  EXPECT_EQ(r.entry->best.id, store_->best(key(k1024))->best.id);
  EXPECT_EQ(r.steps[0].state, State::kHit);
  for (std::size_t s = 1; s < db::kLookupSteps.size(); ++s)
    EXPECT_EQ(r.steps[s].state, State::kNotTried);
}

TEST_F(Lookup, SameModelThenSameArchitectureThenHeuristic) {
  auto r = db::lookup(*store_, key(k2048));
  EXPECT_EQ(r.answered_by, LookupStep::kSameModel);
  EXPECT_EQ(r.entry->run.key.device_uuid, kB);
  EXPECT_EQ(r.steps[0].state, State::kMiss);

  r = db::lookup(*store_, key(k4096));
  EXPECT_EQ(r.answered_by, LookupStep::kSameArchitecture);
  EXPECT_EQ(r.entry->run.key.device_uuid, kC);
  EXPECT_EQ(r.steps[1].state, State::kMiss);
  EXPECT_NE(r.steps[1].detail.find("NVIDIA H100"), std::string::npos) << r.steps[1].detail;

  // Device A has entries at other shapes: the nearest of them answers before the heuristic.
  r = db::lookup(*store_, key(Shape{100, 300, 7}));
  EXPECT_EQ(r.answered_by, LookupStep::kNearestShape);
  ASSERT_TRUE(r.measured());
  EXPECT_EQ(r.entry->run.key.device_uuid, kA);
  EXPECT_DOUBLE_EQ(r.shape_distance, db::shape_distance(Shape{100, 300, 7}, r.entry->run.key.shape));

  // An H100 with no entries of its own (and none of the model at this shape) reaches the
  // heuristic, planned on its properties.
  const DeviceInfo lonely = seed_device(kD);
  db::LookupOptions with_device;
  with_device.device = &lonely;
  r = db::lookup(*store_, key(Shape{100, 300, 7}, kD), with_device);
  EXPECT_EQ(r.answered_by, LookupStep::kHeuristic);
  EXPECT_FALSE(r.measured());
  ASSERT_TRUE(r.heuristic);
  EXPECT_EQ(r.heuristic->candidate.threads, 1024);  // the textbook answer on an H100
  EXPECT_EQ(r.steps[3].state, State::kMiss);
  EXPECT_NE(r.steps[4].detail.find("not measured"), std::string::npos);
}

TEST_F(Lookup, NearestShapeIsTheClosestInLogSpaceOnTheSameDeviceOnly) {
  EXPECT_DOUBLE_EQ(db::shape_distance(k1024, k1024), 0.0);
  EXPECT_NEAR(db::shape_distance(k1024, Shape{2048, 1024, 1024}), std::log(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(db::shape_distance(Shape{1, 2, 3}, Shape{3, 2, 1}),
                   db::shape_distance(Shape{3, 2, 1}, Shape{1, 2, 3}));
  // Device A: 1024^3 (from SetUp) and 512x4096x64 added here; 1000x1100x900 is nearest 1024^3,
  // 600x3000x80 nearest the other.
  const Shape skinny{512, 4096, 64};
  seed_run(*store_, seed_device(kA), skinny, 0.05);
  auto r = db::lookup(*store_, key(Shape{1000, 1100, 900}));
  ASSERT_EQ(r.answered_by, LookupStep::kNearestShape);
  EXPECT_EQ(r.entry->run.key.shape, k1024);
  r = db::lookup(*store_, key(Shape{600, 3000, 80}));
  ASSERT_EQ(r.answered_by, LookupStep::kNearestShape);
  EXPECT_EQ(r.entry->run.key.shape, skinny);
  EXPECT_NE(r.steps[3].detail.find("512x4096x64"), std::string::npos) << r.steps[3].detail;
  // Device B's 2048^3 is nearer to 2000^3 than A's shapes, but it is another device: A answers.
  r = db::lookup(*store_, key(Shape{2000, 2000, 2000}));
  ASSERT_EQ(r.answered_by, LookupStep::kNearestShape);
  EXPECT_EQ(r.entry->run.key.device_uuid, kA);
  EXPECT_EQ(r.entry->run.key.shape, k1024);
}

TEST_F(Lookup, WithoutAFamilyTheFastestFamilyOfTheEarliestStepAnswers) {
  // Device A at 1024^3: tiled_dynamic at 0.25 ms (SetUp), regblocked at 0.1 ms, naive at 0.05 ms
  // but measured on device B (same model): the exact step answers with regblocked.
  seed_run(*store_, seed_device(kA), k1024, 0.1, "regblocked");
  seed_run(*store_, seed_device(kB), k1024, 0.05, "naive");
  auto any = key(k1024);
  any.kernel.clear();
  auto r = db::lookup(*store_, any);
  ASSERT_EQ(r.answered_by, LookupStep::kExact);
  EXPECT_EQ(r.entry->run.key.kernel, "regblocked");
  EXPECT_DOUBLE_EQ(r.entry->best.summary.median, 0.1);
  EXPECT_EQ(r.steps[0].detail.rfind("regblocked: ", 0), 0u) << r.steps[0].detail;
  // Naming a family still answers for that family only.
  r = db::lookup(*store_, key(k1024));
  EXPECT_EQ(r.entry->run.key.kernel, "tiled_dynamic");
  // On device C (no entries at 1024^3 of its own, another model): the same architecture step
  // across families finds A's and B's; the fastest correct one (naive on B) answers.
  auto on_c = key(k1024, kC);
  on_c.device_name = "NVIDIA H200";
  on_c.kernel.clear();
  r = db::lookup(*store_, on_c);
  ASSERT_EQ(r.answered_by, LookupStep::kSameArchitecture);
  EXPECT_EQ(r.entry->run.key.kernel, "naive");
}

TEST_F(Lookup, SameModelSaysWhenBoardsOfTheModelDisagreeBeyondTheirNoise) {
  seed_run(*store_, seed_device(kD), k2048, 3.0);  // kB measured 2.0 ms, intervals +-2%
  auto r = db::lookup(*store_, key(k2048));
  ASSERT_EQ(r.answered_by, LookupStep::kSameModel);
  const std::string& detail = r.steps[1].detail;
  EXPECT_NE(detail.find("the 2 boards of this model that measured it disagree beyond their noise"),
            std::string::npos)
      << detail;
  EXPECT_NE(detail.find(std::string("fastest ") + kB), std::string::npos) << detail;
  EXPECT_NE(detail.find(std::string("slowest ") + kD), std::string::npos) << detail;

  // Boards within each other's noise say nothing more.
  const Shape k512{512, 512, 512};
  seed_run(*store_, seed_device(kB), k512, 1.0);
  seed_run(*store_, seed_device(kD), k512, 1.001);
  r = db::lookup(*store_, key(k512));
  ASSERT_EQ(r.answered_by, LookupStep::kSameModel);
  EXPECT_EQ(r.steps[1].detail.find("disagree"), std::string::npos) << r.steps[1].detail;
}

TEST_F(Lookup, AnotherDriverOfTheSameGpuIsTheSameModelNotExact) {
  auto k = key(k1024);
  k.driver_version = 13010;
  const auto r = db::lookup(*store_, k);
  EXPECT_EQ(r.answered_by, LookupStep::kSameModel);
  EXPECT_EQ(r.entry->run.key.driver_version, 13000);
}

TEST_F(Lookup, AnotherKernelBuildNeverAnswersAMeasuredStep) {
  auto k = key(k1024);
  k.build_id = "0000000000000000";
  const auto r = db::lookup(*store_, k);
  EXPECT_EQ(r.answered_by, LookupStep::kHeuristic);
}

TEST_F(Lookup, FallbackIsOptInAndProbingShowsWhatWouldHaveAnswered) {
  db::LookupOptions exact_only;
  exact_only.fallback = false;
  auto r = db::lookup(*store_, key(k2048), exact_only);
  EXPECT_FALSE(r.hit());
  EXPECT_EQ(r.steps[0].state, State::kMiss);
  EXPECT_EQ(r.steps[1].state, State::kNotTried);

  exact_only.probe_all = true;
  r = db::lookup(*store_, key(k2048), exact_only);
  EXPECT_FALSE(r.hit());
  EXPECT_EQ(r.steps[1].state, State::kHit);
  EXPECT_NE(r.steps[1].detail.find("not used"), std::string::npos);
  EXPECT_EQ(r.steps[3].state, State::kHit);
}

TEST_F(Lookup, NewestCompleteRunWinsAndRunsWithoutACorrectResultAreSkipped) {
  // A newer run of B for 1024^3 that is faster: same_model for another H100 takes it.
  const auto newer = seed_run(*store_, seed_device(kB), k1024, 0.1);
  seed_run(*store_, seed_device(kB), k1024, 0.01, db::RunStatus::kInterrupted);
  const auto other = "GPU-eeeeeeee-0000-4000-8000-000000000005";
  seed_run(*store_, seed_device(other), k2048, 1.0);  // puts `other` in the store
  const auto r = db::lookup(*store_, key(k1024, other));
  EXPECT_EQ(r.answered_by, LookupStep::kSameModel);
  EXPECT_EQ(r.entry->run.id, newer);
}

TEST_F(Lookup, HeuristicNeedsStoredProperties) {
  const auto r =
      db::lookup(*store_, key(Shape{100, 100, 100}, "GPU-ffffffff-0000-4000-8000-000000000006"));
  EXPECT_FALSE(r.hit());
  EXPECT_EQ(r.steps[4].state, State::kMiss);
  EXPECT_NE(r.steps[4].detail.find("no device properties"), std::string::npos);
}

TEST_F(Lookup, EntriesPageThroughEveryKeyOnce) {
  db::EntryQuery q;
  q.order = db::EntryQuery::Order::kRunId;
  q.limit = 2;
  auto page = store_->entries(q);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(page.entries[0].run.id, run_c_);
  EXPECT_EQ(page.entries[1].run.id, run_b_);
  ASSERT_GT(page.next_before_run_id, 0);
  q.before_run_id = page.next_before_run_id;
  page = store_->entries(q);
  ASSERT_EQ(page.entries.size(), 1u);
  EXPECT_EQ(page.entries[0].run.id, run_a_);
  EXPECT_EQ(page.next_before_run_id, 0);

  db::EntryQuery only_c;
  only_c.device_uuid = kC;
  EXPECT_EQ(store_->entries(only_c).entries.size(), 1u);
  EXPECT_EQ(store_->device_records().size(), 3u);
  EXPECT_EQ(store_->device_records(kB).front().uuid, kB);
}

TEST_F(Lookup, DataVersionChangesWhenAnotherConnectionCommits) {
  auto reader = db::Store::open(path_, db::OpenMode::kReadOnly);
  const auto before = reader.data_version();
  EXPECT_EQ(reader.data_version(), before);
  seed_run(*store_, seed_device(kA), k2048, 1.0);
  EXPECT_NE(reader.data_version(), before);
}

TEST_F(Lookup, WalWatchSeesEveryCommitWithoutAConnection) {
  auto reader = db::Store::open(path_, db::OpenMode::kReadOnly);
  reader.data_version();
  const auto watch = db::WalWatch::open(path_);
  ASSERT_TRUE(watch);
  const auto before = watch->header();
  ASSERT_TRUE(before);
  EXPECT_EQ(watch->header(), before);  // nothing committed: the same header
  for (int i = 0; i < 3; ++i) {
    const auto last = watch->header();
    seed_run(*store_, seed_device(kA), k2048, 1.0 + i);
    EXPECT_NE(watch->header(), last) << "commit " << i;
  }
  // A database without a WAL index has nothing to watch.
  TempDir other;
  { auto s = db::Store::open(other.path / "x.db"); }
  std::filesystem::remove(other.path / "x.db-shm");
  EXPECT_FALSE(db::WalWatch::open(other.path / "x.db"));
  EXPECT_FALSE(db::WalWatch::open(other.path / "missing.db"));
}

TEST_F(Lookup, QueryCliIsExactByDefaultAndExplainsTheChain) {
  const std::string db = " --db " + path_.string() + " --device " + kA;
  auto r = run_cli("query --shape 2048x2048x2048" + db);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("--fallback"), std::string::npos) << r.err;

  r = run_cli("query --shape 2048x2048x2048 --explain" + db);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("1. exact: miss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2. same model: hit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not used"), std::string::npos) << r.out;

  r = run_cli("query --shape 2048x2048x2048 --fallback" + db);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("answered by same_model"), std::string::npos) << r.out;

  r = run_cli("query --shape 100x300x7 --fallback --format json" + db);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["answered_by"], "nearest_shape");  // A's 1024^3
  EXPECT_EQ(j["measured_shape"], "1024x1024x1024");

  // A device whose only run failed has properties but no entry: the heuristic answers.
  seed_run(*store_, seed_device(kD), k1024, 1.0, db::RunStatus::kFailed);
  r = run_cli("query --shape 100x300x7 --fallback --format json --db " + path_.string() +
              " --device " + kD);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto h = nlohmann::json::parse(r.out);
  EXPECT_EQ(h["answered_by"], "heuristic");
  EXPECT_EQ(h["measured"], false);
  EXPECT_EQ(h["config"]["threads"], 1024);

  r = run_cli("query --shape 1024x1024x1024 --format json" + db);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto exact = nlohmann::json::parse(r.out);
  EXPECT_EQ(exact["answered_by"], "exact");
  EXPECT_EQ(exact["run"]["device"]["uuid"], kA);  // the document query always printed
  EXPECT_FALSE(exact.contains("chain"));
}

}  // namespace
}  // namespace occtune::testing
