// Search strategies as an interface (like KTT's searchers): given the race so far, which
// candidates get the next interleaved round of samples, and which leave the race. The engine
// executes rounds and owns the GPU and the store; strategies are pure and CPU-tested.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/stopping_rule.hpp"

namespace occtune {

// [search] in a job file; every field is also a `tune` flag.
struct SearchSettings {
  std::string strategy = "halving";  // halving | exhaustive | occupancy
  int screen_samples = 3;            // halving: samples of every candidate in the first round
  double drop_factor = 2.0;          // halving: drop a candidate whose median is beyond this x best
  int finalists = 3;                 // halving: candidates measured to the full stopping rule
  int confirm_samples = 0;           // extra samples for each tied candidate; 0 = policy.samples
  double tie_level = 0.95;           // coverage of the median intervals that define a tie
  double time_budget_s = 0;          // whole tune, shared fairly across shapes; 0 = unlimited
  int max_candidates = 0;            // per shape and kernel, in strategy order; 0 = all
  // Issue #18: before halving measures anything, the cost model (core/cost_prune.hpp) prunes
  // candidates estimated beyond prune_factor x the shape's best estimate, keeping the
  // prune_keep best-estimated of each family. exhaustive and occupancy never prune.
  std::string prune = "cost";        // cost | none
  double prune_factor = 2.0;
  int prune_keep = 1;
  bool prunes() const { return prune == "cost" && strategy == "halving"; }
  // Issue #18: halving abandons a candidate whose fastest sample is already abandon_factor x
  // the incumbent (the best median measured to the stopping rule so far at this shape, in any
  // family) from its first sample on (the screen's probe), or behind_factor x the incumbent
  // once it has kBehindMinSamples. 0 = never. exhaustive and occupancy never abandon.
  double abandon_factor = 1.25;
  double behind_factor = 1.05;
  bool abandons() const { return abandon_factor > 0 && strategy == "halving"; }
};

// Issue #18 ("tuning within 2 s"): samples a candidate has before each abandon threshold may
// judge it. One sample far behind (abandon_factor) is enough: halving's screen probes everyone
// with one sample first. Three samples all somewhat behind (behind_factor) are needed for the
// tighter threshold, so one stray slow launch cannot retire a contender near the incumbent.
inline constexpr int kAbandonMinSamples = 1;
inline constexpr int kBehindMinSamples = 3;

// The two thresholds of the abandon rule; factor <= 1 turns a threshold off.
struct AbandonRule {
  double factor = 0;  // from kAbandonMinSamples
  double behind = 0;  // from kBehindMinSamples
  static AbandonRule of(const SearchSettings& s) {
    return s.abandons() ? AbandonRule{s.abandon_factor, s.behind_factor} : AbandonRule{};
  }
};

// "halving, exhaustive, occupancy"
std::string strategy_names();
// Throws Error(kUsage) naming the value and the known strategies.
void validate_strategy(const std::string& name);

// What a strategy may know about a candidate before measuring it.
struct CandidateTraits {
  double occupancy = 0;
  int threads = 0;
  std::string origin;
  int step = 0;
  static CandidateTraits of(const Candidate& c);
};

enum class RaceState {
  kWaiting,     // not verified yet (or cut by a budget before it was)
  kFailed,      // check or sampling failed; never a winner
  kActive,      // verified, being sampled
  kFinished,    // measured to the stopping rule
  kEliminated,  // halving: worse half of a round
  kDropped,     // halving: far behind the best
  kAbandoned,   // halving: far behind the shape's incumbent (issue #18); never a winner
};

struct Contender {
  int index = 0;  // position in the plan
  CandidateTraits traits;
  RaceState state = RaceState::kWaiting;
  StopReason stop = StopReason::kNone;
  int round = 0;  // strategy round in which it left the race
  std::vector<double> samples_ms;
  double behind = 0;  // abandoned: its fastest sample / the incumbent's median
  bool retired() const {
    return state == RaceState::kFinished || state == RaceState::kEliminated ||
           state == RaceState::kDropped || state == RaceState::kAbandoned;
  }
  double median() const;  // 0 without samples
};

// One batch for one contender (an index into the race vector).
struct Turn {
  int contender = 0;
  int samples = 0;
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string_view name() const = 0;
  // Order in which candidates are verified and first sampled; budgets cut its tail.
  virtual std::vector<int> order(const std::vector<CandidateTraits>& candidates) const;
  // The next interleaved round: at most one turn per active contender, in plan order (the
  // engine rotates the start between rounds). Contenders that leave the race change state in
  // `race`. An empty round ends the race.
  virtual std::vector<Turn> next_round(std::vector<Contender>& race) = 0;
  // Where the race is, for progress lines: "screen", "round 2", "final".
  virtual std::string phase() const = 0;
};

// shape_best_ms: the incumbent from the families already raced at this shape (0: none yet).
std::unique_ptr<SearchStrategy> make_strategy(const SearchSettings& search,
                                              const TimingPolicy& policy, double shape_best_ms = 0);

// Textbook answer (occupancy-api, step 1) first, then by theoretical occupancy (higher first),
// then by distance in threads from the textbook answer, then plan order.
std::vector<int> occupancy_order(const std::vector<CandidateTraits>& candidates);

// Successive halving, nominal plan (no early drops, no protected near-ties): survivors and the
// samples each has at the end of every round; the last round is the final, measured to the
// stopping rule.
struct HalvingRound {
  int survivors = 0;
  int samples = 0;
};
std::vector<HalvingRound> halving_schedule(int candidates, int screen_samples, int min_samples,
                                           int finalists);
int halving_keep(int survivors, int finalists);         // max(finalists, ceil(n / 2)), <= n
int halving_next_target(int samples, int min_samples);  // min(N, 2 x samples)

// One halving cut over the active contenders (all sampled to the same target): drops those
// beyond drop_factor x the best median, then eliminates all but the better halving_keep() --
// except any whose median interval overlaps the best one's, which is a near-tie too close to
// decide on few samples. Returns how many left the race.
int halving_cut(std::vector<Contender>& race, int finalists, double drop_factor, double tie_level,
                int round);

// Issue #18. The incumbent: the lower of shape_best_ms (earlier families' winners; 0 = none)
// and the medians of this race's contenders measured to the stopping rule. 0 when there is none.
double race_incumbent_ms(const std::vector<Contender>& race, double shape_best_ms);

// Abandons every active contender whose fastest sample is at least rule.factor x incumbent_ms
// (from kAbandonMinSamples samples) or rule.behind x incumbent_ms (from kBehindMinSamples): the
// minimum bounds its median from below, so a faster kernel could hide there only if every one
// of its samples were that much too slow. Records the ratio in `behind`; returns how many left.
// No incumbent: none.
int abandon_hopeless(std::vector<Contender>& race, double incumbent_ms, const AbandonRule& rule,
                     int round);

}  // namespace occtune
