// The scratch memory of the candidate being measured (a split-K's partial sums, a user
// configuration's KernelFamily::workspace), shared by the GEMM bench and the user bench: grown
// to the largest request outside any timed region and kept for the problem.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace occtune::cuda {

class CandidateWorkspace {
 public:
  CandidateWorkspace() = default;
  ~CandidateWorkspace();
  CandidateWorkspace(const CandidateWorkspace&) = delete;
  CandidateWorkspace& operator=(const CandidateWorkspace&) = delete;

  // At least `bytes` for the candidate `owner`, NaN-poisoned (asynchronously on `stream`)
  // whenever another candidate takes it over, so none can pass on what an earlier one left
  // there. An allocation failure is returned (and cleared) rather than thrown: it rules out
  // that candidate only. 0 bytes: nothing to do.
  cudaError_t take(std::size_t bytes, const std::string& owner, cudaStream_t stream);
  // The next take() poisons it whoever owns it: a checked launch starts from NaN.
  void poison_next() { owner_.clear(); }

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::string owner_;
};

}  // namespace occtune::cuda
