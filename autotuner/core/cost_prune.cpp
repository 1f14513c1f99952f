// Pruning by the cost model across the families of one shape (core/cost_prune.hpp).
#include "autotuner/core/cost_prune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "autotuner/core/error.hpp"

namespace occtune {

namespace {

// Estimates are compared with this much added to both: below a few tens of microseconds launch,
// latency and the L2 flush dominate, which the model does not resolve, so tiny shapes prune
// little (and cost little to measure).
constexpr double kAllowanceMs = 0.01;

}  // namespace

std::string prune_names() { return "cost, none"; }

void validate_prune(const std::string& name) {
  if (name != "cost" && name != "none")
    fail(ExitCode::kUsage, fmt::format("unknown prune '{}'; known: {} (cost: the cost model "
                                       "prunes before halving measures; none: measure every "
                                       "candidate)",
                                       name, prune_names()));
}

std::vector<std::vector<PruneDecision>> prune_inputs(
    const std::vector<std::vector<std::optional<CostInput>>>& families, const DeviceInfo& device,
    Shape shape, Layout layout, const PruneSettings& settings) {
  std::vector<std::vector<PruneDecision>> out(families.size());
  double best = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < families.size(); ++f) {
    out[f].resize(families[f].size());
    for (size_t i = 0; i < families[f].size(); ++i) {
      if (!families[f][i]) continue;
      out[f][i].estimate_ms = estimate_cost(*families[f][i], device, shape, layout).ms;
      best = std::min(best, out[f][i].estimate_ms);
    }
  }
  if (!(best > 0) || best == std::numeric_limits<double>::infinity()) return out;
  for (size_t f = 0; f < families.size(); ++f) {
    auto& ds = out[f];
    std::vector<size_t> by_estimate;
    for (size_t i = 0; i < ds.size(); ++i)
      if (ds[i].estimate_ms > 0) by_estimate.push_back(i);
    std::stable_sort(by_estimate.begin(), by_estimate.end(),
                     [&](size_t a, size_t b) { return ds[a].estimate_ms < ds[b].estimate_ms; });
    for (size_t rank = 0; rank < by_estimate.size(); ++rank) {
      PruneDecision& d = ds[by_estimate[rank]];
      d.ratio = (d.estimate_ms + kAllowanceMs) / (best + kAllowanceMs);
      if (d.ratio <= settings.factor || int(rank) < settings.keep) continue;
      d.pruned = true;
      d.reason = fmt::format("cost model: est {:.2f}x best", d.ratio);
    }
  }
  // A repacked variant copies nothing where every leading dimension and K are multiples of 4:
  // it is its inner variant again, already in the race.
  if (!repacking_copies(shape, layout))
    for (size_t f = 0; f < families.size(); ++f)
      for (size_t i = 0; i < families[f].size(); ++i)
        if (families[f][i] && families[f][i]->repacked) {
          out[f][i].pruned = true;
          out[f][i].reason = "copies nothing on this shape: the same kernel as its inner variant";
        }
  return out;
}

std::vector<std::vector<PruneDecision>> prune_by_cost(
    const std::vector<std::vector<Candidate>>& families, const DeviceInfo& device, Shape shape,
    Layout layout, const PruneSettings& settings) {
  std::vector<std::vector<std::optional<CostInput>>> inputs(families.size());
  for (size_t f = 0; f < families.size(); ++f)
    for (const Candidate& c : families[f])
      inputs[f].push_back(c.rejection.empty() ? cost_input(c) : std::nullopt);
  auto out = prune_inputs(inputs, device, shape, layout, settings);
  // The textbook occupancy answer is the reference every summary places the winner against
  // ("where the textbook pick landed"): it is always measured.
  for (size_t f = 0; f < families.size(); ++f)
    for (size_t i = 0; i < families[f].size(); ++i)
      if (families[f][i].origin == "occupancy-api" && families[f][i].step == 1) {
        out[f][i].pruned = false;
        out[f][i].reason.clear();
      }
  return out;
}

std::vector<size_t> measure_order(const std::vector<std::vector<PruneDecision>>& decisions) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<double> best(decisions.size(), kNone);
  for (size_t f = 0; f < decisions.size(); ++f)
    for (const PruneDecision& d : decisions[f])
      if (!d.pruned && d.estimate_ms > 0) best[f] = std::min(best[f], d.estimate_ms);
  std::vector<size_t> order(decisions.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return best[a] < best[b]; });
  return order;
}

}  // namespace occtune
