// cuBLAS is loaded on first use (autotuner/cuda/cublas_on_demand.cpp): a process that never
// calls it never maps libcublas, and the first call loads the real library. No GPU needed.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

bool cublas_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find("libcublas.so") != std::string::npos;
}

TEST(CublasOnDemand, LoadedOnlyAtTheFirstCall) {
  EXPECT_FALSE(cublas_mapped());
  // Only the real library knows this name; the stand-in for a missing library would say
  // CUBLAS_STATUS_NOT_INITIALIZED.
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_TRUE(cublas_mapped());
}

}  // namespace
