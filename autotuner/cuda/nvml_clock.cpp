#include "autotuner/cuda/nvml_clock.hpp"

#include <dlfcn.h>

namespace occtune::cuda {
namespace {

// The few NVML declarations used, written out because the toolkit here ships no nvml.h; they
// follow NVML's stable C ABI (nvml.h: nvmlReturn_t, opaque nvmlDevice_t, NVML_CLOCK_SM = 1).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
using nvmlClockType_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlClockType_t NVML_CLOCK_SM = 1;

using InitFn = nvmlReturn_t (*)();
using HandleByUuidFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using ClockInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned int*);
using DefaultClockFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlClockType_t, unsigned int*);

HandleByUuidFn handle_by_uuid = nullptr;
ClockInfoFn clock_info = nullptr;
DefaultClockFn default_clock = nullptr;

}  // namespace

NvmlClock& NvmlClock::instance() {
  static NvmlClock clock;
  return clock;
}

NvmlClock::NvmlClock() {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    why_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(library_, "nvmlInit_v2"));
  handle_by_uuid = reinterpret_cast<HandleByUuidFn>(dlsym(library_, "nvmlDeviceGetHandleByUUID"));
  clock_info = reinterpret_cast<ClockInfoFn>(dlsym(library_, "nvmlDeviceGetClockInfo"));
  default_clock =
      reinterpret_cast<DefaultClockFn>(dlsym(library_, "nvmlDeviceGetDefaultApplicationsClock"));
  if (!init || !handle_by_uuid || !clock_info) {
    why_ = "NVML lacks the needed symbols";
    return;
  }
  if (init() != NVML_SUCCESS) {
    why_ = "nvmlInit failed";
    return;
  }
  available_ = true;
}

// The clock is read around every batch of samples, so the UUID lookup is done once per device.
void* NvmlClock::handle(const std::string& uuid) {
  if (uuid == cached_uuid_ && cached_handle_) return cached_handle_;
  nvmlDevice_t device = nullptr;
  if (handle_by_uuid(uuid.c_str(), &device) != NVML_SUCCESS) return nullptr;
  cached_uuid_ = uuid;
  cached_handle_ = device;
  return device;
}

int NvmlClock::sm_clock_mhz(const std::string& uuid) {
  if (!available_) return 0;
  auto device = static_cast<nvmlDevice_t>(handle(uuid));
  unsigned int mhz = 0;
  if (!device || clock_info(device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS) return 0;
  return int(mhz);
}

int NvmlClock::default_sm_clock_mhz(const std::string& uuid) {
  if (!available_ || !default_clock) return 0;
  auto device = static_cast<nvmlDevice_t>(handle(uuid));
  unsigned int mhz = 0;
  if (!device || default_clock(device, NVML_CLOCK_SM, &mhz) != NVML_SUCCESS) return 0;
  return int(mhz);
}

}  // namespace occtune::cuda
