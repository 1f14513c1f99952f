// One family's candidates for one shape, raced to a decision: reuse from the store, verify,
// interleaved rounds under the strategy (with throttled batches retaken), tie confirmation and
// the winner. Internal to the engine; run_tune() drives one race per shape and family.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/engine/tune_result.hpp"
#include "autotuner/engine/tuner.hpp"
#include "autotuner/core/measurement_sink.hpp"

namespace occtune::engine {

struct RaceEnv {
  MeasurementBackend& backend;
  MeasurementSink& store;
  const TuneRequest& request;
  // kInterrupted (Ctrl-C), kBudget (this race's share of the time budget is spent) or kNone.
  std::function<StopReason()> should_stop;
  // Where the race is: phase, candidates that settled since the last call, best so far.
  std::function<void(const std::string& phase, int settled, const std::string& best,
                     double best_ms)>
      progress;
  // Per plan candidate, why the cost model pruned it (issue #18); empty or "" = measured.
  std::vector<std::string> pruned = {};
  // Issue #18: the best median measured to the stopping rule by the families already raced at
  // this shape (0: none); halving abandons candidates far behind it.
  double shape_best_ms = 0;
};

struct RaceOutcome {
  KernelResult result;
  bool context_lost = false;
};

// The candidates the race will list: the plan less the `pruned` ones, in strategy order, cut to
// max_candidates.
int listed_candidates(const Plan& plan, const SearchSettings& search, int pruned = 0);

RaceOutcome run_race(RaceEnv& env, const Plan& plan, const CacheKey& key, std::int64_t run_id,
                     Work work);

}  // namespace occtune::engine
