// NVRTC, loaded with dlopen on first use: the toolkit ships it only as a shared object
// (libnvrtc.so.<major>), and only source kernels need it, so `occtune query`, `serve` and an
// application's lookups never load it and run on machines without it.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace occtune::source {

struct NvrtcApi {
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcAddNameExpression) add_name_expression = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) program_log = nullptr;
  decltype(&::nvrtcGetLoweredName) lowered_name = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
  std::string path;          // the file that was loaded
  std::string version_text;  // "13.0"
};

// The library name the headers were compiled for, e.g. "libnvrtc.so.13".
const char* nvrtc_library_name();
// Where nvrtc() looks, in order: the plain name (loader path, libocctune's RPATH),
// $CUDA_HOME/lib64, /usr/local/cuda/lib64.
std::vector<std::string> nvrtc_candidates();
// Loads the first of `candidates` that opens; throws like nvrtc(). Exposed for tests.
NvrtcApi load_nvrtc(const std::vector<std::string>& candidates);
// Loads NVRTC once (thread-safe). Throws Error(kRuntime) naming the library, the places tried
// and the fix when it is missing or lacks a function.
const NvrtcApi& nvrtc();

}  // namespace occtune::source
