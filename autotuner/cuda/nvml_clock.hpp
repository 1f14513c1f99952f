// Reads the current SM clock through NVML, loaded at run time with dlopen so occtune runs where
// NVML is missing (it then reports 0 and says why once).
#pragma once

#include <string>

namespace occtune::cuda {

class NvmlClock {
 public:
  static NvmlClock& instance();
  // Current SM clock in MHz of the GPU with this UUID; 0 when NVML is unavailable.
  int sm_clock_mhz(const std::string& uuid);
  // Default (application) SM clock in MHz; 0 when unknown.
  int default_sm_clock_mhz(const std::string& uuid);
  bool available() const { return available_; }
  const std::string& why_unavailable() const { return why_; }

 private:
  NvmlClock();
  void* handle(const std::string& uuid);  // nvmlDevice_t, cached per UUID; nullptr if unknown
  std::string cached_uuid_;
  void* cached_handle_ = nullptr;
  bool available_ = false;
  std::string why_;
  void* library_ = nullptr;
};

}  // namespace occtune::cuda
