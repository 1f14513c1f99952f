#include "autotuner/cli/backend_factory.hpp"

#include "autotuner/cuda/in_process_backend.hpp"

namespace occtune::cli {

std::unique_ptr<MeasurementBackend> make_backend(const BackendOptions& options) {
  // Worker-process isolation is issue #5; until it lands every backend is in-process.
  return cuda::make_in_process_backend(options.device_selector);
}

}  // namespace occtune::cli
