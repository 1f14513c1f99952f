// Tuning on several GPUs at once without a GPU: stand-in workers (tests/support/fake_worker.cpp)
// fake a machine with two H100s and an A100. Proves that GPUs of one model split the shapes and
// other models tune them all, that --spread none tunes every shape everywhere, that one device
// through the multi-device path stores what the single-device engine stores, that an error on
// one GPU leaves the others' results, and how `--device` lists and 'all' are read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "autotuner/cli/backend_factory.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/engine/multi_tune.hpp"
#include "autotuner/isolation/worker_backend.hpp"
#include "db/store.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;

// Set before any worker starts (the workers inherit them) and before the registry is first read:
// a machine of three GPUs, and the planted-fault kernels on both sides of the pipe.
const bool kFakeMachine = [] {
  return ::setenv("FAKE_WORKER_DEVICES", "h100,h100,a100", 1) == 0 &&
         ::setenv("OCCTUNE_TEST_KERNELS", "1", 1) == 0;
}();

const std::string kH100a = "GPU-fa4e0000-1111-2222-3333-444455556666";
const std::string kH100b = "GPU-fa4e0001-1111-2222-3333-444455556666";
const std::string kA100 = "GPU-fa4e0002-1111-2222-3333-444455556666";

struct TempDb {
  fs::path path;
  explicit TempDb(const std::string& stem) {
    path = fs::temp_directory_path() /
           (stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(::rand()) + ".db");
  }
  ~TempDb() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix, ec);
  }
};

cli::BackendOptions fake_options() {
  cli::BackendOptions o;
  o.worker_command = {OCCTUNE_FAKE_WORKER};
  o.candidate_timeout_s = 5;
  return o;
}

std::vector<std::unique_ptr<MeasurementBackend>> fake_gpus(std::vector<std::string> selectors) {
  return cli::make_backends(fake_options(), selectors);
}

std::vector<MeasurementBackend*> raw(const std::vector<std::unique_ptr<MeasurementBackend>>& v) {
  std::vector<MeasurementBackend*> out;
  for (auto& b : v) out.push_back(b.get());
  return out;
}

TuneRequest small_request(std::vector<Shape> shapes) {
  TuneRequest r;
  r.kernels = {"tiled_dynamic"};
  r.shapes = std::move(shapes);
  r.policy.samples = 5;
  r.policy.max_samples = 10;
  r.tool_version = "test";
  r.build_id = "test-build";
  return r;
}

// Which device measured which shape, from the store.
std::set<std::pair<std::string, std::string>> stored_runs(const fs::path& db) {
  auto store = db::Store::open(db);
  std::set<std::pair<std::string, std::string>> out;
  for (auto& run : store.runs()) {
    EXPECT_EQ(run.status, RunStatus::kComplete) << run.key.device_uuid << " " << run.key.shape.str();
    out.insert({run.key.device_uuid, run.key.shape.str()});
  }
  return out;
}

const Shape s64{64, 64, 64}, s128{128, 128, 128}, s96{96, 96, 96};

TEST(MultiTune, ParseSpread) {
  EXPECT_EQ(parse_spread("shapes"), Spread::kShapes);
  EXPECT_EQ(parse_spread("none"), Spread::kNone);
  try {
    parse_spread("all");
    FAIL() << "accepted 'all'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("'all'"), std::string::npos) << e.what();
  }
}

TEST(MultiTune, SameModelGpusSplitTheShapesByExpectedTimeOtherModelsTakeThemAll) {
  std::vector<DeviceInfo> devices(3);
  devices[0].name = devices[2].name = "NVIDIA H100 80GB HBM3";
  devices[1].name = "NVIDIA A100-SXM4-80GB";
  for (auto& d : devices) {
    d.sm_count = 132;
    d.clock_khz = 1980000;
    d.cc_major = 9;
  }
  const Shape big{4096, 4096, 4096}, mid{2048, 2048, 2048};
  // 4096^3 alone is expected to take longer than the other four together (0.6 s against
  // 0.46 s), so it has a GPU to itself; in turns it would share one with 96^3 and 2048^3.
  const std::vector<Shape> shapes = {s64, big, s96, mid, s128};
  EXPECT_GT(expected_tuning_s(devices[0], big),
            expected_tuning_s(devices[0], s64) + expected_tuning_s(devices[0], s96) +
                expected_tuning_s(devices[0], mid) + expected_tuning_s(devices[0], s128));
  const auto split = assign_shapes(devices, shapes, Spread::kShapes);
  EXPECT_EQ(split[0], (std::vector<Shape>{big}));
  EXPECT_EQ(split[2], (std::vector<Shape>{s64, s96, mid, s128}));  // in the order named
  EXPECT_EQ(split[1], shapes);
  for (auto& each : assign_shapes(devices, shapes, Spread::kNone)) EXPECT_EQ(each, shapes);
  // Shapes of about one cost alternate; a tie goes to the first GPU of the model.
  const auto even = assign_shapes(devices, {s64, s64, s64, s64}, Spread::kShapes);
  EXPECT_EQ(even[0].size(), 2u);
  EXPECT_EQ(even[2].size(), 2u);
  // The same input gives the same split.
  EXPECT_EQ(assign_shapes(devices, shapes, Spread::kShapes), split);
}

TEST(MultiTune, DeviceListsAreReadAndCheckedBeforeAnyWorkerStarts) {
  EXPECT_EQ(cli::parse_device_list("all"), (std::vector<std::string>{"all"}));
  EXPECT_EQ(cli::parse_device_list("1"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(cli::parse_device_list("0,2,3"), (std::vector<std::string>{"0", "2", "3"}));
  EXPECT_EQ(cli::parse_device_list("0," + kA100), (std::vector<std::string>{"0", kA100}));
  for (const char* bad : {"0,,1", "0,", "0,0", "all,1", "0,x"}) {
    try {
      cli::parse_device_list(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage) << bad;
    }
  }
}

TEST(MultiTune, AllStartsOneWorkerPerVisibleGpu) {
  const auto gpus = fake_gpus({"all"});
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0]->device().uuid, kH100a);
  EXPECT_EQ(gpus[1]->device().uuid, kH100b);
  EXPECT_EQ(gpus[2]->device().uuid, kA100);
  const auto two = fake_gpus({"2", "GPU-fa4e0000"});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]->device().uuid, kA100);
  EXPECT_EQ(two[1]->device().uuid, kH100a);
}

TEST(MultiTune, OneGpuNamedTwiceIsBadInput) {
  try {
    fake_gpus({"0", "GPU-fa4e0000"});
    FAIL() << "the same GPU was accepted twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(kH100a), std::string::npos) << e.what();
  }
}

TEST(MultiTune, SpreadShapesMeasuresEachShapeOncePerModel) {
  TempDb db("occtune_multi_shapes");
  const auto gpus = fake_gpus({"all"});
  std::atomic<bool> interrupted{false};
  std::map<std::size_t, int> shapes_seen;
  MultiTuneEvents events;
  events.on_shape = [&](std::size_t d, const ShapeResult&) { ++shapes_seen[d]; };
  const auto results = run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), small_request({s64, s96, s128}),
                                           Spread::kShapes, events, interrupted);
  ASSERT_EQ(results.size(), 3u);
  for (auto& r : results) EXPECT_TRUE(r.error.empty()) << r.error;
  // The H100s split by expected time: 128^3 (the largest) to the first, then 96^3 and 64^3 to
  // the second, the one with less so far.
  EXPECT_EQ(shapes_seen, (std::map<std::size_t, int>{{0, 1}, {1, 2}, {2, 3}}));
  const std::set<std::pair<std::string, std::string>> expected = {
      {kH100a, "128x128x128"}, {kH100b, "64x64x64"}, {kH100b, "96x96x96"},
      {kA100, "64x64x64"},  {kA100, "96x96x96"},     {kA100, "128x128x128"}};
  EXPECT_EQ(stored_runs(db.path), expected);
}

TEST(MultiTune, SpreadNoneMeasuresEveryShapeOnEveryGpu) {
  TempDb db("occtune_multi_none");
  const auto gpus = fake_gpus({"0", "1"});
  std::atomic<bool> interrupted{false};
  const auto results = run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), small_request({s64, s96}),
                                           Spread::kNone, {}, interrupted);
  for (auto& r : results) EXPECT_TRUE(r.error.empty()) << r.error;
  const std::set<std::pair<std::string, std::string>> expected = {
      {kH100a, "64x64x64"}, {kH100a, "96x96x96"}, {kH100b, "64x64x64"}, {kH100b, "96x96x96"}};
  EXPECT_EQ(stored_runs(db.path), expected);
}

// What a run stored, without ids and times: per candidate, its outcome and samples.
using Stored = std::set<
    std::tuple<std::string, std::string, std::string, std::string, std::vector<double>, bool>>;
Stored stored_measurements(const fs::path& db) {
  auto store = db::Store::open(db);
  Stored out;
  for (auto& run : store.runs())
    for (auto& m : store.measurements(run.id))
      out.insert(
          {run.key.device_uuid, run.key.shape.str(), m.variant, std::string(to_string(m.outcome)),
           m.samples_ms, m.winner});
  return out;
}

TEST(MultiTune, OneGpuThroughTheMultiDevicePathStoresWhatTheEngineStoresAlone) {
  TempDb alone("occtune_multi_alone"), multi("occtune_multi_one");
  const TuneRequest request = small_request({s64, s128});
  std::atomic<bool> interrupted{false};
  TuneOutcome direct;
  {
    isolation::WorkerOptions o;
    o.command = {OCCTUNE_FAKE_WORKER};
    o.device_selector = "1";
    isolation::WorkerBackend backend(o);
    auto store = db::Store::open(alone.path);
    TuneRequest r = request;
    r.reference_clock_mhz = backend.throttle_reference_clock_mhz();
    direct = run_tune(backend, store, r, {}, interrupted);
  }
  const auto gpus = fake_gpus({"1"});
  const auto results =
      run_tune_on_devices(raw(gpus), db::Store::connections_to(multi.path), request, Spread::kShapes, {}, interrupted);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_TRUE(results[0].error.empty()) << results[0].error;
  const auto& via_multi = results[0].outcome;
  ASSERT_EQ(via_multi.shapes.size(), direct.shapes.size());
  for (std::size_t s = 0; s < direct.shapes.size(); ++s) {
    const auto& a = direct.shapes[s].kernels.at(0);
    const auto& b = via_multi.shapes[s].kernels.at(0);
    ASSERT_GE(a.winner, 0);
    EXPECT_EQ(a.winner, b.winner);
    EXPECT_EQ(a.measurements[std::size_t(a.winner)].candidate.variant->symbol,
              b.measurements[std::size_t(b.winner)].candidate.variant->symbol);
  }
  const Stored expected = stored_measurements(alone.path);
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(stored_measurements(multi.path), expected);
}

TEST(MultiTune, AnErrorOnOneGpuLeavesTheOthersResults) {
  TempDb db("occtune_multi_error");
  const auto gpus = fake_gpus({"0", "1"});
  std::atomic<bool> interrupted{false};
  // The stand-in refuses M = 99999 as a shape that does not fit; the larger shape goes first,
  // to the first H100, and 64^3 to the second.
  const auto results =
      run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), small_request({s64, Shape{99999, 64, 64}}),
                          Spread::kShapes, {}, interrupted);
  EXPECT_TRUE(results[1].error.empty()) << results[1].error;
  EXPECT_EQ(results[1].outcome.shapes.size(), 1u);
  EXPECT_EQ(results[0].error_code, ExitCode::kUsage);
  EXPECT_NE(results[0].error.find("99999x64x64"), std::string::npos) << results[0].error;
  EXPECT_EQ(stored_runs(db.path),
            (std::set<std::pair<std::string, std::string>>{{kH100b, "64x64x64"}}));
}

TEST(MultiTune, FaultsOnEveryGpuAtOnceReplaceOnlyThatGpusWorker) {
  TempDb db("occtune_multi_faults");
  cli::BackendOptions options = fake_options();
  options.candidate_timeout_s = 2;  // the planted hang waits this long on each GPU
  const auto gpus = cli::make_backends(options, {"0", "2"});
  TuneRequest request = small_request({s64});
  request.kernels = {"planted_faults", "naive"};
  std::atomic<bool> interrupted{false};
  const auto results =
      run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), request, Spread::kNone, {}, interrupted);
  for (auto& r : results) {
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.outcome.shapes.size(), 1u);
    // The run went on after the faults: naive was measured (its winner, or its candidates
    // abandoned far behind planted_faults' best, issue #18).
    const KernelResult& naive = r.outcome.shapes[0].kernels.at(1);
    EXPECT_GT(std::count_if(naive.measurements.begin(), naive.measurements.end(),
                            [](const Measurement& m) { return m.timing.summary.count > 0; }),
              0);
  }
  // Each GPU's crashes and hang (faults 4, 5, 6) replaced that GPU's worker, three times each.
  for (auto& gpu : gpus)
    EXPECT_EQ(dynamic_cast<isolation::WorkerBackend&>(*gpu).workers_started(), 4)
        << gpu->device().uuid;
  std::map<std::string, std::map<std::string, std::string>> stored;
  auto store = db::Store::open(db.path);
  for (auto& run : store.runs())
    if (run.key.kernel == "planted_faults")
      for (auto& m : store.measurements(run.id)) stored[run.key.device_uuid][m.variant] = to_string(m.outcome);
  const std::map<std::string, std::string> expected = {{"PlantedFault<0>", "ok"},
                                                       {"PlantedFault<1>", "wrong_result"},
                                                       {"PlantedFault<2>", "exceeds_limits"},
                                                       {"PlantedFault<3>", "invalid_config"},
                                                       {"PlantedFault<4>", "crashed"},
                                                       {"PlantedFault<5>", "crashed"},
                                                       {"PlantedFault<6>", "timeout"}};
  EXPECT_EQ(stored[kH100a], expected);
  EXPECT_EQ(stored[kA100], expected);
}

TEST(MultiTune, CtrlCMidRunStopsEveryGpuAndKeepsWhatWasMeasured) {
  TempDb db("occtune_multi_ctrl_c");
  const auto gpus = fake_gpus({"0", "2"});
  std::atomic<bool> interrupted{false};
  MultiTuneEvents events;
  // The first finished shape anywhere plays the Ctrl-C (the CLI's SIGINT handler sets the flag).
  events.on_shape = [&](std::size_t, const ShapeResult&) { interrupted = true; };
  const auto results = run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), small_request({s64, s96, s128}),
                                           Spread::kNone, events, interrupted);
  std::size_t shapes_done = 0;
  for (auto& r : results) {
    EXPECT_TRUE(r.outcome.interrupted);
    EXPECT_LT(r.outcome.shapes.size(), 3u);
    shapes_done += r.outcome.shapes.size();
  }
  EXPECT_GE(shapes_done, 1u);
  auto store = db::Store::open(db.path);
  std::size_t complete = 0;
  for (auto& run : store.runs()) {
    EXPECT_TRUE(run.status == RunStatus::kComplete || run.status == RunStatus::kInterrupted) << to_string(run.status);
    complete += run.status == RunStatus::kComplete;
  }
  EXPECT_GE(complete, 1u);  // the shape that finished first is kept, complete
}

TEST(MultiTune, AnInterruptStopsEveryGpu) {
  TempDb db("occtune_multi_interrupt");
  const auto gpus = fake_gpus({"0", "2"});
  std::atomic<bool> interrupted{true};
  const auto results =
      run_tune_on_devices(raw(gpus), db::Store::connections_to(db.path), small_request({s64}), Spread::kNone, {}, interrupted);
  for (auto& r : results) {
    EXPECT_TRUE(r.outcome.interrupted);
    EXPECT_TRUE(r.outcome.shapes.empty());
  }
}

}  // namespace
}  // namespace occtune
