// run_tune: plans every shape and family, measures the cuBLAS reference, and runs one race per
// family (engine/race.cpp) under its fair share of the time budget. Progress and wall times
// are reported from here.
#include "autotuner/engine/tuner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <optional>

#include "autotuner/core/cost_prune.hpp"
#include "autotuner/core/stopping_rule.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/engine/race.hpp"

namespace occtune {
namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The reference is measured with the same stopping rule and throttle test as a candidate.
Timing sample_reference(MeasurementBackend& backend, const TuneRequest& request,
                        const std::atomic<bool>& interrupted) {
  const TimingPolicy& p = request.policy;
  const StoppingRule rule = StoppingRule::from(p);
  Timing t;
  while (!interrupted) {
    const StopCheck check = evaluate(rule, t.samples_ms);
    if (check.stop) {
      t.stop = check.reason;
      break;
    }
    SampleBatch batch = backend.reference_samples(next_batch(rule, t.samples_ms, p.batch));
    if (is_throttled(batch.sm_clock_mhz, request.reference_clock_mhz, p.throttle_ratio)) {
      if (++t.throttled_batches <= p.throttle_retries) continue;
      t.throttled = true;
    }
    t.samples_ms.insert(t.samples_ms.end(), batch.samples_ms.begin(), batch.samples_ms.end());
    if (batch.sm_clock_mhz > 0) {
      t.sm_clock_mhz = batch.sm_clock_mhz;
      t.sm_clock_min_mhz = t.sm_clock_min_mhz > 0 ? std::min(t.sm_clock_min_mhz, batch.sm_clock_mhz)
                                                  : batch.sm_clock_mhz;
      t.sm_clock_max_mhz = std::max(t.sm_clock_max_mhz, batch.sm_clock_mhz);
    }
  }
  t.summary = summarize(t.samples_ms);
  t.noise = t.summary.count >= 2 ? t.summary.relative_iqr() : 0.0;
  t.median_ci = median_interval(t.samples_ms, request.search.tie_level);
  t.measured_s = std::accumulate(t.samples_ms.begin(), t.samples_ms.end(), 0.0) / 1000.0;
  return t;
}

// Issue #18, before halving measures anything at one shape: the cost model's verdict on each
// candidate of each family ("" = measured; empty lists when halving does not prune) and the
// order the families are raced in (best estimate first when halving abandons, else as asked).
// Only the GEMM families have the tiles the model reads.
struct ShapeSearchPlan {
  std::vector<std::vector<std::string>> pruned;  // [family][candidate]
  std::vector<size_t> order;                     // family indices, in racing order
};

ShapeSearchPlan search_plan(const std::vector<Plan>& plans, const DeviceInfo& device, Shape shape,
                            const TuneRequest& request, bool user_kernels) {
  ShapeSearchPlan out;
  out.pruned.resize(plans.size());
  out.order.resize(plans.size());
  std::iota(out.order.begin(), out.order.end(), size_t(0));
  const SearchSettings& search = request.search;
  if (user_kernels || (!search.prunes() && !search.abandons())) return out;
  std::vector<std::vector<Candidate>> families;
  for (auto& plan : plans) families.push_back(plan.candidates);
  auto decisions = prune_by_cost(families, device, shape, request.layout,
                                 {search.prune_factor, search.prune_keep});
  if (!search.prunes())
    for (auto& family : decisions)
      for (auto& d : family) d = {d.estimate_ms, d.ratio, false, ""};
  if (search.abandons()) out.order = measure_order(decisions);
  if (!search.prunes()) return out;
  int pruned = 0, all = 0;
  for (size_t f = 0; f < plans.size(); ++f)
    for (auto& d : decisions[f]) {
      out.pruned[f].push_back(d.reason);
      pruned += d.pruned;
      ++all;
    }
  spdlog::info(
      "cost model at {}: {} of {} candidates pruned (beyond {}x the best estimate, "
      "keeping {} per family)",
      shape.str(), pruned, all, search.prune_factor, search.prune_keep);
  return out;
}

int count_pruned(const std::vector<std::string>& reasons) {
  return int(std::count_if(reasons.begin(), reasons.end(),
                           [](const std::string& r) { return !r.empty(); }));
}

}  // namespace

double ShapeResult::cublas_ms() const {
  // A set not taken summarises to a median of 0.
  const double before = cublas.summary.median, after = cublas_after.summary.median;
  return before > 0 && after > 0 ? std::min(before, after) : std::max(before, after);
}

int pick_winner(const std::vector<Measurement>& ms) {
  int best = -1;
  for (int i = 0; i < int(ms.size()); ++i) {
    const auto& m = ms[size_t(i)];
    if (m.outcome != Outcome::kOk || m.timing.summary.count == 0) continue;
    if (best < 0 || m.timing.summary.median < ms[size_t(best)].timing.summary.median) best = i;
  }
  return best;
}

TuneOutcome run_tune(MeasurementBackend& backend, MeasurementSink& store, const TuneRequest& request,
                     const TuneEvents& events, const std::atomic<bool>& interrupted) {
  const auto now = request.clock ? request.clock : std::function<double()>(steady_seconds);
  const double start = now();
  const double budget = request.search.time_budget_s;
  const DeviceInfo& device = backend.device();
  validate_strategy(request.search.strategy);
  // User kernel families and the GEMM families are tuned by separate requests (the CLI says so).
  const bool user_kernels = !request.kernels.empty() && find_user_family(request.kernels.front());
  for (const auto& name : request.kernels)
    if (bool(find_user_family(name)) != user_kernels)
      fail(ExitCode::kUsage, "tune user kernel families and the built-in GEMM families in "
                             "separate runs ('" + name + "' and '" + request.kernels.front() +
                             "' were asked together)");

  std::vector<std::vector<Plan>> plans;
  std::vector<ShapeSearchPlan> searches;  // [shape]
  int total = 0;
  for (auto& shape : request.shapes) {
    plans.emplace_back();
    for (auto& name : request.kernels) {
      plans.back().push_back(
          backend.plan(*kernels::find_family(name), shape, request.min_tile, request.layout));
      // A family compiled at tuning time says what compiling it took (its plan's notes).
      if (plans.back().back().compile_seconds > 0)
        for (const auto& note : plans.back().back().notes) spdlog::info("compiled {}", note);
    }
    searches.push_back(search_plan(plans.back(), device, shape, request, user_kernels));
    for (size_t f = 0; f < plans.back().size(); ++f)
      total += engine::listed_candidates(plans.back()[f], request.search,
                                         count_pruned(searches.back().pruned[f]));
  }
  const int runs_total = int(request.shapes.size() * request.kernels.size());

  TuneOutcome outcome;
  int done = 0, runs_done = 0;
  auto progress = [&](const Shape& shape, const std::string& kernel, const std::string& phase,
                      int done_now, const std::string& best, double best_ms) {
    if (!events.on_progress) return;
    TuneProgress p{shape, kernel, phase, done_now, total, best, best_ms, now() - start, -1};
    if (done_now > 0 && done_now < total) p.eta_s = p.elapsed_s * (total - done_now) / done_now;
    if (done_now >= total) p.eta_s = 0;
    events.on_progress(p);
  };
  auto budget_left = [&] { return budget > 0 ? start + budget - now() : 1e300; };

  for (size_t si = 0; si < request.shapes.size(); ++si) {
    if (interrupted || outcome.context_lost) break;
    if (budget_left() <= 0) {
      outcome.budget_exhausted = true;
      break;
    }
    const Shape shape = request.shapes[si];
    const double shape_start = now();
    ShapeResult result;
    result.shape = shape;
    if (!user_kernels) {
      backend.open_shape(shape, request.layout, request.policy);
      progress(shape, "cublas", "reference", done, "", 0);
      result.cublas = sample_reference(backend, request, interrupted);
    }
    // Raced in search order, listed in the order asked; the incumbent is the best median
    // measured to the stopping rule so far at this shape (issue #18).
    std::vector<std::optional<KernelResult>> raced(plans[si].size());
    double shape_best_ms = 0;
    std::string abandoned_families;  // raced to no winner, every candidate abandoned
    for (const size_t fi : searches[si].order) {
      const Plan& plan = plans[si][fi];
      const std::vector<std::string>& pruned = searches[si].pruned[fi];
      if (interrupted || outcome.context_lost) break;
      const double run_start = now();
      // Fair share: what is left of the budget, split over the races still to run.
      const double deadline = run_start + budget_left() / double(runs_total - runs_done);
      KernelResult kr;
      // A user family opens its own problem and is keyed by its version (occtune/kernel.hpp).
      if (user_kernels) backend.open_user_problem(plan.family, shape, request.policy);
      const std::string build_id = family_build_id(plan.family, request.build_id);
      const auto run_id = store.begin_run({device, plan.family, build_id, "f32", shape,
                                           request.tool_version, request.argv, request.policy,
                                           layout_name(request.layout)},
                                          {request.search.strategy, request.reference_clock_mhz});
      if (!user_kernels) store.set_reference(run_id, result.cublas);
      const int done_before = done;
      engine::RaceEnv env{
          backend,
          store,
          request,
          [&]() -> StopReason {
            if (interrupted) return StopReason::kInterrupted;
            if (budget > 0 && now() >= deadline) return StopReason::kBudget;
            return StopReason::kNone;
          },
          [&](const std::string& phase, int settled, const std::string& best, double best_ms) {
            done = done_before + settled;
            progress(shape, plan.family, phase, done, best, best_ms);
          },
          pruned,
          shape_best_ms};
      auto race = engine::run_race(env, plan,
                                   CacheKey::make(device, plan.family, build_id, shape),
                                   run_id, problem_work(plan.family, shape));
      done = done_before + engine::listed_candidates(plan, request.search, count_pruned(pruned));
      ++runs_done;
      outcome.context_lost |= race.context_lost;
      kr = std::move(race.result);
      kr.wall_s = now() - run_start;
      kr.compile_s = plan.compile_seconds;
      if (kr.stopped == StopReason::kBudget) outcome.budget_exhausted = true;
      const auto status = interrupted            ? RunStatus::kInterrupted
                          : outcome.context_lost ? RunStatus::kFailed
                                                 : RunStatus::kComplete;
      store.finish_run(run_id, status);
      // User families of one run may compute different things: only the GEMM families, which
      // all compute the same product, share an incumbent.
      if (!user_kernels && kr.winner >= 0) {
        const Timing& t = kr.measurements[size_t(kr.winner)].timing;
        if (is_final(t.stop) && (shape_best_ms == 0 || t.summary.median < shape_best_ms))
          shape_best_ms = t.summary.median;
      }
      if (kr.winner < 0 && status == RunStatus::kComplete && kr.abandoned > 0)
        abandoned_families += (abandoned_families.empty() ? "" : ", ") + plan.family;
      else if (kr.winner < 0 && status == RunStatus::kComplete)
        spdlog::warn("{} at {}: no candidate passed; nothing is cached for this key", plan.family,
                     shape.str());
      progress(shape, plan.family, "done", done,
               kr.winner >= 0 ? kr.measurements[size_t(kr.winner)].candidate.variant->label() : "",
               kr.winner >= 0 ? kr.measurements[size_t(kr.winner)].timing.summary.median : 0);
      raced[fi] = std::move(kr);
    }
    for (auto& kr : raced)
      if (kr) result.kernels.push_back(std::move(*kr));
    if (!abandoned_families.empty())
      spdlog::info(
          "{}: no winner for {}: their candidates were abandoned (fastest sample at least "
          "{}x the shape's best so far, or {}x after {} samples); a lookup of such a key "
          "answers with its fastest, stop reason 'abandoned' (--abandon-factor 0 or "
          "--strategy exhaustive measures them fully)",
          shape.str(), abandoned_families, request.search.abandon_factor,
          request.search.behind_factor, kBehindMinSamples);
    if (request.reference_after && !user_kernels && !interrupted && !outcome.context_lost) {
      progress(shape, "cublas", "reference", done, "", 0);
      result.cublas_after = sample_reference(backend, request, interrupted);
    }
    result.wall_s = now() - shape_start;
    if (events.on_shape) events.on_shape(result);
    outcome.shapes.push_back(std::move(result));
  }
  outcome.interrupted = interrupted;
  outcome.wall_s = now() - start;
  return outcome;
}

}  // namespace occtune
