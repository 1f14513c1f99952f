// The kernels of tests/support/compiled_kernels.cu, one list per fatbin compression mode the
// test program is built with: a name and the __global__ function's host address.
#pragma once

#include <string>
#include <vector>

struct ProbeKernel {
  std::string name;
  const void* function;
};

std::vector<ProbeKernel> probe_kernels_default();  // nvcc's default compression
std::vector<ProbeKernel> probe_kernels_none();     // --compress-mode=none
std::vector<ProbeKernel> probe_kernels_zstd();     // --compress-mode=size: Zstandard cubins
std::vector<ProbeKernel> probe_kernels_lz4();      // --compress-mode=speed -Xfatbin -compress-all
std::vector<ProbeKernel> probe_kernels_shared();   // -rdc, device-linked into a shared library
