// occtune::launch: runs the tuned configuration of a registered user kernel family
// (occtune/kernel.hpp) for a problem on the current device. The configuration is resolved once
// per (device, family, problem) through occtune::Cache's lookup chain (the store at OCCTUNE_DB
// or the default path) and then kept in memory. C++17, no CUDA headers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "occtune/error.hpp"
#include "occtune/kernel.hpp"
#include "occtune/model.hpp"

namespace occtune {

// What launch() runs for a problem, and why.
struct LaunchChoice {
  std::string family;
  std::string variant;  // e.g. "stencil5<>/16x16"
  std::vector<Param> params;
  Block block;
  Grid grid;
  std::size_t dynamic_smem = 0;
  std::size_t workspace_bytes = 0;  // KernelFamily::workspace, allocated around each launch
  bool measured = false;  // false: the occupancy heuristic chose it, nothing was measured
  std::string how;        // "exact (measured on GPU-...)", "heuristic on this device (...)"
};

// Resolves the configuration without launching. Order: the store's lookup chain (exact entry,
// same model, same architecture, nearest measured problem, offline heuristic); without any
// answer (no store, or a family never tuned) the textbook occupancy answer on this device.
// Throws Error(kUsage) for an unregistered family or a problem without the family's
// dimensions (naming them), kNotFound when no configuration can run on this device, kRuntime
// for a CUDA error.
LaunchChoice launch_prepare(const std::string& family, const Dims& problem);

// Launches the resolved configuration asynchronously on `stream` (a cudaStream_t; nullptr: the
// default stream) with `buffers`, device pointers in the order the family declares them.
// Thread-safe. Throws as launch_prepare, and Error(kRuntime) naming the configuration when the
// launch fails.
void launch(const std::string& family, const Dims& problem, const std::vector<float*>& buffers,
            void* stream = nullptr);

}  // namespace occtune
