// The worker's side of isolation: `occtune __worker` reads requests from the parent, runs them on
// a MeasurementBackend of its own (in the real worker, the in-process backend, which holds the
// CUDA context) and answers each one (protocol.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "autotuner/core/backend.hpp"

namespace occtune::isolation {

using BackendFactory =
    std::function<std::unique_ptr<MeasurementBackend>(const std::string& device_selector)>;

// Exit codes of serve(): done (shutdown request, or the parent closed the channel), or stopped
// after a sticky error or failure, when its CUDA state cannot be trusted (the caller should then
// leave with _exit, skipping CUDA teardown in a broken context).
inline constexpr int kWorkerDone = 0;
inline constexpr int kWorkerStopped = 3;

int serve(int fd, const BackendFactory& make_backend);

}  // namespace occtune::isolation
