// The isolated MeasurementBackend (the default of `occtune tune`): the parent process owns the
// database and never creates a CUDA context; every GPU call goes to a worker process (occtune in
// its hidden worker mode) that holds the context. A candidate that hangs past its timeout, or
// crashes the worker or its context, is recorded as `timeout` or `crashed`; the worker is killed
// and a new one started, which re-opens the current shape, and the run goes on.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/isolation/protocol.hpp"
#include "autotuner/isolation/worker_process.hpp"

namespace occtune::isolation {

struct WorkerOptions {
  // The worker's argv; empty: this executable in worker mode (`occtune __worker`).
  std::vector<std::string> command;
  std::string device_selector;  // as given; restarted workers select the first one's UUID
  // Wall-clock limit of one launch of a candidate: check() gets one, a batch of n samples
  // n + warm-up + 1 of them.
  double candidate_timeout_s = kDefaultCandidateTimeoutS;
  // Start-up (CUDA context, device probe), planning, allocating a shape and its cuBLAS
  // reference: none of them runs a candidate, so a generous limit only catches a broken GPU.
  double control_timeout_s = 120;
};

class WorkerBackend final : public MeasurementBackend {
 public:
  // Starts the first worker and learns the device from it. Errors the worker reports (no GPU,
  // a selector that matches nothing) are thrown as they are, with their exit codes.
  explicit WorkerBackend(WorkerOptions options);
  ~WorkerBackend() override;  // asks the worker to exit; kills it after 5 s

  const DeviceInfo& device() const override { return device_; }
  Plan plan(const kernels::FamilyInfo& family, Shape shape, int min_tile,
            Layout layout) override;
  void open_shape(Shape shape, Layout layout, const TimingPolicy& policy) override;
  void open_user_problem(const std::string& family, Shape problem,
                         const TimingPolicy& policy) override;
  SampleBatch reference_samples(int count) override;
  Measurement check(const Candidate& candidate) override;
  SampleBatch samples(const Candidate& candidate, int count) override;
  std::string description() const override;
  int throttle_reference_clock_mhz() const override { return reference_clock_mhz_; }
  bool survives_crashes() const override { return true; }

  int workers_started() const { return started_; }
  pid_t worker_pid() const { return worker_ && worker_->running() ? worker_->pid() : 0; }

 private:
  enum class Status { kAnswered, kTimedOut, kDied };
  struct Reply {
    Status status = Status::kAnswered;
    json body;
    std::string ending;  // how the worker ended, when it did
  };
  Reply call(const json& request, double timeout_s);
  // A request that runs no candidate: anything but a successful answer is thrown.
  json control(const json& request, const char* what, double timeout_s);
  void ensure_worker();
  void open_on_worker(bool after_restart);
  void replace_after(const Candidate& candidate, Outcome outcome, const std::string& why);

  WorkerOptions options_;
  DeviceInfo device_;
  int reference_clock_mhz_ = 0;  // from the worker's hello
  std::unique_ptr<WorkerProcess> worker_;
  bool have_shape_ = false;
  std::string user_family_;  // the user kernel family whose problem is open; "" for GEMM
  Work work_;                // of one launch on the open shape or problem
  Shape shape_;
  Layout layout_ = Layout::kNN;
  TimingPolicy policy_;
  int started_ = 0;
};

}  // namespace occtune::isolation
