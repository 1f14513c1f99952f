// Building the complete cache key from a probed device, and the stored spellings of run states.
// The spellings are part of the schema (a CHECK constraint lists them), so they never change.
#include <utility>

#include "db/store.hpp"

namespace occtune::db {

CacheKey CacheKey::make(const DeviceInfo& device, std::string kernel, std::string build_id,
                        Shape shape, std::string dtype, std::string layout) {
  CacheKey key;
  key.device_uuid = device.uuid;
  key.device_name = device.name;
  key.cc_major = device.cc_major;
  key.cc_minor = device.cc_minor;
  key.sm_count = device.sm_count;
  key.driver_version = device.driver_version;
  key.runtime_version = device.runtime_version;
  key.kernel = std::move(kernel);
  key.build_id = std::move(build_id);
  key.dtype = std::move(dtype);
  key.shape = shape;
  key.layout = std::move(layout);
  return key;
}

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kComplete:
      return "complete";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kFailed:
      return "failed";
  }
  return "failed";
}

}  // namespace occtune::db
