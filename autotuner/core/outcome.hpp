// What happened to one candidate. Stored as text in the database, so the spellings are stable.
#pragma once

#include <optional>
#include <string_view>

namespace occtune {

enum class Outcome {
  kOk,             // ran, verified against cuBLAS, timed
  kInvalidConfig,  // the launch was refused (cudaErrorInvalidValue / InvalidConfiguration)
  kExceedsLimits,  // checked before launch: threads, shared memory, grid or occupancy 0
  kLaunchFailed,   // another launch-time error; the context is still usable
  kWrongResult,    // ran but disagrees with cuBLAS beyond the tolerance (or produced NaN)
  kCrashed,        // sticky error at synchronisation (illegal address, trap)
  kTimeout,        // did not finish within the wall-clock limit
  kCompileFailed,  // a source kernel's configuration did not compile (NVRTC); never launched
};

std::string_view to_string(Outcome outcome);
std::optional<Outcome> outcome_from_string(std::string_view text);

}  // namespace occtune
