// The few cuBLAS entry points occtune calls (the reference SGEMM of autotuner/cuda/shape_bench),
// defined here and forwarded to libcublas, which is loaded with dlopen on the first call.
// Linked instead of -lcublas: loading and relocating libcublas and libcublasLt (hundreds of MB)
// cost every occtune process about 0.1 s and 200 MB of memory, although only tuning and checking
// use them; `occtune query`, `serve`, `export` and an application's Cache lookups now never load
// them. The symbols keep cuBLAS's names and C linkage, so the callers are unchanged.
// Written by hand: the loader is a dozen lines, and no Debian package offers lazy linking.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

namespace {

#define OCCTUNE_STRINGIFY_VALUE(x) #x
#define OCCTUNE_STRINGIFY(x) OCCTUNE_STRINGIFY_VALUE(x)
// libcublas.so.<major> of the headers this was compiled with (the ABI the calls assume).
constexpr const char* kLibrary = "libcublas.so." OCCTUNE_STRINGIFY(CUBLAS_VER_MAJOR);

struct Library {
  void* handle = nullptr;
  std::string error;  // why it could not be loaded
};

const Library& library() {
  static Library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    lib.handle = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) {
      const char* why = ::dlerror();
      lib.error = std::string("cannot load ") + kLibrary + ": " + (why ? why : "unknown error") +
                  "; install the CUDA toolkit's cuBLAS or put it on LD_LIBRARY_PATH";
    }
  });
  return lib;
}

template <class Function>
Function resolve(const char* name) {
  const Library& lib = library();
  return lib.handle ? reinterpret_cast<Function>(::dlsym(lib.handle, name)) : nullptr;
}

// The library's own function, looked up once; null when cuBLAS is missing.
#define OCCTUNE_CUBLAS_FORWARD(name) static const auto real = resolve<decltype(&::name)>(#name)

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
  OCCTUNE_CUBLAS_FORWARD(cublasCreate_v2);
  return real ? real(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
  OCCTUNE_CUBLAS_FORWARD(cublasDestroy_v2);
  return real ? real(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  OCCTUNE_CUBLAS_FORWARD(cublasSetStream_v2);
  return real ? real(handle, stream) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  OCCTUNE_CUBLAS_FORWARD(cublasSetMathMode);
  return real ? real(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const float* alpha, const float* a, int lda,
                                           const float* b, int ldb, const float* beta, float* c,
                                           int ldc) {
  OCCTUNE_CUBLAS_FORWARD(cublasSgemm_v2);
  return real ? real(handle, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
              : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status) {
  OCCTUNE_CUBLAS_FORWARD(cublasGetStatusName);
  return real ? real(status) : "CUBLAS_STATUS_NOT_INITIALIZED";
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
  OCCTUNE_CUBLAS_FORWARD(cublasGetStatusString);
  return real ? real(status) : library().error.c_str();
}

}  // extern "C"
