// Implements include/occtune/version.hpp (git_commit() is generated at build time by
// cmake/generate-git-commit.cmake): what this library was built from, for `occtune --version`
// and for applications that log which occtune they loaded.
#include "occtune/version.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/kernel_manifest.hpp"

namespace occtune {

const char* version() noexcept { return OCCTUNE_VERSION_STRING; }

const char* kernel_build_id() noexcept {
  static const std::string id(kernels::kernel_build_id());
  return id.c_str();
}

const char* cuda_runtime_version() noexcept {
  // The static runtime answers without a driver or a GPU; the header's number is the same
  // runtime and stands in should the call ever fail.
  static const std::string text = [] {
    int v = 0;
    if (cudaRuntimeGetVersion(&v) != cudaSuccess || v <= 0) v = CUDART_VERSION;
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }();
  return text.c_str();
}

}  // namespace occtune
