// The field lists of the typed model: one list per type, in the order encoders write them. The
// JSON codec (autotuner/core/model_json.hpp) expands them for every encoder and decoder, so the
// worker protocol, the store's property columns, export, the CLI's JSON and the service cannot
// drift apart in field names. When a struct gains a field, the size checks in model_json.cpp fail
// the build until the field is listed here.
#pragma once

// clang-format off
#define OCCTUNE_DEVICE_FIELDS(X)                                                              \
  X(index) X(uuid) X(name) X(source) X(cc_major) X(cc_minor) X(sm_count) X(warp_size)         \
  X(max_threads_per_block) X(max_threads_per_sm) X(max_blocks_per_sm) X(regs_per_block)       \
  X(regs_per_sm) X(shared_mem_per_block) X(shared_mem_per_block_optin) X(shared_mem_per_sm)   \
  X(reserved_shared_mem_per_block) X(max_grid_x) X(max_grid_y) X(l2_bytes)                    \
  X(global_mem_bytes) X(clock_khz) X(memory_clock_khz) X(memory_bus_width) X(driver_version)  \
  X(runtime_version) X(pci_bus_id)
// The fields of a device that are part of the cache key (design.md 1.2).
#define OCCTUNE_DEVICE_KEY_FIELDS(X)                                                          \
  X(uuid) X(name) X(cc_major) X(cc_minor) X(sm_count) X(driver_version) X(runtime_version)
#define OCCTUNE_POLICY_FIELDS(X)                                                              \
  X(warmup) X(samples) X(min_time_s) X(target_noise) X(max_seconds_per_candidate)             \
  X(max_samples) X(batch) X(flush_l2) X(tolerance) X(seed) X(settle_ms) X(settle_timeout_ms)  \
  X(throttle_ratio) X(throttle_retries) X(timer)
#define OCCTUNE_CANDIDATE_FIELDS(X)                                                           \
  X(origin) X(step) X(suggested_block) X(block_limit) X(threads) X(tile) X(dynamic_smem)      \
  X(registers) X(active_blocks_per_sm) X(occupancy) X(limiter) X(grid_x) X(grid_y) X(grid_z)  \
  X(waves) X(rejection)
// A timing summary as JSON names it (unit in the name): the member and its key.
#define OCCTUNE_SUMMARY_FIELDS(X)                                                             \
  X(count, "count") X(min, "min_ms") X(q1, "q1_ms") X(median, "median_ms") X(q3, "q3_ms")     \
  X(max, "max_ms") X(mean, "mean_ms")
// clang-format on
