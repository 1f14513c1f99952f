// Loads libnvrtc with dlopen (nvrtc_library.hpp). Written by hand like
// autotuner/cuda/cublas_on_demand.cpp: a dozen lines, and no Debian package offers lazy linking.
#include "autotuner/source/nvrtc_library.hpp"

#include <cuda.h>  // CUDA_VERSION: the NVRTC major the headers describe
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "autotuner/core/error.hpp"

namespace occtune::source {
namespace {

constexpr int kMajor = CUDA_VERSION / 1000;

struct Loaded {
  NvrtcApi api;
  std::string error;
};

Loaded load(const std::vector<std::string>& candidates) {
  Loaded out;
  const std::string name = nvrtc_library_name();
  void* handle = nullptr;
  std::string tried;
  for (auto& c : candidates) {
    handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      out.api.path = c;
      break;
    }
    const char* why = ::dlerror();
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", c, why ? why : "not found");
  }
  if (!handle) {
    out.error = fmt::format(
        "cannot load NVRTC ({}), which source kernels need to compile: tried {}; install the "
        "CUDA {} toolkit's NVRTC (with its libnvrtc-builtins) or put its directory on "
        "LD_LIBRARY_PATH",
        name, tried, kMajor);
    return out;
  }
  std::string missing;
  auto resolve = [&](auto& slot, const char* symbol) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(::dlsym(handle, symbol));
    if (!slot) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", symbol);
  };
  NvrtcApi& a = out.api;
  resolve(a.version, "nvrtcVersion");
  resolve(a.error_string, "nvrtcGetErrorString");
  resolve(a.create_program, "nvrtcCreateProgram");
  resolve(a.destroy_program, "nvrtcDestroyProgram");
  resolve(a.add_name_expression, "nvrtcAddNameExpression");
  resolve(a.compile_program, "nvrtcCompileProgram");
  resolve(a.program_log_size, "nvrtcGetProgramLogSize");
  resolve(a.program_log, "nvrtcGetProgramLog");
  resolve(a.lowered_name, "nvrtcGetLoweredName");
  resolve(a.cubin_size, "nvrtcGetCUBINSize");
  resolve(a.cubin, "nvrtcGetCUBIN");
  if (!missing.empty()) {
    out.error =
        fmt::format("{} lacks {}; install NVRTC of CUDA {} or newer", a.path, missing, kMajor);
    return out;
  }
  int major = 0, minor = 0;
  a.version(&major, &minor);
  a.version_text = fmt::format("{}.{}", major, minor);
  return out;
}

}  // namespace

const char* nvrtc_library_name() {
  static const std::string name = "libnvrtc.so." + std::to_string(kMajor);
  return name.c_str();
}

std::vector<std::string> nvrtc_candidates() {
  const std::string name = nvrtc_library_name();
  // The plain name first (LD_LIBRARY_PATH, the loader cache, libocctune's RPATH, which holds the
  // CUDA library directory it was linked with), then the toolkit's usual places.
  std::vector<std::string> candidates{name};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    candidates.push_back(std::string(home) + "/lib64/" + name);
  candidates.push_back("/usr/local/cuda/lib64/" + name);
  return candidates;
}

NvrtcApi load_nvrtc(const std::vector<std::string>& candidates) {
  Loaded loaded = load(candidates);
  if (!loaded.error.empty()) fail(ExitCode::kRuntime, loaded.error);
  return loaded.api;
}

const NvrtcApi& nvrtc() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] { loaded = load(nvrtc_candidates()); });
  if (!loaded.error.empty()) fail(ExitCode::kRuntime, loaded.error);
  return loaded.api;
}

}  // namespace occtune::source
