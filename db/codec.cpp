// JSON encodings of device properties, timing policies and sample lists for the store's text
// columns. nlohmann::json prints doubles with round-trip precision, so samples come back exact.
#include "db/codec.hpp"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

namespace occtune::db::codec {
namespace {

using nlohmann::json;

// Reads a field if present and of a usable type; a damaged row degrades to defaults instead of
// making every query on the database fail.
// Integers only from JSON integers that fit: nlohmann converts a float (9.2e27) or an
// out-of-range integer with a plain cast, which is undefined behaviour for the float and a
// wrapped value for the integer (found by tests/fuzz/fuzz_device_planning).
template <typename T>
void read(const json& object, const char* name, T& field) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!it->is_number_integer()) return;
    if (it->is_number_unsigned()) {
      const auto v = it->get<std::uint64_t>();
      if (v <= std::uint64_t(std::numeric_limits<T>::max())) field = static_cast<T>(v);
    } else {
      const auto v = it->get<std::int64_t>();
      if (std::in_range<T>(v)) field = static_cast<T>(v);
    }
    return;
  }
  try {
    field = it->get<T>();
  } catch (const json::exception&) {
  }
}

// Text from outside (device names, argv) may hold invalid UTF-8; replace it rather than throw in
// the middle of a run.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string device_json(const DeviceInfo& d) {
  json j = {
      {"index", d.index},
      {"uuid", d.uuid},
      {"name", d.name},
      {"source", d.source},
      {"cc_major", d.cc_major},
      {"cc_minor", d.cc_minor},
      {"sm_count", d.sm_count},
      {"warp_size", d.warp_size},
      {"max_threads_per_block", d.max_threads_per_block},
      {"max_threads_per_sm", d.max_threads_per_sm},
      {"max_blocks_per_sm", d.max_blocks_per_sm},
      {"regs_per_block", d.regs_per_block},
      {"regs_per_sm", d.regs_per_sm},
      {"shared_mem_per_block", d.shared_mem_per_block},
      {"shared_mem_per_block_optin", d.shared_mem_per_block_optin},
      {"shared_mem_per_sm", d.shared_mem_per_sm},
      {"reserved_shared_mem_per_block", d.reserved_shared_mem_per_block},
      {"max_grid_x", d.max_grid_x},
      {"max_grid_y", d.max_grid_y},
      {"l2_bytes", d.l2_bytes},
      {"global_mem_bytes", d.global_mem_bytes},
      {"clock_khz", d.clock_khz},
      {"memory_clock_khz", d.memory_clock_khz},
      {"memory_bus_width", d.memory_bus_width},
      {"driver_version", d.driver_version},
      {"runtime_version", d.runtime_version},
      {"pci_bus_id", d.pci_bus_id},
  };
  return dump(j);
}

DeviceInfo device_from_json(const std::string& text) {
  DeviceInfo d;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return d;
  read(j, "index", d.index);
  read(j, "uuid", d.uuid);
  read(j, "name", d.name);
  read(j, "source", d.source);
  read(j, "cc_major", d.cc_major);
  read(j, "cc_minor", d.cc_minor);
  read(j, "sm_count", d.sm_count);
  read(j, "warp_size", d.warp_size);
  read(j, "max_threads_per_block", d.max_threads_per_block);
  read(j, "max_threads_per_sm", d.max_threads_per_sm);
  read(j, "max_blocks_per_sm", d.max_blocks_per_sm);
  read(j, "regs_per_block", d.regs_per_block);
  read(j, "regs_per_sm", d.regs_per_sm);
  read(j, "shared_mem_per_block", d.shared_mem_per_block);
  read(j, "shared_mem_per_block_optin", d.shared_mem_per_block_optin);
  read(j, "shared_mem_per_sm", d.shared_mem_per_sm);
  read(j, "reserved_shared_mem_per_block", d.reserved_shared_mem_per_block);
  read(j, "max_grid_x", d.max_grid_x);
  read(j, "max_grid_y", d.max_grid_y);
  read(j, "l2_bytes", d.l2_bytes);
  read(j, "global_mem_bytes", d.global_mem_bytes);
  read(j, "clock_khz", d.clock_khz);
  read(j, "memory_clock_khz", d.memory_clock_khz);
  read(j, "memory_bus_width", d.memory_bus_width);
  read(j, "driver_version", d.driver_version);
  read(j, "runtime_version", d.runtime_version);
  read(j, "pci_bus_id", d.pci_bus_id);
  return d;
}

// Every field that changes what a sample means or when sampling stops: reuse of stored
// measurements compares this text, so two protocols are the same exactly when it is.
std::string policy_json(const TimingPolicy& p) {
  json j = {
      {"warmup", p.warmup},
      {"samples", p.samples},
      {"min_time_s", p.min_time_s},
      {"target_noise", p.target_noise},
      {"max_seconds_per_candidate", p.max_seconds_per_candidate},
      {"max_samples", p.max_samples},
      {"batch", p.batch},
      {"flush_l2", p.flush_l2},
      {"tolerance", p.tolerance},
      {"seed", p.seed},
      {"settle_ms", p.settle_ms},
      {"settle_timeout_ms", p.settle_timeout_ms},
      {"throttle_ratio", p.throttle_ratio},
      {"throttle_retries", p.throttle_retries},
      {"timer", p.timer},
  };
  return dump(j);
}

std::string strings_json(const std::vector<std::string>& values) { return dump(json(values)); }

std::string samples_json(const std::vector<double>& samples) { return json(samples).dump(); }

std::vector<double> samples_from_json(const std::string& text) {
  std::vector<double> samples;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return samples;
  for (const auto& value : j)
    if (value.is_number()) samples.push_back(value.get<double>());
  return samples;
}

}  // namespace occtune::db::codec
