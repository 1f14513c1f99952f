// The backend that measures in this process (`--no-isolation`, and the worker's own engine).
#pragma once

#include <memory>
#include <string>

#include "autotuner/core/backend.hpp"

namespace occtune::cuda {

std::unique_ptr<MeasurementBackend> make_in_process_backend(const std::string& device_selector);

}  // namespace occtune::cuda
