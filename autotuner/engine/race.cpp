// The race of one family at one shape (docs/architecture.md "Search"). All decisions are made
// here or in core (strategy, stopping rule, ties); the backend is only asked for checks and
// batches of samples, so it can live in a worker process.
#include "autotuner/engine/race.hpp"

#include <algorithm>
#include <numeric>

#include "autotuner/core/stopping_rule.hpp"
#include "autotuner/core/ties.hpp"

namespace occtune::engine {
namespace {

class Race {
 public:
  Race(RaceEnv& env, const Plan& plan, const CacheKey& key, std::int64_t run_id, Work work)
      : env_(env),
        plan_(plan),
        key_(key),
        run_id_(run_id),
        work_(work),
        policy_(env.request.policy),
        search_(env.request.search),
        strategy_(make_strategy(search_, policy_, env.shape_best_ms)) {
    std::vector<CandidateTraits> traits;
    for (auto& c : plan.candidates) traits.push_back(CandidateTraits::of(c));
    // Candidates the cost model pruned (issue #18) are never listed; --max-candidates cuts the
    // rest in strategy order.
    std::vector<int> order;
    for (int index : strategy_->order(traits)) {
      if (size_t(index) < env.pruned.size() && !env.pruned[size_t(index)].empty())
        pruned_.push_back(index);
      else
        order.push_back(index);
    }
    order.resize(size_t(listed_candidates(plan, search_, int(pruned_.size()))));
    for (int index : order) {
      Contender c;
      c.index = index;
      c.traits = traits[size_t(index)];
      race_.push_back(std::move(c));
    }
    entries_.resize(race_.size());
    result_.kernel = plan.family;
    result_.run_id = run_id;
    result_.strategy = std::string(strategy_->name());
    result_.candidates = int(plan.candidates.size());
  }

  RaceOutcome run() {
    reuse();
    verify();
    if (!context_lost_) run_rounds();
    if (!context_lost_) settle_cut_short();
    if (!context_lost_) decide();
    finish();
    return {std::move(result_), context_lost_};
  }

 private:
  struct Entry {
    Measurement m;
    bool checked = false;            // m holds a check outcome or a reused measurement
    std::int64_t row = 0;            // stored measurement id; 0 = not stored yet
    std::size_t stored_samples = 0;  // samples in the stored row
    std::size_t reused_samples = 0;  // samples that came from the store
  };

  const Candidate& candidate(int i) const {
    return plan_.candidates[size_t(race_[size_t(i)].index)];
  }

  bool stop_now() {
    if (stopped_ == StopReason::kNone) stopped_ = env_.should_stop();
    return stopped_ != StopReason::kNone;
  }

  // Candidates whose measurement is decided: stored and no longer being sampled.
  int settled() const {
    int n = 0;
    for (int i = 0; i < int(race_.size()); ++i)
      n += entries_[size_t(i)].row != 0 && race_[size_t(i)].state != RaceState::kActive;
    return n;
  }

  void report(const std::string& phase) {
    if (!env_.progress) return;
    int best = -1;
    double best_ms = 0;
    for (int i = 0; i < int(race_.size()); ++i) {
      const Contender& c = race_[size_t(i)];
      if (c.samples_ms.empty() ||
          (c.state != RaceState::kActive && c.state != RaceState::kFinished))
        continue;
      const double ms = c.median();
      if (best < 0 || ms < best_ms) {
        best = i;
        best_ms = ms;
      }
    }
    env_.progress(phase, settled(), best < 0 ? "" : candidate(best).variant->label(), best_ms);
  }

  // Copies the contender's samples and race state into its measurement.
  void sync(int i) {
    Entry& e = entries_[size_t(i)];
    const Contender& c = race_[size_t(i)];
    Timing& t = e.m.timing;
    if (e.m.outcome != Outcome::kOk) {
      t = Timing{};
      return;
    }
    t.samples_ms = c.samples_ms;
    t.summary = summarize(t.samples_ms);
    t.noise = t.summary.count >= 2 ? t.summary.relative_iqr() : 0.0;
    t.median_ci = median_interval(t.samples_ms, search_.tie_level);
    t.measured_s = std::accumulate(t.samples_ms.begin(), t.samples_ms.end(), 0.0) / 1000.0;
    t.stop = c.stop;
    e.m.search_round = c.round;
    e.m.behind = c.behind;
  }

  void store(int i) {
    sync(i);
    Entry& e = entries_[size_t(i)];
    if (e.row == 0)
      e.row = env_.store.add_measurement(run_id_, e.m);
    else
      env_.store.update_measurement(e.row, e.m);
    e.stored_samples = e.m.timing.samples_ms.size();
  }

  // Stored rows of the same key and protocol stand in for measuring again (unless --force).
  void reuse() {
    if (env_.request.force) return;
    const auto stored =
        env_.store.reusable_measurements(key_, policy_, std::string(strategy_->name()));
    if (stored.empty()) return;
    for (int i = 0; i < int(race_.size()); ++i) {
      const Candidate& cand = candidate(i);
      auto it = std::find_if(stored.begin(), stored.end(), [&](const StoredMeasurement& s) {
        return s.variant == cand.variant->symbol && s.threads == cand.threads &&
               s.dynamic_smem == std::int64_t(cand.dynamic_smem);
      });
      if (it == stored.end()) continue;
      const StopReason stop = stop_reason_from_string(it->stop_reason).value_or(StopReason::kNone);
      Contender& c = race_[size_t(i)];
      c.samples_ms = it->samples_ms;
      c.stop = stop;
      c.round = it->search_round;
      c.state = is_final(stop)                    ? RaceState::kFinished
                : stop == StopReason::kEliminated ? RaceState::kEliminated
                                                  : RaceState::kDropped;
      Entry& e = entries_[size_t(i)];
      e.m.candidate = cand;
      e.m.flops = work_.flops;
      e.m.bytes = work_.bytes;
      e.m.outcome = Outcome::kOk;
      e.m.rel_error = it->rel_error;
      Timing& t = e.m.timing;
      t.sm_clock_mhz = it->sm_clock_mhz;
      t.sm_clock_min_mhz = it->sm_clock_min_mhz;
      t.sm_clock_max_mhz = it->sm_clock_max_mhz;
      t.throttled = it->throttled;
      t.throttled_batches = it->throttled_batches;
      e.m.reused_from = it->reused_from > 0 ? it->reused_from : it->id;
      e.checked = true;
      e.reused_samples = c.samples_ms.size();
      store(i);  // this run holds a copy, so its best configuration is derived from its own rows
      ++result_.reused;
    }
    report("reuse");
  }

  // Candidates already rejected by the limits check go first: recording them launches nothing,
  // so a later crash that ends an in-process run cannot lose them.
  void verify() {
    for (const bool rejected : {true, false}) {
      verify_pass(rejected);
      if (context_lost_) return;
    }
  }

  void verify_pass(bool rejected) {
    for (int i = 0; i < int(race_.size()); ++i) {
      if (race_[size_t(i)].state != RaceState::kWaiting) continue;
      if (candidate(i).rejection.empty() == rejected) continue;
      if (stop_now()) return;
      Entry& e = entries_[size_t(i)];
      e.m = env_.backend.check(candidate(i));
      e.m.flops = work_.flops;
      e.m.bytes = work_.bytes;
      e.checked = true;
      if (e.m.outcome != Outcome::kOk) {
        fail(i);
        if (context_lost_) return;
      } else {
        race_[size_t(i)].state = RaceState::kActive;
      }
      report("check");
    }
  }

  // A failed check or batch: recorded at once, never a winner.
  void fail(int i) {
    race_[size_t(i)].state = RaceState::kFailed;
    store(i);
    if (entries_[size_t(i)].m.outcome == Outcome::kCrashed && !env_.backend.survives_crashes())
      context_lost_ = true;
  }

  // One batch, retaken while the SM clock reads throttled (bounded by throttle_retries per
  // candidate; after that the batch is kept and the measurement marked throttled).
  void take_batch(int i, int count) {
    Entry& e = entries_[size_t(i)];
    Contender& c = race_[size_t(i)];
    Timing& t = e.m.timing;
    for (;;) {
      SampleBatch batch = env_.backend.samples(candidate(i), count);
      result_.samples_taken += int(batch.samples_ms.size());
      if (batch.outcome != Outcome::kOk) {
        e.m.outcome = batch.outcome;
        e.m.error = batch.error;
        fail(i);
        return;
      }
      if (is_throttled(batch.sm_clock_mhz, env_.request.reference_clock_mhz,
                       policy_.throttle_ratio)) {
        ++t.throttled_batches;
        ++result_.throttled_batches;
        if (t.throttled_batches <= policy_.throttle_retries) continue;
        t.throttled = true;
      }
      c.samples_ms.insert(c.samples_ms.end(), batch.samples_ms.begin(), batch.samples_ms.end());
      if (batch.sm_clock_mhz > 0) {
        t.sm_clock_mhz = batch.sm_clock_mhz;
        t.sm_clock_min_mhz = t.sm_clock_min_mhz > 0
                                 ? std::min(t.sm_clock_min_mhz, batch.sm_clock_mhz)
                                 : batch.sm_clock_mhz;
        t.sm_clock_max_mhz = std::max(t.sm_clock_max_mhz, batch.sm_clock_mhz);
      }
      return;
    }
  }

  // Runs the turns of one round, starting at a rotating offset so that no candidate is always
  // sampled first (slow drift then spreads over all of them). False when stopped.
  bool run_turns(std::vector<Turn> turns, int round) {
    if (turns.empty()) return true;
    std::rotate(turns.begin(), turns.begin() + round % int(turns.size()), turns.end());
    for (const Turn& turn : turns) {
      if (stop_now()) return false;
      if (race_[size_t(turn.contender)].state != RaceState::kActive) continue;
      take_batch(turn.contender, turn.samples);
      if (context_lost_) return false;
    }
    return true;
  }

  void store_retired() {
    for (int i = 0; i < int(race_.size()); ++i)
      if (race_[size_t(i)].retired() && entries_[size_t(i)].row == 0) store(i);
  }

  void run_rounds() {
    for (int round = 0;; ++round) {
      if (stop_now()) return;
      const std::vector<Turn> turns = strategy_->next_round(race_);
      store_retired();
      if (turns.empty()) return;
      if (!run_turns(turns, round)) return;
      report(strategy_->phase());
    }
  }

  // Cut short by a budget or Ctrl-C, a contender whose samples already satisfy the stopping rule
  // is finished like any other (and reusable by the next run); the rest keep the reason.
  void settle_cut_short() {
    if (stopped_ == StopReason::kNone) return;
    const StoppingRule rule = StoppingRule::from(policy_);
    for (Contender& c : race_) {
      if (c.state != RaceState::kActive) continue;
      const StopCheck check = evaluate(rule, c.samples_ms);
      if (check.stop) {
        c.state = RaceState::kFinished;
        c.stop = check.reason;
      }
    }
  }

  std::vector<int> eligible() const {
    std::vector<int> out;
    for (int i = 0; i < int(race_.size()); ++i) {
      const Contender& c = race_[size_t(i)];
      if (c.samples_ms.empty()) continue;
      // Cut short by a budget or Ctrl-C, the still-active contenders are all there is.
      if (c.state == RaceState::kFinished || c.state == RaceState::kActive) out.push_back(i);
    }
    return out;
  }

  TieResult ties_of(const std::vector<int>& pool) const {
    std::vector<Contestant> cs;
    for (int i : pool) {
      const Contender& c = race_[size_t(i)];
      cs.push_back(contestant(c.samples_ms, search_.tie_level, c.traits.occupancy, c.traits.threads,
                              c.index));
    }
    TieResult r = find_ties(cs);
    if (r.best >= 0) r.best = pool[size_t(r.best)];
    for (int& t : r.tied) t = pool[size_t(t)];
    return r;
  }

  // Ties are measured again (confirm_samples more each, interleaved) before the rule decides,
  // unless every tied sample set came from the store (an earlier run confirmed them).
  void confirm(const std::vector<int>& tied) {
    const int extra = search_.confirm_samples > 0 ? search_.confirm_samples : policy_.samples;
    bool fresh = false;
    for (int i : tied)
      fresh |= race_[size_t(i)].samples_ms.size() > entries_[size_t(i)].reused_samples;
    if (!fresh || extra <= 0) return;
    std::vector<std::size_t> target;
    for (int i : tied) target.push_back(race_[size_t(i)].samples_ms.size() + size_t(extra));
    const int batch = std::max(1, policy_.batch);
    for (int round = 0;; ++round) {
      std::vector<Turn> turns;
      for (size_t k = 0; k < tied.size(); ++k) {
        const Contender& c = race_[size_t(tied[k])];
        if (c.state != RaceState::kFinished || c.samples_ms.size() >= target[k]) continue;
        turns.push_back({tied[k], int(std::min(target[k] - c.samples_ms.size(), size_t(batch)))});
      }
      if (turns.empty()) break;
      // take_batch works on kActive contenders only through run_turns; finished ones are
      // sampled directly here.
      std::rotate(turns.begin(), turns.begin() + round % int(turns.size()), turns.end());
      for (const Turn& turn : turns) {
        if (stop_now()) return;
        take_batch(turn.contender, turn.samples);
        if (context_lost_) return;
      }
      report("confirm");
    }
    result_.confirmed = true;
  }

  void decide() {
    std::vector<int> pool = eligible();
    if (pool.empty()) return;
    TieResult r = ties_of(pool);
    if (r.is_tie() && stopped_ == StopReason::kNone) {
      confirm(r.tied);
      if (context_lost_) return;
      pool = eligible();
      if (pool.empty()) return;
      r = ties_of(pool);
    }
    winner_ = r.best;
    tied_ = r.tied;
    for (int i : tied_) entries_[size_t(i)].m.tie = tied_.size() > 1;
    if (winner_ >= 0) entries_[size_t(winner_)].m.winner = true;
  }

  // Stores what is not stored yet (contenders cut short by a budget or Ctrl-C) and rewrites
  // rows whose samples or marks changed; then assembles the result in plan order.
  void finish() {
    for (int i = 0; i < int(race_.size()); ++i) {
      Contender& c = race_[size_t(i)];
      Entry& e = entries_[size_t(i)];
      if (!e.checked) continue;
      if (c.state == RaceState::kActive) {
        c.stop = stopped_ != StopReason::kNone ? stopped_ : StopReason::kInterrupted;
        store(i);
      } else if (e.row == 0 || c.samples_ms.size() != e.stored_samples || e.m.tie || e.m.winner) {
        store(i);
      }
    }
    // (plan index, race position or -1 for a pruned candidate), in plan order.
    std::vector<std::pair<int, int>> order;
    int checked = 0;
    for (int i = 0; i < int(race_.size()); ++i)
      if (entries_[size_t(i)].checked) {
        order.emplace_back(race_[size_t(i)].index, i);
        ++checked;
      }
    for (int index : pruned_) order.emplace_back(index, -1);
    std::sort(order.begin(), order.end());
    std::vector<int> position(race_.size(), -1);
    for (int k = 0; k < int(order.size()); ++k) {
      const auto [index, i] = order[size_t(k)];
      if (i < 0) {
        result_.measurements.push_back(pruned_measurement(index));
        continue;
      }
      position[size_t(i)] = k;
      result_.measurements.push_back(entries_[size_t(i)].m);
    }
    result_.winner = winner_ >= 0 ? position[size_t(winner_)] : -1;
    if (tied_.size() > 1)
      for (int i : tied_) result_.ties.push_back(position[size_t(i)]);
    result_.pruned = int(pruned_.size());
    result_.abandoned = int(std::count_if(race_.begin(), race_.end(), [](const Contender& c) {
      return c.state == RaceState::kAbandoned;
    }));
    result_.unmeasured = result_.candidates - checked - result_.pruned;
    result_.stopped = stopped_;
  }

  // A pruned candidate as the result lists it: nothing launched, the reason kept; not stored,
  // since the store's measurements are what ran.
  Measurement pruned_measurement(int index) const {
    Measurement m;
    m.candidate = plan_.candidates[size_t(index)];
    m.outcome = Outcome::kOk;
    m.error = env_.pruned[size_t(index)];
    m.flops = work_.flops;
    m.bytes = work_.bytes;
    m.timing.stop = StopReason::kPruned;
    return m;
  }

  RaceEnv& env_;
  const Plan& plan_;
  CacheKey key_;
  std::int64_t run_id_;
  Work work_;
  TimingPolicy policy_;
  SearchSettings search_;
  std::unique_ptr<SearchStrategy> strategy_;
  std::vector<Contender> race_;  // listed candidates, in strategy order
  std::vector<Entry> entries_;   // aligned with race_
  std::vector<int> pruned_;      // plan indices the cost model pruned
  KernelResult result_;
  StopReason stopped_ = StopReason::kNone;
  bool context_lost_ = false;
  int winner_ = -1;
  std::vector<int> tied_;
};

}  // namespace

int listed_candidates(const Plan& plan, const SearchSettings& search, int pruned) {
  const int n = int(plan.candidates.size()) - pruned;
  return search.max_candidates > 0 ? std::min(n, search.max_candidates) : n;
}

RaceOutcome run_race(RaceEnv& env, const Plan& plan, const CacheKey& key, std::int64_t run_id,
                     Work work) {
  return Race(env, plan, key, run_id, work).run();
}

}  // namespace occtune::engine
