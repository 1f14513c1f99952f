// The on_miss policy of occtune::sgemm (include/occtune/sgemm.hpp): tune one shape now, in this
// process, with the engine and protocol of `occtune tune`, and store the result.
#pragma once

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/layout.hpp"

namespace occtune::api {

// Tunes the shape of `g` on `device` with the GEMM families of its layout (gemm_tuning_families:
// never a baseline, never a user family), within
// OCCTUNE_TUNE_BUDGET_MS milliseconds (default 2000) of tuning, into the store at OCCTUNE_DB or
// the default path, opened for writing (created if missing). Measures in this process (no
// worker), like `occtune tune --no-isolation`. Throws Error as the engine and the store do.
void tune_on_miss(const DeviceInfo& device, const RowMajorGemm& g);

}  // namespace occtune::api
