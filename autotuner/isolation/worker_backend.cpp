#include "autotuner/isolation/worker_backend.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"

namespace occtune::isolation {
namespace {

std::vector<std::string> default_command() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0)
    fail(ExitCode::kRuntime,
         "cannot find this executable (/proc/self/exe) to start the worker "
         "process; measure in-process with --no-isolation");
  // The parent's pid lets the worker notice when it was orphaned before it could arrange to
  // die with its parent.
  return {std::string(path, std::size_t(n)), "__worker", "--parent", std::to_string(::getpid())};
}

Error worker_error(const json& body) {
  const int code = body.value("code", int(ExitCode::kRuntime));
  const bool known = code >= 1 && code <= 4;
  return Error(known ? ExitCode(code) : ExitCode::kRuntime,
               body.value("message", std::string("the worker failed without a message")));
}

}  // namespace

WorkerBackend::WorkerBackend(WorkerOptions options) : options_(std::move(options)) {
  if (options_.command.empty()) options_.command = default_command();
  ensure_worker();
}

WorkerBackend::~WorkerBackend() {
  if (!worker_ || !worker_->running()) return;
  // Let it free the GPU itself; a worker stuck in a kernel is killed.
  worker_->channel().send(wire({{"op", "shutdown"}}));
  worker_->wait(5.0);
}

WorkerBackend::Reply WorkerBackend::call(const json& request, double timeout_s) {
  Reply reply;
  std::string line;
  auto status = LineChannel::Status::kClosed;
  if (worker_->channel().send(wire(request))) status = worker_->channel().receive(line, timeout_s);
  if (status == LineChannel::Status::kTimeout) {
    reply.status = Status::kTimedOut;
    return reply;
  }
  if (status == LineChannel::Status::kClosed) {
    reply.status = Status::kDied;
    reply.ending = worker_->wait(10.0);
    worker_.reset();
    return reply;
  }
  try {
    reply.body = json::parse(line);
  } catch (const json::exception& e) {
    worker_->kill();
    worker_.reset();
    fail(ExitCode::kRuntime, fmt::format("worker protocol: unreadable answer ({}); rerun, or "
                                         "measure in-process with --no-isolation",
                                         e.what()));
  }
  if (reply.body.value("exiting", false)) {
    // It answered and is leaving (a sticky error): reap it now, start another when needed.
    reply.ending = worker_->wait(10.0);
    worker_.reset();
  }
  return reply;
}

json WorkerBackend::control(const json& request, const char* what, double timeout_s) {
  const pid_t pid = worker_->pid();
  Reply r = call(request, timeout_s);
  if (r.status == Status::kTimedOut) {
    worker_->kill();
    worker_.reset();
    fail(ExitCode::kRuntime,
         fmt::format("the worker process {} did not finish '{}' within {:g} s and was stopped; "
                     "check the GPU (nvidia-smi), or measure in-process with --no-isolation",
                     pid, what, timeout_s));
  }
  if (r.status == Status::kDied)
    fail(ExitCode::kRuntime,
         fmt::format("the worker process {} {} during '{}'; check the GPU (nvidia-smi), or "
                     "measure in-process with --no-isolation to see the failure directly",
                     pid, r.ending, what));
  if (!r.body.value("ok", false)) throw worker_error(r.body);
  return r.body;
}

void WorkerBackend::ensure_worker() {
  if (worker_ && worker_->running()) return;
  worker_.reset();
  worker_ = std::make_unique<WorkerProcess>(options_.command);
  ++started_;
  // A replacement selects the very GPU the first worker found, whatever the selector said.
  const std::string selector = started_ == 1 ? options_.device_selector : device_.uuid;
  const json hello =
      control({{"op", "hello"}, {"protocol", kProtocolVersion}, {"device", selector}}, "start-up",
              options_.control_timeout_s);
  DeviceInfo found = decode_device(hello.at("device"));
  if (started_ > 1 && found.uuid != device_.uuid)
    fail(ExitCode::kRuntime, fmt::format("the replacement worker found GPU {} instead of {}; "
                                         "rerun",
                                         found.uuid, device_.uuid));
  device_ = std::move(found);
  reference_clock_mhz_ =
      decoding("hello", [&] { return hello.at("reference_clock_mhz").get<int>(); });
  spdlog::debug("worker process {} started on {} ({} so far)", worker_->pid(), device_.uuid,
                started_);
  if (have_shape_) open_on_worker(true);
}

void WorkerBackend::open_on_worker(bool after_restart) {
  json request = {{"op", "open_shape"},
                  {"shape", encode(shape_)},
                  {"layout", encode(layout_)},
                  {"policy", encode(policy_)}};
  if (!user_family_.empty()) request["family"] = user_family_;
  for (int attempt = 1;; ++attempt) {
    try {
      control(request, "open_shape", options_.control_timeout_s);
      return;
    } catch (const Error& e) {
      // The driver frees a killed worker's memory shortly after it dies; until then a large
      // shape may not fit in the replacement. Only then is "does not fit" worth a retry.
      if (!after_restart || e.code() != ExitCode::kUsage || attempt >= 20) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

Plan WorkerBackend::plan(const kernels::FamilyInfo& family, Shape shape, int min_tile,
                         Layout layout) {
  ensure_worker();
  const json body = control({{"op", "plan"},
                             {"family", family.name},
                             {"shape", encode(shape)},
                             {"layout", encode(layout)},
                             {"min_tile", min_tile}},
                            "plan", options_.control_timeout_s);
  return decode_plan(body.at("plan"));
}

void WorkerBackend::open_shape(Shape shape, Layout layout, const TimingPolicy& policy) {
  have_shape_ = false;  // a shape that does not fit is not re-opened by a replacement
  ensure_worker();
  shape_ = shape;
  layout_ = layout;
  policy_ = policy;
  user_family_.clear();
  work_ = {shape.flops(), 0.0};
  open_on_worker(false);
  have_shape_ = true;
}

void WorkerBackend::open_user_problem(const std::string& family, Shape problem,
                                      const TimingPolicy& policy) {
  have_shape_ = false;
  ensure_worker();
  shape_ = problem;
  layout_ = Layout::kNN;
  policy_ = policy;
  user_family_ = family;
  // The worker is this executable, so it knows the same families (occtune::main).
  work_ = problem_work(family, problem);
  open_on_worker(false);
  have_shape_ = true;
}

SampleBatch WorkerBackend::reference_samples(int count) {
  ensure_worker();
  const double limit = std::max(options_.control_timeout_s,
                                options_.candidate_timeout_s * (count + policy_.warmup + 1));
  return decode_batch(
      control({{"op", "reference_samples"}, {"count", count}}, "reference", limit).at("batch"));
}

void WorkerBackend::replace_after(const Candidate& candidate, Outcome outcome,
                                  const std::string& why) {
  spdlog::warn("{} ({}): {}: {}; a new worker process takes over", candidate.variant->symbol,
               candidate.variant->label(), to_string(outcome), why);
}

Measurement WorkerBackend::check(const Candidate& candidate) {
  ensure_worker();
  Measurement m;
  m.candidate = candidate;
  m.flops = work_.flops;
  m.bytes = work_.bytes;
  const pid_t pid = worker_->pid();
  const double limit = options_.candidate_timeout_s;
  Reply r = call({{"op", "check"}, {"candidate", encode(candidate)}}, limit);
  switch (r.status) {
    case Status::kAnswered:
      if (!r.body.value("ok", false)) throw worker_error(r.body);
      decode_check(r.body.at("check"), m);
      m.flops = work_.flops;
  m.bytes = work_.bytes;
      if (m.outcome == Outcome::kCrashed) replace_after(candidate, m.outcome, m.error);
      return m;
    case Status::kTimedOut:
      worker_->kill();
      worker_.reset();
      m.outcome = Outcome::kTimeout;
      m.error = fmt::format(
          "did not finish within {:g} s (--candidate-timeout); its worker "
          "process {} was killed",
          limit, pid);
      break;
    case Status::kDied:
      m.outcome = Outcome::kCrashed;
      m.error = fmt::format("the worker process {} {} while running it", pid, r.ending);
      break;
  }
  replace_after(candidate, m.outcome, m.error);
  return m;
}

SampleBatch WorkerBackend::samples(const Candidate& candidate, int count) {
  ensure_worker();
  const pid_t pid = worker_->pid();
  const double limit = options_.candidate_timeout_s * (count + policy_.warmup + 1);
  Reply r = call({{"op", "samples"}, {"candidate", encode(candidate)}, {"count", count}}, limit);
  SampleBatch b;
  switch (r.status) {
    case Status::kAnswered:
      if (!r.body.value("ok", false)) throw worker_error(r.body);
      b = decode_batch(r.body.at("batch"));
      if (b.outcome == Outcome::kCrashed) replace_after(candidate, b.outcome, b.error);
      return b;
    case Status::kTimedOut:
      worker_->kill();
      worker_.reset();
      b.outcome = Outcome::kTimeout;
      b.error = fmt::format(
          "{} samples did not finish within {:g} s ({:g} s per launch, "
          "--candidate-timeout); its worker process {} was killed",
          count, limit, options_.candidate_timeout_s, pid);
      break;
    case Status::kDied:
      b.outcome = Outcome::kCrashed;
      b.error = fmt::format("the worker process {} {} while sampling it", pid, r.ending);
      break;
  }
  replace_after(candidate, b.outcome, b.error);
  return b;
}

std::string WorkerBackend::description() const {
  return fmt::format(
      "isolated: worker process on {}, candidate timeout {:g} s, {} worker(s) "
      "started",
      device_.uuid, options_.candidate_timeout_s, started_);
}

}  // namespace occtune::isolation
