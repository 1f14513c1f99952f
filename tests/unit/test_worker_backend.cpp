// Worker isolation without a GPU: the isolated backend drives a stand-in worker
// (tests/support/fake_worker.cpp) that acts out each planted fault the way the real worker meets
// it. Proves that a timeout, a reported sticky error, a worker that dies and one killed from
// outside are each recorded with the right outcome, that a new worker takes over with the shape
// re-opened, and that a whole tuning run completes and stores every fault.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/engine/tuner.hpp"
#include "autotuner/isolation/worker_backend.hpp"
#include "db/store.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;

// The planted faults are registered only with this set, on both sides of the pipe; it must be
// set before the registry is first read.
const bool kTestKernels = [] { return ::setenv("OCCTUNE_TEST_KERNELS", "1", 1) == 0; }();

struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& stem) {
    path = fs::temp_directory_path() /
           (stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(::rand()));
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(fs::path(path.string() + "-wal"), ec);
    fs::remove(fs::path(path.string() + "-shm"), ec);
  }
};

// Generous enough that an answering stand-in is never mistaken for a hang on a loaded machine;
// the hangs under test never end, so the limit only decides how long a test waits.
isolation::WorkerOptions fake_worker(double candidate_timeout_s = 2.0) {
  isolation::WorkerOptions o;
  o.command = {OCCTUNE_FAKE_WORKER};
  o.candidate_timeout_s = candidate_timeout_s;
  o.control_timeout_s = 20;
  return o;
}

Candidate planted(isolation::WorkerBackend& backend, int fault, Shape shape = {64, 64, 64}) {
  const Plan plan = backend.plan(*kernels::find_family("planted_faults"), shape, 0, Layout::kNN);
  for (auto& c : plan.candidates)
    if (c.variant->param("fault") == fault) return c;
  ADD_FAILURE() << "no planted fault " << fault;
  return {};
}

int lines_containing(const fs::path& file, const std::string& what) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(what) != std::string::npos;
  return n;
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST(WorkerBackend, LearnsTheDeviceFromTheWorker) {
  ASSERT_TRUE(kTestKernels);
  isolation::WorkerBackend backend(fake_worker());
  EXPECT_EQ(backend.device().uuid, "GPU-fa4e0000-1111-2222-3333-444455556666");
  EXPECT_EQ(backend.device().sm_count, 132);
  EXPECT_GT(backend.worker_pid(), 0);
  EXPECT_NE(backend.worker_pid(), ::getpid());
  EXPECT_EQ(backend.workers_started(), 1);
  EXPECT_TRUE(backend.survives_crashes());
  EXPECT_NE(backend.description().find("isolated"), std::string::npos);
}

TEST(WorkerBackend, PlansOnTheWorkerExactlyAsLocally) {
  isolation::WorkerBackend backend(fake_worker());
  OfflineOccupancy local(backend.device());
  for (const char* family : {"tiled_dynamic", "naive", "planted_faults"}) {
    const Shape shape{1000, 17, 4097};
    const Plan remote = backend.plan(*kernels::find_family(family), shape, 0, Layout::kNN);
    const Plan here = plan_family(*kernels::find_family(family), backend.device(), shape, local);
    EXPECT_EQ(isolation::encode(remote), isolation::encode(here)) << family;
  }
}

// The layout crosses the pipe: the worker plans the variants of that layout only, and a shape
// opened as tn takes tn candidates (the fake worker fails a candidate of another layout).
TEST(WorkerBackend, PlansAndOpensInTheRequestedLayout) {
  TempFile log("occtune_fake_worker_log");
  ScopedEnv env("FAKE_WORKER_LOG", log.path.string());
  isolation::WorkerBackend backend(fake_worker());
  OfflineOccupancy local(backend.device());
  const Shape shape{1000, 17, 4097};
  for (Layout layout : kAllLayouts)
    for (const char* family : {"tiled_dynamic", "regblocked", "splitk"}) {
      const Plan remote = backend.plan(*kernels::find_family(family), shape, 0, layout);
      const Plan here =
          plan_family(*kernels::find_family(family), backend.device(), shape, local, 0, layout);
      EXPECT_EQ(isolation::encode(remote), isolation::encode(here)) << family;
      ASSERT_FALSE(remote.candidates.empty()) << family << " " << layout_name(layout);
      for (auto& c : remote.candidates) EXPECT_EQ(c.variant->layout, layout) << c.variant->symbol;
    }
  backend.open_shape(Shape{64, 64, 64}, Layout::kTN, TimingPolicy{});
  const Plan tn = backend.plan(*kernels::find_family("regblocked"), shape, 0, Layout::kTN);
  EXPECT_EQ(backend.check(tn.candidates.front()).outcome, Outcome::kOk);
  EXPECT_EQ(lines_containing(log.path, "open_shape 64x64x64 tn"), 1);
}

TEST(WorkerBackend, EveryPlantedFaultIsRecordedAndTheWorkerReplaced) {
  TempFile log("occtune_fake_worker_log");
  ScopedEnv env("FAKE_WORKER_LOG", log.path.string());
  isolation::WorkerBackend backend(fake_worker());
  backend.open_shape(Shape{64, 64, 64}, Layout::kNN, TimingPolicy{});
  const std::map<int, Outcome> expected = {
      {0, Outcome::kOk},
      {1, Outcome::kWrongResult},
      {2, Outcome::kExceedsLimits},
      {3, Outcome::kInvalidConfig},
      {4, Outcome::kCrashed},
      {5, Outcome::kCrashed},
      {6, Outcome::kTimeout},
  };
  std::map<int, Measurement> got;
  for (auto& [fault, outcome] : expected) {
    got[fault] = backend.check(planted(backend, fault));
    EXPECT_EQ(got[fault].outcome, outcome) << "fault=" << fault << ": " << got[fault].error;
  }
  EXPECT_NE(got[2].error.find("opt-in"), std::string::npos) << got[2].error;
  EXPECT_NE(got[4].error.find("cudaErrorIllegalAddress"), std::string::npos) << got[4].error;
  EXPECT_NE(got[5].error.find("signal 6"), std::string::npos) << got[5].error;
  EXPECT_NE(got[6].error.find("within 2 s"), std::string::npos) << got[6].error;
  EXPECT_GT(got[0].flops, 0);

  // Still usable after all that: a fresh worker with the shape re-opened (the stand-in refuses
  // to check anything before open_shape).
  const Measurement again = backend.check(planted(backend, 0));
  EXPECT_EQ(again.outcome, Outcome::kOk) << again.error;
  const SampleBatch batch = backend.samples(planted(backend, 0), 4);
  EXPECT_EQ(batch.outcome, Outcome::kOk) << batch.error;
  EXPECT_EQ(batch.samples_ms.size(), 4u);
  // One worker to start with, one after each of faults 4, 5 and 6.
  EXPECT_EQ(backend.workers_started(), 4);
  EXPECT_EQ(lines_containing(log.path, "open_shape 64x64x64"), 4);
}

TEST(WorkerBackend, AHangWhileSamplingIsATimeout) {
  ScopedEnv env("FAKE_WORKER_HANG_SAMPLES", "1");
  isolation::WorkerBackend backend(fake_worker(0.25));
  TimingPolicy policy;
  policy.warmup = 1;
  backend.open_shape(Shape{32, 32, 32}, Layout::kNN, policy);
  const Candidate control = planted(backend, 0, {32, 32, 32});
  const pid_t first = backend.worker_pid();
  const SampleBatch b = backend.samples(control, 2);
  EXPECT_EQ(b.outcome, Outcome::kTimeout) << b.error;
  EXPECT_NE(b.error.find("within 1 s"), std::string::npos) << b.error;  // 0.25 s x (2 + 1 + 1)
  EXPECT_TRUE(process_gone(first));
}

TEST(WorkerBackend, AWorkerKilledFromOutsideIsACrashNotTheEndOfTheRun) {
  isolation::WorkerBackend backend(fake_worker());
  backend.open_shape(Shape{16, 16, 16}, Layout::kNN, TimingPolicy{});
  const Candidate control = planted(backend, 0, {16, 16, 16});
  ASSERT_EQ(::kill(backend.worker_pid(), SIGKILL), 0);
  const Measurement m = backend.check(control);  // writing to it must not SIGPIPE this process
  EXPECT_EQ(m.outcome, Outcome::kCrashed);
  EXPECT_NE(m.error.find("signal 9"), std::string::npos) << m.error;
  EXPECT_EQ(backend.check(control).outcome, Outcome::kOk);
  EXPECT_EQ(backend.workers_started(), 2);
}

TEST(WorkerBackend, StartupErrorsKeepTheirCodeAndMessage) {
  ScopedEnv env("FAKE_WORKER_NO_GPU", "1");
  try {
    isolation::WorkerBackend backend(fake_worker());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("no CUDA device is visible"), std::string::npos)
        << e.what();
  }
}

TEST(WorkerBackend, AShapeThatDoesNotFitIsBadInputAndTheWorkerStays) {
  isolation::WorkerBackend backend(fake_worker());
  const pid_t pid = backend.worker_pid();
  try {
    backend.open_shape(Shape{99999, 1, 1}, Layout::kNN, TimingPolicy{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("99999x1x1"), std::string::npos) << e.what();
  }
  backend.open_shape(Shape{8, 8, 8}, Layout::kNN, TimingPolicy{});
  EXPECT_EQ(backend.worker_pid(), pid);
  EXPECT_EQ(backend.workers_started(), 1);
}

TEST(WorkerBackend, TheWorkerIsStoppedWithTheBackend) {
  pid_t pid = 0;
  {
    isolation::WorkerBackend backend(fake_worker());
    pid = backend.worker_pid();
    ASSERT_FALSE(process_gone(pid));
  }
  EXPECT_TRUE(process_gone(pid));  // exited and reaped: no zombie left behind
}

TEST(WorkerBackend, AMissingWorkerProgramIsARuntimeError) {
  auto o = fake_worker();
  o.command = {"/nonexistent/occtune-worker"};
  try {
    isolation::WorkerBackend backend(o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/occtune-worker"), std::string::npos)
        << e.what();
  }
}

TEST(WorkerIsolation, ATuningRunWithPlantedFaultsCompletesAndStoresEveryOne) {
  TempFile db("occtune_isolation_db");
  auto store = db::Store::open(db.path);
  isolation::WorkerBackend backend(fake_worker());
  TuneRequest request;
  request.kernels = {"planted_faults", "naive"};
  request.shapes = {Shape{64, 64, 64}};
  request.policy.samples = 5;
  request.policy.max_samples = 10;
  request.tool_version = "test";
  request.build_id = "test-build";
  std::atomic<bool> interrupted{false};
  const TuneOutcome outcome = run_tune(backend, store, request, {}, interrupted);
  ASSERT_FALSE(outcome.context_lost);
  ASSERT_FALSE(outcome.interrupted);
  ASSERT_EQ(outcome.shapes.size(), 1u);
  ASSERT_EQ(outcome.shapes[0].kernels.size(), 2u);

  const auto& faults = outcome.shapes[0].kernels[0];
  ASSERT_EQ(faults.kernel, "planted_faults");
  ASSERT_GE(faults.winner, 0);
  EXPECT_EQ(faults.measurements[std::size_t(faults.winner)].candidate.variant->symbol,
            "PlantedFault<0>");
  // The second family ran after every fault: the run went on (naive measured: its winner, or
  // its candidates abandoned far behind planted_faults' best, issue #18).
  const KernelResult& naive = outcome.shapes[0].kernels[1];
  EXPECT_GT(std::count_if(naive.measurements.begin(), naive.measurements.end(),
                          [](const Measurement& m) { return m.timing.summary.count > 0; }),
            0);

  std::map<std::string, std::string> stored;
  for (auto& run : store.runs())
    if (run.key.kernel == "planted_faults") {
      EXPECT_EQ(run.status, RunStatus::kComplete);
      for (auto& m : store.measurements(run.id)) stored[m.variant] = to_string(m.outcome);
    }
  const std::map<std::string, std::string> expected = {
      {"PlantedFault<0>", "ok"},
      {"PlantedFault<1>", "wrong_result"},
      {"PlantedFault<2>", "exceeds_limits"},
      {"PlantedFault<3>", "invalid_config"},
      {"PlantedFault<4>", "crashed"},
      {"PlantedFault<5>", "crashed"},
      {"PlantedFault<6>", "timeout"},
  };
  EXPECT_EQ(stored, expected);
}

}  // namespace
}  // namespace occtune
