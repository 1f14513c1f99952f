// The three strategies (exhaustive, occupancy, halving) and the halving arithmetic.
#include "autotuner/core/search_strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "autotuner/core/error.hpp"
#include "autotuner/core/ties.hpp"

namespace occtune {
namespace {

constexpr const char* kStrategies[] = {"halving", "exhaustive", "occupancy"};

// Every active contender is sampled until its stopping rule ends it; shared by exhaustive,
// occupancy and the final of halving.
std::vector<Turn> stopping_rule_round(std::vector<Contender>& race, const StoppingRule& rule,
                                      int batch, int round) {
  std::vector<Turn> turns;
  for (int i = 0; i < int(race.size()); ++i) {
    Contender& c = race[size_t(i)];
    if (c.state != RaceState::kActive) continue;
    const StopCheck check = evaluate(rule, c.samples_ms);
    if (check.stop) {
      c.state = RaceState::kFinished;
      c.stop = check.reason;
      c.round = round;
    } else {
      turns.push_back({i, next_batch(rule, c.samples_ms, batch)});
    }
  }
  return turns;
}

class Exhaustive : public SearchStrategy {
 public:
  Exhaustive(const TimingPolicy& policy, bool occupancy_first)
      : rule_(StoppingRule::from(policy)), batch_(policy.batch), occupancy_(occupancy_first) {}
  std::string_view name() const override { return occupancy_ ? "occupancy" : "exhaustive"; }
  std::vector<int> order(const std::vector<CandidateTraits>& cs) const override {
    return occupancy_ ? occupancy_order(cs) : SearchStrategy::order(cs);
  }
  std::vector<Turn> next_round(std::vector<Contender>& race) override {
    return stopping_rule_round(race, rule_, batch_, round_++);
  }
  std::string phase() const override { return fmt::format("round {}", round_); }

 private:
  StoppingRule rule_;
  int batch_;
  bool occupancy_;
  int round_ = 0;
};

class Halving : public SearchStrategy {
 public:
  Halving(const SearchSettings& s, const TimingPolicy& policy, double shape_best_ms)
      : rule_(StoppingRule::from(policy)),
        batch_(std::max(1, policy.batch)),
        drop_factor_(s.drop_factor),
        finalists_(std::max(1, s.finalists)),
        level_(s.tie_level),
        target_(std::clamp(s.screen_samples, 1, std::max(1, policy.samples))),
        abandon_(AbandonRule::of(s)),
        shape_best_ms_(shape_best_ms) {
    // Issue #18: with an incumbent from an earlier family, the screen starts with a one-sample
    // probe of everyone, so a candidate far behind it costs one sample, not the whole screen.
    if (abandon_.factor > 1 && shape_best_ms > 0 && target_ > kAbandonMinSamples) {
      screen_ = target_;
      target_ = kAbandonMinSamples;
    }
  }
  std::string_view name() const override { return "halving"; }
  std::vector<int> order(const std::vector<CandidateTraits>& cs) const override {
    return occupancy_order(cs);
  }
  std::vector<Turn> next_round(std::vector<Contender>& race) override {
    // Before anything else: a contender far behind the incumbent gets no further turn.
    abandon_hopeless(race, race_incumbent_ms(race, shape_best_ms_), abandon_, rung_);
    for (;;) {
      const auto active = std::count_if(race.begin(), race.end(), [](const Contender& c) {
        return c.state == RaceState::kActive;
      });
      if (active == 0) return {};
      if (final_) return stopping_rule_round(race, rule_, batch_, rung_);
      std::vector<Turn> turns;
      for (int i = 0; i < int(race.size()); ++i) {
        const Contender& c = race[size_t(i)];
        const int n = int(c.samples_ms.size());
        if (c.state == RaceState::kActive && n < target_)
          turns.push_back({i, std::min(batch_, target_ - n)});
      }
      if (!turns.empty()) return turns;
      // The probe is over (and the abandon rule has seen it): the screen proper, no cut yet.
      if (screen_ > 0) {
        target_ = std::exchange(screen_, 0);
        continue;
      }
      // Everyone reached this round's target: cut, then raise the target.
      const int left = halving_cut(race, finalists_, drop_factor_, level_, rung_);
      const auto remaining = std::count_if(race.begin(), race.end(), [](const Contender& c) {
        return c.state == RaceState::kActive;
      });
      if (remaining <= finalists_ || (left == 0 && target_ >= rule_.min_samples)) {
        final_ = true;
      } else {
        target_ = halving_next_target(target_, rule_.min_samples);
      }
      ++rung_;
    }
  }
  std::string phase() const override {
    if (final_) return "final";
    return rung_ == 0 ? "screen" : fmt::format("round {}", rung_);
  }

 private:
  StoppingRule rule_;
  int batch_;
  double drop_factor_;
  int finalists_;
  double level_;
  int target_;
  int screen_ = 0;  // the screen's target while the probe runs; 0 after
  AbandonRule abandon_;
  double shape_best_ms_;
  int rung_ = 0;
  bool final_ = false;
};

}  // namespace

std::string strategy_names() {
  std::string out;
  for (const char* s : kStrategies) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

void validate_strategy(const std::string& name) {
  for (const char* s : kStrategies)
    if (name == s) return;
  fail(ExitCode::kUsage,
       fmt::format("unknown search strategy '{}'; known strategies: {}", name, strategy_names()));
}

CandidateTraits CandidateTraits::of(const Candidate& c) {
  return {c.occupancy, c.threads, c.origin, c.step};
}

double Contender::median() const { return samples_ms.empty() ? 0.0 : summarize(samples_ms).median; }

std::vector<int> SearchStrategy::order(const std::vector<CandidateTraits>& cs) const {
  std::vector<int> out(cs.size());
  std::iota(out.begin(), out.end(), 0);
  return out;
}

std::unique_ptr<SearchStrategy> make_strategy(const SearchSettings& search,
                                              const TimingPolicy& policy, double shape_best_ms) {
  validate_strategy(search.strategy);
  if (search.strategy == "halving") return std::make_unique<Halving>(search, policy, shape_best_ms);
  return std::make_unique<Exhaustive>(policy, search.strategy == "occupancy");
}

std::vector<int> occupancy_order(const std::vector<CandidateTraits>& cs) {
  int textbook_threads = 0;
  for (auto& c : cs)
    if (c.origin == "occupancy-api" && c.step == 1) {
      textbook_threads = c.threads;
      break;
    }
  std::vector<int> out(cs.size());
  std::iota(out.begin(), out.end(), 0);
  auto textbook = [&](int i) {
    return cs[size_t(i)].origin == "occupancy-api" && cs[size_t(i)].step == 1;
  };
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
    const auto& x = cs[size_t(a)];
    const auto& y = cs[size_t(b)];
    if (textbook(a) != textbook(b)) return textbook(a);
    if (x.occupancy != y.occupancy) return x.occupancy > y.occupancy;
    return std::abs(x.threads - textbook_threads) < std::abs(y.threads - textbook_threads);
  });
  return out;
}

int halving_keep(int survivors, int finalists) {
  return std::min(survivors, std::max(finalists, (survivors + 1) / 2));
}

int halving_next_target(int samples, int min_samples) {
  return std::max(samples, std::min(min_samples, 2 * samples));
}

std::vector<HalvingRound> halving_schedule(int candidates, int screen_samples, int min_samples,
                                           int finalists) {
  std::vector<HalvingRound> out;
  if (candidates <= 0) return out;
  finalists = std::max(1, finalists);
  int survivors = candidates;
  int samples = std::clamp(screen_samples, 1, std::max(1, min_samples));
  out.push_back({survivors, samples});
  while (survivors > finalists) {
    survivors = halving_keep(survivors, finalists);
    samples = halving_next_target(samples, min_samples);
    out.push_back({survivors, samples});
  }
  // The final is measured to the stopping rule: at least N samples.
  out.back().samples = std::max(out.back().samples, min_samples);
  return out;
}

int halving_cut(std::vector<Contender>& race, int finalists, double drop_factor, double tie_level,
                int round) {
  // The best so far among everyone still standing (finished contenders come from reuse).
  int best = -1;
  std::vector<Contestant> cs(race.size());
  for (int i = 0; i < int(race.size()); ++i) {
    const Contender& c = race[size_t(i)];
    if ((c.state != RaceState::kActive && c.state != RaceState::kFinished) || c.samples_ms.empty())
      continue;
    cs[size_t(i)] =
        contestant(c.samples_ms, tie_level, c.traits.occupancy, c.traits.threads, c.index);
    if (best < 0 || better(cs[size_t(i)], cs[size_t(best)])) best = i;
  }
  if (best < 0) return 0;
  int left = 0;
  auto retire = [&](Contender& c, RaceState state, StopReason why) {
    c.state = state;
    c.stop = why;
    c.round = round;
    ++left;
  };
  std::vector<int> active;
  for (int i = 0; i < int(race.size()); ++i) {
    Contender& c = race[size_t(i)];
    if (c.state != RaceState::kActive || c.samples_ms.empty()) continue;
    if (drop_factor > 0 && cs[size_t(i)].median > drop_factor * cs[size_t(best)].median)
      retire(c, RaceState::kDropped, StopReason::kDropped);
    else
      active.push_back(i);
  }
  std::sort(active.begin(), active.end(),
            [&](int a, int b) { return better(cs[size_t(a)], cs[size_t(b)]); });
  const int keep = halving_keep(int(active.size()), finalists);
  for (int r = keep; r < int(active.size()); ++r) {
    const int i = active[size_t(r)];
    if (i != best && !cs[size_t(i)].ci.overlaps(cs[size_t(best)].ci))
      retire(race[size_t(i)], RaceState::kEliminated, StopReason::kEliminated);
  }
  return left;
}

double race_incumbent_ms(const std::vector<Contender>& race, double shape_best_ms) {
  double best = shape_best_ms > 0 ? shape_best_ms : 0;
  for (const Contender& c : race) {
    if (c.state != RaceState::kFinished || !is_final(c.stop) || c.samples_ms.empty()) continue;
    const double m = c.median();
    if (m > 0 && (best == 0 || m < best)) best = m;
  }
  return best;
}

int abandon_hopeless(std::vector<Contender>& race, double incumbent_ms, const AbandonRule& rule,
                     int round) {
  if (!(incumbent_ms > 0)) return 0;
  // The lowest threshold a contender with n samples is held to (0: none yet).
  auto threshold = [&](int n) {
    double t = 0;
    for (auto [factor, min_samples] :
         {std::pair{rule.factor, kAbandonMinSamples}, std::pair{rule.behind, kBehindMinSamples}})
      if (factor > 1 && n >= min_samples && (t == 0 || factor < t)) t = factor;
    return t;
  };
  int left = 0;
  for (Contender& c : race) {
    const double factor = threshold(int(c.samples_ms.size()));
    if (c.state != RaceState::kActive || factor == 0) continue;
    const double fastest = *std::min_element(c.samples_ms.begin(), c.samples_ms.end());
    if (fastest < factor * incumbent_ms) continue;
    c.state = RaceState::kAbandoned;
    c.stop = StopReason::kAbandoned;
    c.round = round;
    c.behind = fastest / incumbent_ms;
    ++left;
  }
  return left;
}

}  // namespace occtune
