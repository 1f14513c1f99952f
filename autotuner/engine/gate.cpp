// The gate's judgement (gate.hpp): baseline choice, cached winner, verdict per key, exit code,
// and `compare` over two exports. No GPU and no database connection here.
#include "autotuner/engine/gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "autotuner/core/flush_protocol.hpp"

namespace occtune::gate {
namespace {

bool same_target(const StoredRun& run, const CacheKey& target) {
  return run.key.kernel == target.kernel && run.key.dtype == target.dtype &&
         run.key.shape == target.shape && run.key.layout == target.layout;
}

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100.0); }

std::string separation(const SampleComparison& c, const VerdictPolicy& policy) {
  if (c.intervals_apart)
    return fmt::format("{} median intervals apart", percent(policy.interval_level));
  if (c.rank_test_applies && c.p_value < policy.rank_alpha)
    return fmt::format("rank test p={:.1e}", c.p_value);
  return fmt::format(
      "samples not clearly separated (p={:.2g}{})", c.p_value,
      c.rank_test_applies ? "" : fmt::format(", fewer than {} samples", policy.rank_min_samples));
}

std::string timing_reason(const KeyVerdict& key, Verdict timing, const VerdictPolicy& policy) {
  const SampleComparison& c = key.comparison;
  const std::string numbers = fmt::format("{:.4f} -> {:.4f} ms", c.base_median, c.current_median);
  switch (timing) {
    case Verdict::kSlow:
      return fmt::format("{:.3f}x slower ({}, beyond {}), {}{}", c.ratio, numbers,
                         percent(policy.threshold), separation(c, policy),
                         key.first_comparison ? ", confirmed by a re-measurement" : "");
    case Verdict::kFast:
      return fmt::format("{:.3f}x faster ({}), {}", 1.0 / c.ratio, numbers, separation(c, policy));
    case Verdict::kSame:
      return fmt::format("within {} ({:.3f}x, {})", percent(policy.threshold), c.ratio, numbers);
    default:
      break;
  }
  if (c.base_count == 0 || c.current_count == 0)
    return fmt::format("no samples to compare (baseline {}, current {})", c.base_count,
                       c.current_count);
  if (key.first_comparison && key.first_comparison->verdict == Verdict::kSlow &&
      c.verdict != Verdict::kSlow)
    return fmt::format("first measurement {:.3f}x slower, re-measured {:.3f}x: not confirmed",
                       key.first_comparison->ratio, c.ratio);
  return fmt::format("{:.3f}x ({}) but {}", c.ratio, numbers, separation(c, policy));
}

}  // namespace

bool same_platform(const CacheKey& a, const CacheKey& b) {
  return a.device_name == b.device_name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor &&
         a.sm_count == b.sm_count && a.driver_version == b.driver_version &&
         a.runtime_version == b.runtime_version;
}

std::string platform_of(const CacheKey& k) {
  return fmt::format("{} (sm_{}{}, {} SMs), driver {}, runtime {}", k.device_name, k.cc_major,
                     k.cc_minor, k.sm_count, k.driver_version, k.runtime_version);
}

BaselineChoice choose_baseline(const std::vector<StoredRun>& runs, const CacheKey& target,
                               bool allow_different_device, const CurrentSide& current) {
  int same_device = -1, same_model = -1, any = -1, other_flush = -1;
  std::string other_flush_name;  // the flush of runs[other_flush]
  std::vector<std::string> others;
  for (int i = 0; i < int(runs.size()); ++i) {
    const StoredRun& run = runs[std::size_t(i)];
    if (run.status != RunStatus::kComplete || !same_target(run, target)) continue;
    // A side whose flush is unknown takes any run: its runs' policies are not read.
    if (!current.flush.empty()) {
      std::string flush = stored_flush_protocol(run.policy_json);
      if (!flush.empty() && flush != current.flush) {
        if (other_flush < 0) other_flush = i, other_flush_name = std::move(flush);
        continue;
      }
    }
    if (any < 0) any = i;
    if (same_platform(run.key, target)) {
      if (same_model < 0) same_model = i;
      if (same_device < 0 && run.key.device_uuid == target.device_uuid) same_device = i;
    } else if (std::find(others.begin(), others.end(), platform_of(run.key)) == others.end()) {
      others.push_back(platform_of(run.key));
    }
  }
  BaselineChoice choice;
  if (same_device >= 0 || same_model >= 0) {
    choice.status = BaselineStatus::kFound;
    choice.index = same_device >= 0 ? same_device : same_model;
    return choice;
  }
  if (any >= 0 && allow_different_device) {
    choice.status = BaselineStatus::kFound;
    choice.index = any;
    choice.different_platform = true;
    return choice;
  }
  if (any >= 0) {
    std::string list;
    for (auto& o : others) list += (list.empty() ? "" : "; ") + o;
    choice.status = BaselineStatus::kIncompatible;
    choice.reason = fmt::format(
        "baselines exist only for other platforms ({}), not for {}; compare on the same device "
        "model, driver and runtime, or pass --allow-different-device",
        list, platform_of(target));
    return choice;
  }
  if (other_flush >= 0) {
    const StoredRun& run = runs[std::size_t(other_flush)];
    choice.status = BaselineStatus::kIncompatible;
    choice.reason = fmt::format(
        "the baseline (run {}) was timed with the L2 flush {} and {} with {}: their samples "
        "differ by the protocol, not the kernel (the memset flush left dirty lines that slowed "
        "memory-bound kernels by up to 14%); store a baseline timed as {} is with `occtune tune "
        "--kernel {} --shape {}{}`",
        run.id, other_flush_name, current.name, current.flush,
        current.name, target.kernel, target.shape.str(),
        target.layout == "nn" ? "" : " --layout " + target.layout);
    return choice;
  }
  choice.status = BaselineStatus::kMissing;
  choice.reason = fmt::format(
      "no complete tuning run of {} {} ({}{}) to compare with; run `occtune "
      "tune --kernel {} --shape {}{}` first",
      target.kernel, target.shape.str(), target.dtype,
      target.layout == "nn" ? "" : ", layout " + target.layout, target.kernel, target.shape.str(),
      target.layout == "nn" ? "" : " --layout " + target.layout);
  return choice;
}

std::vector<const StoredMeasurement*> ranked_ok(
    const std::vector<StoredMeasurement>& measurements) {
  std::vector<const StoredMeasurement*> out;
  for (auto& m : measurements)
    if (m.outcome == Outcome::kOk && m.summary.median > 0) out.push_back(&m);
  // The search's recorded winner (tie-break included) first, as Store::best() answers.
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) {
    return std::make_tuple(!a->winner, a->summary.median, a->id) <
           std::make_tuple(!b->winner, b->summary.median, b->id);
  });
  return out;
}

bool same_config(const StoredMeasurement& a, const StoredMeasurement& b) {
  return a.params == b.params && a.threads == b.threads;
}

Side side_of(const StoredRun& run, const StoredMeasurement& m) {
  Side s;
  s.run_id = run.id;
  s.build_id = run.key.build_id;
  s.device_uuid = run.key.device_uuid;
  s.platform = platform_of(run.key);
  s.started_at = run.started_at;
  s.variant = m.variant;
  s.config = m.params;
  s.threads = m.threads;
  s.outcome = m.outcome;
  s.error = m.error;
  s.rel_error = m.rel_error;
  s.samples_ms = m.samples_ms;
  s.summary = m.summary;
  return s;
}

void decide(KeyVerdict& key, const VerdictPolicy& policy) {
  if (!key.baseline || !key.current) {
    key.verdict = Verdict::kMissing;
    if (key.reason.empty())
      key.reason = key.baseline ? "the cached winner was not measured again" : "no baseline";
    return;
  }
  const Side& current = *key.current;
  if (current.outcome != Outcome::kOk) {
    key.verdict = Verdict::kWrong;
    key.reason =
        fmt::format("the cached winner {} is now {}{}", current.config, to_string(current.outcome),
                    current.error.empty() ? std::string() : fmt::format(" ({})", current.error));
    if (current.outcome == Outcome::kWrongResult && current.rel_error >= 0)
      key.reason += fmt::format(", relative error {:.2e}", current.rel_error);
    return;
  }
  const Verdict timing = key.first_comparison ? confirm_slow(*key.first_comparison, key.comparison)
                                              : key.comparison.verdict;
  key.verdict = timing;
  key.reason = timing_reason(key, timing, policy);

  const RunnerUp* drift = nullptr;
  for (auto& r : key.runners_up) {
    if (r.current.outcome != Outcome::kOk || r.vs_winner.verdict != Verdict::kFast) continue;
    if (!drift || r.vs_winner.ratio < drift->vs_winner.ratio) drift = &r;
  }
  if (!drift) return;
  const std::string what =
      fmt::format("{} is now {:.3f}x faster than the cached winner {} ({:.4f} vs {:.4f} ms, {})",
                  drift->current.config, 1.0 / drift->vs_winner.ratio, current.config,
                  drift->vs_winner.current_median, drift->vs_winner.base_median,
                  separation(drift->vs_winner, policy));
  if (timing == Verdict::kSlow) {
    key.notes.push_back(what + "; re-tune after fixing the slow-down");
    return;
  }
  key.verdict = Verdict::kDrift;
  key.reason = what + "; re-tune with `occtune tune`";
}

std::map<Verdict, int> GateReport::counts() const {
  std::map<Verdict, int> out;
  for (auto& k : keys) ++out[k.verdict];
  return out;
}

int GateReport::exit_code() const {
  bool failed = false, unjudged = false;
  for (auto& k : keys) {
    switch (k.verdict) {
      case Verdict::kWrong:
      case Verdict::kSlow:
        failed = true;
        break;
      case Verdict::kDrift:
        failed |= options.strict;
        break;
      case Verdict::kMissing:
      case Verdict::kIncompatible:
        unjudged = true;
        break;
      default:
        break;
    }
  }
  return failed ? 1 : unjudged ? 3 : 0;
}

GateReport compare_runs(const std::vector<RunRecord>& base,
                        const std::vector<RunRecord>& current, const GateOptions& options) {
  GateReport report;
  report.kind = "compare";
  report.options = options;

  // The newest run of each key in NEW, a complete one when there is one.
  struct Group {
    int complete = -1, any = -1;
  };
  auto group_key = [](const CacheKey& k) {
    return std::make_tuple(k.kernel, k.shape.m, k.shape.n, k.shape.k, k.dtype, k.layout,
                           platform_of(k));
  };
  std::map<decltype(group_key(CacheKey{})), Group> groups;
  for (int i = 0; i < int(current.size()); ++i) {
    const StoredRun& run = current[std::size_t(i)].run;
    Group& g = groups[group_key(run.key)];
    if (g.any < 0) g.any = i;
    if (g.complete < 0 && run.status == RunStatus::kComplete) g.complete = i;
  }
  std::vector<StoredRun> base_runs;
  for (auto& r : base) base_runs.push_back(r.run);

  std::set<std::string> platforms;
  std::set<int> used_base;
  for (auto& [id, group] : groups) {
    const RunRecord& now =
        current[std::size_t(group.complete >= 0 ? group.complete : group.any)];
    platforms.insert(platform_of(now.run.key));
    KeyVerdict key;
    key.kernel = now.run.key.kernel;
    key.launched_kernel = key.kernel;
    key.dtype = now.run.key.dtype;
    key.shape = now.run.key.shape;
    key.layout = now.run.key.layout;
    if (now.run.status != RunStatus::kComplete)
      key.notes.push_back(fmt::format("NEW has no complete run for this key; its newest run is {}",
                                      to_string(now.run.status)));
    const BaselineChoice choice =
        choose_baseline(base_runs, now.run.key, options.allow_different_device,
                        {stored_flush_protocol(now.run.policy_json), "NEW"});
    if (choice.status != BaselineStatus::kFound) {
      key.verdict =
          choice.status == BaselineStatus::kMissing ? Verdict::kMissing : Verdict::kIncompatible;
      key.reason = choice.status == BaselineStatus::kMissing
                       ? fmt::format("BASE has no complete run of {} {} ({}{})", key.kernel,
                                     key.shape.str(), key.dtype,
                                     key.layout == "nn" ? "" : ", layout " + key.layout)
                       : choice.reason;
      report.keys.push_back(std::move(key));
      continue;
    }
    used_base.insert(choice.index);
    const RunRecord& then = base[std::size_t(choice.index)];
    key.different_platform = choice.different_platform;
    if (choice.different_platform)
      key.notes.push_back("baseline measured on another platform: " + platform_of(then.run.key));
    const auto base_ranked = ranked_ok(then.measurements);
    if (base_ranked.empty()) {
      key.verdict = Verdict::kMissing;
      key.reason = fmt::format("the baseline run {} has no passing candidate", then.run.id);
      report.keys.push_back(std::move(key));
      continue;
    }
    const StoredMeasurement& winner = *base_ranked.front();
    key.baseline = side_of(then.run, winner);
    const StoredMeasurement* same = nullptr;
    for (auto& m : now.measurements) {
      if (!same_config(m, winner)) continue;
      if (!same || (same->outcome != Outcome::kOk && m.outcome == Outcome::kOk)) same = &m;
    }
    if (!same) {
      key.reason = fmt::format("NEW has no measurement of the cached winner {}", winner.params);
      decide(key, options.policy);
      report.keys.push_back(std::move(key));
      continue;
    }
    key.current = side_of(now.run, *same);
    if (same->outcome == Outcome::kOk) {
      key.comparison = compare_samples(winner.samples_ms, same->samples_ms, options.policy);
      int rank = 0;
      for (auto* other : ranked_ok(now.measurements)) {
        if (same_config(*other, winner)) continue;
        RunnerUp r{side_of(now.run, *other),
                   compare_samples(same->samples_ms, other->samples_ms, options.policy)};
        if (rank++ < options.runners_up || r.vs_winner.verdict == Verdict::kFast)
          key.runners_up.push_back(std::move(r));
      }
    }
    decide(key, options.policy);
    report.keys.push_back(std::move(key));
  }

  for (int i = 0; i < int(base.size()); ++i) {
    const StoredRun& run = base[std::size_t(i)].run;
    if (run.status != RunStatus::kComplete || used_base.count(i)) continue;
    bool matched = false;
    for (auto& k : report.keys)
      matched |= k.kernel == run.key.kernel && k.shape == run.key.shape &&
                 k.dtype == run.key.dtype && k.layout == run.key.layout;
    const std::string note = fmt::format(
        "BASE has {} {} ({}{}) but NEW does not measure it", run.key.kernel, run.key.shape.str(),
        run.key.dtype, run.key.layout == "nn" ? "" : ", layout " + run.key.layout);
    if (!matched && std::find(report.notes.begin(), report.notes.end(), note) == report.notes.end())
      report.notes.push_back(note);
  }
  for (auto& p : platforms) report.device += (report.device.empty() ? "" : "; ") + p;
  return report;
}

}  // namespace occtune::gate
