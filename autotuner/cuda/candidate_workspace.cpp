// CandidateWorkspace (autotuner/cuda/candidate_workspace.hpp).
#include "autotuner/cuda/candidate_workspace.hpp"

#include "autotuner/cuda/cuda_check.cuh"

namespace occtune::cuda {

CandidateWorkspace::~CandidateWorkspace() {
  if (ptr_) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
}

cudaError_t CandidateWorkspace::take(std::size_t bytes, const std::string& owner,
                                     cudaStream_t stream) {
  if (bytes > bytes_) {
    if (ptr_) OCCTUNE_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
    if (auto err = cudaMalloc(&ptr_, bytes); err != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      return err;
    }
    bytes_ = bytes;
    owner_.clear();
  }
  if (bytes > 0 && owner_ != owner) {
    OCCTUNE_CUDA_CHECK(cudaMemsetAsync(ptr_, 0xff, bytes_, stream));
    owner_ = owner;
  }
  return cudaSuccess;
}

}  // namespace occtune::cuda
