// The lookup chain of design.md section 6: the exact key, then the same device model elsewhere,
// then the same architecture, then the nearest measured shape on the same device, then the
// textbook occupancy answer computed offline (no measurement). Shared by `occtune query`,
// `occtune serve` and the library's Cache, so all of them explain a lookup alike.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/candidate.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/layout.hpp"
#include "db/store.hpp"

namespace occtune::db {

enum class LookupStep { kExact, kSameModel, kSameArchitecture, kNearestShape, kHeuristic };
inline constexpr std::array<LookupStep, 5> kLookupSteps = {
    LookupStep::kExact, LookupStep::kSameModel, LookupStep::kSameArchitecture,
    LookupStep::kNearestShape, LookupStep::kHeuristic};
// "exact", "same_model", "same_architecture", "nearest_shape", "heuristic": part of the JSON and
// HTTP contract.
std::string_view to_string(LookupStep step);

// The occupancy method's answer when nothing was measured: what the textbook would launch.
struct HeuristicAnswer {
  Candidate candidate;  // annotated offline (cuda_occupancy.h) with the stored device properties
  std::string oracle;   // where the occupancy numbers come from
  std::string method;   // how the candidate was chosen, in words
  bool nearest_arch_registers = false;  // register counts came from another compiled arch
};

struct StepReport {
  enum class State { kHit, kMiss, kNotTried };
  LookupStep step = LookupStep::kExact;
  State state = State::kNotTried;
  std::string detail;  // what matched, or why nothing did
};
std::string_view to_string(StepReport::State state);  // "hit", "miss", "not_tried"

struct LookupResult {
  std::optional<LookupStep> answered_by;     // empty: a miss (every allowed step missed)
  // A measured answer (exact, same model, same architecture or nearest shape). For the nearest
  // shape the entry is the one measured at another shape (entry->run.key.shape).
  std::optional<BestEntry> entry;
  std::optional<HeuristicAnswer> heuristic;  // the unmeasured answer
  std::vector<StepReport> steps;             // all five steps, in chain order
  double shape_distance = 0;                 // nearest shape: the distance of the answer

  bool hit() const { return answered_by.has_value(); }
  bool measured() const { return entry.has_value(); }
};

struct LookupOptions {
  // false: only the exact key may answer (what `occtune query` does unless asked otherwise).
  bool fallback = true;
  // Evaluate every step even when an earlier one answered or may not answer, so an explanation
  // can show what each step would have found. Costs a query per step.
  bool probe_all = false;
  // Properties for the heuristic (a probed device); default: the newest record of the key's
  // UUID in the store.
  const DeviceInfo* device = nullptr;
};

// Reads only the database and the build's kernel manifest; never touches a GPU. Throws what the
// store throws (StoreBusy for a busy file).
// An empty key.kernel means any family: each step in chain order asks every registered family
// and answers with the fastest correct entry among those that hit (an application wants the
// fastest kernel, not the fastest tile of a kernel it picked); the heuristic step then gives
// the textbook kernel's occupancy answer.
LookupResult lookup(Store& store, const CacheKey& key, const LookupOptions& options = {});

// Distance between two GEMM shapes for the nearest-shape step: Euclidean in the logarithms of
// the sides, so it is relative (twice as large in one side: ln 2 = 0.69, whatever the size) and
// symmetric. A measured configuration transfers best to a shape of similar proportions and
// size, which is what this ranks.
double shape_distance(const Shape& a, const Shape& b);

// The textbook kernel whose heuristic answers when no family is named.
inline constexpr const char* kTextbookFamily = "tiled_dynamic";

// The textbook answer for `kernel` and `shape` on `device` (cuda_occupancy.h, build-time
// register counts), among the family's variants of `layout`. Throws Error when the device or
// kernel cannot be planned.
HeuristicAnswer occupancy_heuristic(const DeviceInfo& device, const std::string& kernel,
                                    Shape shape, Layout layout = Layout::kNN);

}  // namespace occtune::db
