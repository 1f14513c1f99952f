// The regression gate's judgement per key, shared by `occtune check` (current samples measured on
// the GPU now) and `occtune compare` (current samples from a second export): which stored run is
// the baseline, which configuration is the cached winner, the verdict and the exit code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/verdict.hpp"
#include "autotuner/core/records.hpp"

namespace occtune::gate {

struct GateOptions {
  VerdictPolicy policy;
  bool strict = false;                  // DRIFT fails the gate too
  bool allow_different_device = false;  // judge against another device model, driver or runtime
  int runners_up = 2;                   // configurations after the winner that are measured too
};

// Baselines are comparable only on the same device model (name, compute capability, SM count),
// driver and runtime; the device UUID and the kernel build id may differ (a CI runner is another
// machine of the same model, and the build under test is expected to differ).
bool same_platform(const CacheKey& a, const CacheKey& b);
std::string platform_of(const CacheKey& key);  // "NVIDIA H100 80GB HBM3, driver 13000, ..."

enum class BaselineStatus { kFound, kMissing, kIncompatible };
struct BaselineChoice {
  BaselineStatus status = BaselineStatus::kMissing;
  int index = -1;                   // into the runs given
  bool different_platform = false;  // chosen only because allow_different_device is set
  std::string reason;               // for kMissing and kIncompatible
};

// The side a baseline will judge: the L2 flush its samples were timed with
// (autotuner/core/flush_protocol.hpp; "" when unknown, which any baseline matches) and its name
// in a reason ("this check", "NEW").
struct CurrentSide {
  std::string flush;
  std::string name = "the current side";
};

// The newest complete run with the target's kernel, dtype and shape on the same platform,
// preferring the target's own device UUID. `runs` is newest first (Store::runs order). A run
// timed with another L2 flush than `current` is never a baseline: samples taken after the memset
// flush (runs stored before wave 22) made memory-bound kernels 3-14% slower than the read flush
// does, which could hide a regression; when only such runs exist the key is INCOMPATIBLE.
BaselineChoice choose_baseline(const std::vector<StoredRun>& runs, const CacheKey& target,
                               bool allow_different_device, const CurrentSide& current = {});

// The passing measurements of a run, the search's recorded winner first, then fastest first
// (median, then id): element 0 is what Store::best() serves (the cached winner) and the next
// ones are its nearest runners-up.
std::vector<const StoredMeasurement*> ranked_ok(
    const std::vector<StoredMeasurement>& measurements);

// Configurations are matched across builds and kernel families by parameters and block size.
bool same_config(const StoredMeasurement& a, const StoredMeasurement& b);

// One side of a comparison: what was measured, where and by which build.
struct Side {
  std::int64_t run_id = 0;  // 0 for measurements taken by `check` (not stored)
  std::string build_id;
  std::string device_uuid;
  std::string platform;  // platform_of()
  std::string started_at;
  std::string variant;  // manifest symbol
  std::string config;   // "tile=32"
  int threads = 0;
  Outcome outcome = Outcome::kOk;
  std::string error;
  double rel_error = -1;
  std::vector<double> samples_ms;
  Summary summary;
};

Side side_of(const StoredRun& run, const StoredMeasurement& m);

struct RunnerUp {
  Side current;                // measured in the same session as the current winner
  SampleComparison vs_winner;  // base = current winner, current = this runner-up
};

struct KeyVerdict {
  std::string kernel;
  std::string dtype = "f32";
  Shape shape;
  std::string layout = "nn";    // operand layout (part of the key)
  std::string launched_kernel;  // the family measured; differs only with --kernel-override
  Verdict verdict = Verdict::kMissing;
  std::string reason;            // one line: why
  std::optional<Side> baseline;  // the cached winner as stored
  std::optional<Side> current;   // the same configuration now
  SampleComparison comparison;   // baseline against current (the one that counts)
  std::optional<SampleComparison> first_comparison;  // a suspected SLOW before re-measuring
  std::vector<RunnerUp> runners_up;
  bool different_platform = false;
  std::vector<std::string> notes;
};

// Sets key.verdict and key.reason from what was gathered: no baseline or current side is
// MISSING; a failing current side WRONG; then the timing verdict (SLOW only when confirmed if
// first_comparison is set); a runner-up that is FAST against the current winner makes it DRIFT,
// unless the key is already WRONG or SLOW (then it is a note).
void decide(KeyVerdict& key, const VerdictPolicy& policy);

struct GateReport {
  std::string kind;  // "check" or "compare"
  GateOptions options;
  std::string device;    // what the current side ran on, in words
  std::string build_id;  // the current kernel build (check) or "" (compare)
  std::vector<KeyVerdict> keys;
  std::vector<std::string> notes;  // report-wide remarks (e.g. baseline keys absent from NEW)

  std::map<Verdict, int> counts() const;
  // 1 when any key is SLOW or WRONG (or DRIFT with strict); otherwise 3 when any key is MISSING or
  // INCOMPATIBLE; otherwise 0.
  int exit_code() const;
};

// `occtune compare`: every key of `current` (newest run per platform, kernel, dtype and shape)
// judged against its baseline in `base`.
GateReport compare_runs(const std::vector<RunRecord>& base,
                        const std::vector<RunRecord>& current, const GateOptions& options);

}  // namespace occtune::gate
