// Choosing a winner with statistics (docs/architecture.md "Ties and the tie-break rule"): the
// candidates whose distribution-free median intervals overlap the best one's are a tie; the
// rule that orders them is written down once, here.
#pragma once

#include <vector>

#include "autotuner/core/stats.hpp"

namespace occtune {

struct Contestant {
  double median = 0;
  Interval ci;           // median interval at the tie level
  double occupancy = 0;  // theoretical occupancy, for the tie-break
  int threads = 0;
  int order = 0;  // position in the plan: the last resort, so the rule is total
};

// The tie-break rule, a strict weak order: lower median; on equal medians higher occupancy,
// then fewer threads per block, then the earlier candidate of the plan.
bool better(const Contestant& a, const Contestant& b);

struct TieResult {
  int best = -1;          // index of the winner under better(); -1 for no contestants
  std::vector<int> tied;  // indices whose interval overlaps the winner's, winner included,
                          // in better() order
  bool is_tie() const { return tied.size() > 1; }
};

TieResult find_ties(const std::vector<Contestant>& contestants);

// A contestant from a sample set: median and its interval at `level`.
Contestant contestant(const std::vector<double>& samples_ms, double level, double occupancy,
                      int threads, int order);

}  // namespace occtune
