// `occtune check` (regression_check.hpp): baseline from the store, current samples from the
// backend, judgement by the gate. The re-measurement protocol is deliberately simple and fixed
// (check, then interleaved batches up to policy.samples) so its numbers are comparable with the
// baseline's; it can move to the engine's stopping rule without changing the gate.
#include "autotuner/engine/regression_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "autotuner/core/flush_protocol.hpp"
#include "autotuner/core/user_family.hpp"
#include "kernels/registry.hpp"

namespace occtune::gate {
namespace {

// One configuration measured again: the cached winner (first) or a runner-up.
struct Target {
  Candidate candidate;
  Side side;
  int count = 0;  // samples to take
  bool ok = true;
};

struct KeyWork {
  KeyVerdict key;
  StoredRun base_run;
  std::vector<StoredMeasurement> base_measurements;
  std::vector<StoredMeasurement> base_targets;  // copies: winner first, then runners-up
  std::vector<Target> targets;
};

std::optional<Candidate> find_candidate(const Plan& plan, const StoredMeasurement& m) {
  for (auto& c : plan.candidates)
    if (c.variant && c.rejection.empty() && c.variant->label() == m.params &&
        c.threads == m.threads)
      return c;
  return std::nullopt;
}

// As the tuner does: a very slow configuration gets fewer samples (never fewer than 5) rather
// than eating the check; sized from its stored median, so no extra launch is needed.
int sample_count(const TimingPolicy& policy, double median_ms) {
  if (policy.samples <= 1) return std::max(policy.samples, 1);
  const double ms = std::max(median_ms, 1e-3);
  const int affordable = int(std::min(1e6, policy.max_seconds_per_candidate * 1000.0 / ms));
  return std::clamp(affordable, std::min(5, policy.samples), policy.samples);
}

void mark_failed(Target& t, Outcome outcome, const std::string& error) {
  t.ok = false;
  t.side.outcome = outcome;
  t.side.error = error;
}

// Batches of kCheckBatch in turn, until every healthy target has its count.
void sample_interleaved(MeasurementBackend& backend, std::vector<Target*> targets,
                        bool& context_lost) {
  for (bool more = true; more && !context_lost;) {
    more = false;
    for (Target* t : targets) {
      if (!t->ok || int(t->side.samples_ms.size()) >= t->count) continue;
      const int n = std::min(kCheckBatch, t->count - int(t->side.samples_ms.size()));
      SampleBatch batch = backend.samples(t->candidate, n);
      if (batch.outcome != Outcome::kOk) {
        mark_failed(*t, batch.outcome, batch.error);
        context_lost |= batch.outcome == Outcome::kCrashed && !backend.survives_crashes();
        if (context_lost) return;
        continue;
      }
      t->side.samples_ms.insert(t->side.samples_ms.end(), batch.samples_ms.begin(),
                                batch.samples_ms.end());
      more |= int(t->side.samples_ms.size()) < t->count;
    }
  }
  for (Target* t : targets) t->side.summary = summarize(t->side.samples_ms);
}

Side current_side(const DeviceInfo& device, const CheckRequest& request, const std::string& kernel,
                  Shape shape, const Candidate& c) {
  Side s;
  s.build_id = family_build_id(kernel, request.build_id);  // a user family's: its version
  const auto key =
      CacheKey::make(device, kernel, s.build_id, shape, "f32", layout_name(request.layout));
  s.device_uuid = device.uuid;
  s.platform = platform_of(key);
  s.variant = c.variant ? c.variant->symbol : "";
  s.config = c.variant ? c.variant->label() : "";
  s.threads = c.threads;
  return s;
}

// Finds the baseline and the candidates to measure; a key that cannot be judged is finished here.
KeyWork prepare(MeasurementBackend& backend, RunHistory& store,
                const std::vector<StoredRun>& runs, const CheckRequest& request,
                const std::string& kernel, Shape shape) {
  KeyWork w;
  KeyVerdict& key = w.key;
  key.kernel = kernel;
  key.shape = shape;
  key.layout = layout_name(request.layout);
  auto it = request.kernel_override.find(kernel);
  key.launched_kernel = it == request.kernel_override.end() ? kernel : it->second;
  const DeviceInfo& device = backend.device();
  const auto target =
      CacheKey::make(device, kernel, family_build_id(kernel, request.build_id), shape, "f32",
                         layout_name(request.layout));
  const BaselineChoice choice = choose_baseline(runs, target, request.gate.allow_different_device,
                                                {flush_protocol(request.policy), "this check"});
  if (choice.status != BaselineStatus::kFound) {
    key.verdict =
        choice.status == BaselineStatus::kMissing ? Verdict::kMissing : Verdict::kIncompatible;
    key.reason = choice.reason;
    return w;
  }
  w.base_run = runs[std::size_t(choice.index)];
  key.different_platform = choice.different_platform;
  if (choice.different_platform)
    key.notes.push_back("baseline measured on another platform: " + platform_of(w.base_run.key));
  w.base_measurements = store.measurements(w.base_run.id);
  const auto ranked = ranked_ok(w.base_measurements);
  if (ranked.empty()) {
    key.verdict = Verdict::kMissing;
    key.reason = fmt::format(
        "the baseline run {} has no passing candidate; re-tune with `occtune "
        "tune --kernel {} --shape {}{}`",
        w.base_run.id, kernel, shape.str(),
        request.layout == Layout::kNN ? ""
                                      : std::string(" --layout ") + layout_name(request.layout));
    return w;
  }
  key.baseline = side_of(w.base_run, *ranked.front());

  const kernels::FamilyInfo* family = kernels::find_family(key.launched_kernel);
  Plan plan = backend.plan(*family, shape, request.min_tile, request.layout);
  // The cached winner may sit below the job's min_tile (it was tuned with another job): plan
  // the whole walk before giving up on it.
  if (!find_candidate(plan, *ranked.front()))
    plan = backend.plan(*family, shape, 1, request.layout);
  const std::size_t wanted = std::min(ranked.size(), std::size_t(1 + request.gate.runners_up));
  for (std::size_t i = 0; i < wanted; ++i) {
    auto candidate = find_candidate(plan, *ranked[i]);
    if (!candidate) {
      if (i == 0) {
        key.verdict = Verdict::kMissing;
        key.reason = fmt::format(
            "the cached winner {} ({} threads) is not a candidate of {} in "
            "this build; re-tune with `occtune tune`",
            ranked[i]->params, ranked[i]->threads, key.launched_kernel);
        return w;
      }
      key.notes.push_back(
          fmt::format("runner-up {} is not a candidate in this build; skipped", ranked[i]->params));
      continue;
    }
    Target t;
    t.candidate = *candidate;
    t.side = current_side(device, request, key.launched_kernel, shape, *candidate);
    t.count = sample_count(request.policy, ranked[i]->summary.median);
    w.base_targets.push_back(*ranked[i]);
    w.targets.push_back(std::move(t));
  }
  return w;
}

void measure(MeasurementBackend& backend, const CheckRequest& request, KeyWork& w,
             bool& context_lost, const CheckEvents& events) {
  KeyVerdict& key = w.key;
  auto progress = [&](const std::string& what) {
    if (events.on_progress)
      events.on_progress(fmt::format("{} {} {}", key.kernel, key.shape.str(), what));
  };
  for (auto& t : w.targets) {
    Measurement m = backend.check(t.candidate);
    t.side.rel_error = m.rel_error;
    if (m.outcome != Outcome::kOk) mark_failed(t, m.outcome, m.error);
    if (m.outcome == Outcome::kCrashed && !backend.survives_crashes()) {
      context_lost = true;  // in-process: nothing more can run in this context
      break;
    }
  }
  Target& winner = w.targets.front();
  if (winner.ok && !context_lost) {
    progress(
        fmt::format("{}: timing with {} runner-up(s)", winner.side.config, w.targets.size() - 1));
    std::vector<Target*> all;
    for (auto& t : w.targets) all.push_back(&t);
    sample_interleaved(backend, all, context_lost);
  }
  key.current = winner.side;
  if (!winner.ok) return;

  const std::vector<double>& base_samples = w.base_targets.front().samples_ms;
  key.comparison = compare_samples(base_samples, winner.side.samples_ms, request.gate.policy);
  if (key.comparison.verdict == Verdict::kSlow && !context_lost) {
    // A suspected SLOW counts only when a fresh measurement agrees (issue #6).
    progress(fmt::format("{}: {:.3f}x slower, measuring again to confirm", winner.side.config,
                         key.comparison.ratio));
    Target again = winner;
    again.side.samples_ms.clear();
    sample_interleaved(backend, {&again}, context_lost);
    key.first_comparison = key.comparison;
    key.current = again.side;
    if (again.ok)
      key.comparison = compare_samples(base_samples, again.side.samples_ms, request.gate.policy);
  }
  for (std::size_t i = 1; i < w.targets.size(); ++i) {
    const Target& t = w.targets[i];
    if (!t.ok) {
      key.notes.push_back(fmt::format("runner-up {} is now {}{}", t.side.config, to_string(t.side.outcome),
                                      t.side.error.empty() ? "" : " (" + t.side.error + ")"));
      continue;
    }
    key.runners_up.push_back(
        {t.side, compare_samples(winner.side.samples_ms, t.side.samples_ms, request.gate.policy)});
  }
}

}  // namespace

GateReport run_check(MeasurementBackend& backend, RunHistory& store, const CheckRequest& request,
                     const CheckEvents& events) {
  GateReport report;
  report.kind = "check";
  report.options = request.gate;
  report.build_id = request.build_id;
  const DeviceInfo& device = backend.device();
  report.device = fmt::format("GPU {} {} ({})", device.index, device.name, device.uuid);
  const std::vector<StoredRun> runs = store.runs();
  bool context_lost = false;

  auto finish = [&](KeyVerdict& key) {
    if (key.baseline && key.current) decide(key, request.gate.policy);
    if (events.on_key) events.on_key(key);
    report.keys.push_back(std::move(key));
  };
  for (const Shape& shape : request.shapes) {
    std::vector<KeyWork> work;
    for (auto& kernel : request.kernels)
      work.push_back(prepare(backend, store, runs, request, kernel, shape));
    const bool any =
        std::any_of(work.begin(), work.end(), [](const KeyWork& w) { return !w.targets.empty(); });
    // A user kernel family (occtune/kernel.hpp) opens its own problem, per family.
    const bool user = !request.kernels.empty() && find_user_family(request.kernels.front());
    if (any && !context_lost && !user)
      backend.open_shape(shape, request.layout, request.policy);
    for (auto& w : work) {
      if (!w.targets.empty()) {
        if (context_lost) {
          w.key.verdict = Verdict::kMissing;
          w.key.reason = "not measured: an earlier candidate left the CUDA context unusable";
        } else {
          if (user) backend.open_user_problem(w.key.launched_kernel, shape, request.policy);
          measure(backend, request, w, context_lost, events);
        }
      }
      finish(w.key);
    }
  }
  return report;
}

}  // namespace occtune::gate
