// A tuning harness with planted faults for the user-kernel GPU test (tests/gpu/user_faults.sh):
// one family "ufaults" whose configurations copy their input correctly (mode 0), write a wrong
// result (1), write through a bad address (2) or never finish (3). Its version is
// $UFAULTS_VERSION (default 1), so the test can change it between tune and query; with
// $UFAULTS_NO_REFERENCE set it registers without a reference (refused: exit 2). The reference is
// a host copy, or with $UFAULTS_REFERENCE=device a copy kernel on the device (=both: the two
// at once, refused; =unwritten: a device reference that writes nothing, refused at the tune).
// $UFAULTS_MODES (e.g. "01") keeps only those configurations, for a tune without a worker.
#include <occtune/launch.cuh>
#include <occtune/main.hpp>

#include <cstdlib>
#include <string>
#include <utility>

namespace {

template <int MODE>
__global__ void ufaults_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (MODE == 3 && i == 0)
    while (clock64() >= 0) {  // never false: a hang the worker's timeout must end
    }
  if (MODE == 2 && i == 0) *reinterpret_cast<volatile float*>(8) = 1.0f;  // illegal address
  if (i < n) out[i] = MODE == 1 ? in[i] + 1.0f : in[i];
}

// The device reference: a plain copy, launched as an application would launch it.
__global__ void ufaults_reference(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int device_copy(const occtune::ReferenceArgs& a) {
  const int n = int((*a.problem)["n"]);
  ufaults_reference<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(a.stream)>>>(
      a.buffers[0], a.buffers[1], n);
  return int(cudaGetLastError());
}

occtune::KernelFamily family() {
  occtune::KernelFamily f;
  f.name = "ufaults";
  const char* version = std::getenv("UFAULTS_VERSION");
  f.version = version && *version ? version : "1";
  f.dims = {"n"};
  f.configs = {{{{"mode", 0}}, occtune::kernel_function(&ufaults_kernel<0>)},
               {{{"mode", 1}}, occtune::kernel_function(&ufaults_kernel<1>)},
               {{{"mode", 2}}, occtune::kernel_function(&ufaults_kernel<2>)},
               {{{"mode", 3}}, occtune::kernel_function(&ufaults_kernel<3>)}};
  f.block_rule = occtune::BlockRule::kLinear;
  f.min_threads = f.max_threads = 256;
  f.smem = [](occtune::Block, const occtune::KernelConfig&) { return std::size_t(0); };
  f.grid = [](const occtune::Dims& p, const occtune::KernelConfig&, occtune::Block b) {
    return occtune::Grid{(p["n"] + b.x - 1) / b.x, 1, 1};
  };
  f.buffers = [](const occtune::Dims& p) {
    const auto n = std::size_t(p["n"]);
    return std::vector<occtune::Buffer>{{"in", n, occtune::Buffer::Role::kInput},
                                        {"out", n, occtune::Buffer::Role::kOutput}};
  };
  f.launch = [](const occtune::LaunchArgs& a) {
    return occtune::launch_kernel(a, static_cast<const float*>(a.buffers[0]), a.buffers[1],
                                  int((*a.problem)["n"]));
  };
  f.reference = [](const occtune::Dims&, std::vector<std::vector<float>>& host) {
    host[1] = host[0];
  };
  f.compare = {occtune::Comparison::Norm::kMaxAbsolute, 0.0001};
  f.cuda = occtune::cuda_hooks();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return occtune::main(argc, argv, [] {
    occtune::KernelFamily f = family();
    if (std::getenv("UFAULTS_NO_REFERENCE")) f.reference = nullptr;  // a bad registration
    const char* kind = std::getenv("UFAULTS_REFERENCE");
    const std::string reference = kind ? kind : "";
    if (reference == "device" || reference == "both") f.device_reference = &device_copy;
    if (reference == "device") f.reference = nullptr;
    if (const char* modes = std::getenv("UFAULTS_MODES")) {
      std::vector<occtune::KernelConfig> kept;
      for (auto& c : f.configs)
        if (std::string(modes).find(char('0' + c.param("mode"))) != std::string::npos)
          kept.push_back(std::move(c));
      f.configs = std::move(kept);
    }
    if (reference == "unwritten") {
      f.reference = nullptr;
      f.device_reference = [](const occtune::ReferenceArgs&) { return 0; };
    }
    occtune::register_family(std::move(f));
  });
}
