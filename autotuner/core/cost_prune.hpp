// Pruning before measuring (issue #18): every candidate of every family at one shape gets a cost
// estimate (core/cost_model.hpp); those beyond `factor` x the best estimate are pruned, except
// the `keep` best-estimated of each family. A pruned candidate carries its reason.
#pragma once

#include <string>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/cost_model.hpp"

namespace occtune {

// [search] prune: "cost" (default) or "none".
std::string prune_names();  // "cost, none"
// Throws Error(kUsage) naming the value and the known ones.
void validate_prune(const std::string& name);

struct PruneSettings {
  double factor = 2.0;  // keep estimates within this x the shape's best estimate
  int keep = 1;         // and at least this many per family (its best estimates)
};

struct PruneDecision {
  double estimate_ms = 0;  // 0: no estimate (unknown geometry: never pruned)
  double ratio = 0;        // estimate / the best estimate of the shape
  bool pruned = false;
  std::string reason;      // "cost model: est 3.10x best" when pruned
};

// One list per family, aligned with its candidates. Candidates already rejected (rejection
// non-empty) are never pruned and never the best: their check records why they cannot run. The
// textbook occupancy answer (origin occupancy-api, step 1) is never pruned.
std::vector<std::vector<PruneDecision>> prune_by_cost(
    const std::vector<std::vector<Candidate>>& families, const DeviceInfo& device, Shape shape,
    Layout layout, const PruneSettings& settings);

// The same over inputs without candidates (a fixture of measurements): one estimate per input;
// a repacked input is pruned where the shape needs no copy (repacking_copies).
std::vector<std::vector<PruneDecision>> prune_inputs(
    const std::vector<std::vector<std::optional<CostInput>>>& families, const DeviceInfo& device,
    Shape shape, Layout layout, const PruneSettings& settings);

// Issue #18: the order halving races the families of one shape in: by each family's best
// estimate among its unpruned candidates, best first, so that the incumbent which abandons
// hopeless candidates (core/search_strategy.hpp) is a good one early. Families with no estimate
// follow in their own order.
std::vector<size_t> measure_order(const std::vector<std::vector<PruneDecision>>& decisions);

}  // namespace occtune
