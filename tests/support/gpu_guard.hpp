// GPU tests skip themselves (GTEST_SKIP) on a machine with no visible device, so CI without a
// GPU stays green while the device run executes them for real.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#define OCCTUNE_REQUIRE_GPU()                                              \
  do {                                                                     \
    int occtune_count_ = 0;                                                \
    if (cudaGetDeviceCount(&occtune_count_) != cudaSuccess ||             \
        occtune_count_ == 0) {                                             \
      cudaGetLastError();                                                  \
      GTEST_SKIP() << "no CUDA device visible";                            \
    }                                                                      \
  } while (0)
