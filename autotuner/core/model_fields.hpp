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
  X(throttle_ratio) X(throttle_retries) X(timer) X(flush_method)
#define OCCTUNE_CANDIDATE_FIELDS(X)                                                           \
  X(origin) X(step) X(suggested_block) X(block_limit) X(threads) X(tile) X(dynamic_smem)      \
  X(registers) X(active_blocks_per_sm) X(occupancy) X(limiter) X(grid_x) X(grid_y) X(grid_z)  \
  X(waves) X(rejection)
// A timing summary as JSON names it (unit in the name): the member and its key.
#define OCCTUNE_SUMMARY_FIELDS(X)                                                             \
  X(count, "count") X(min, "min_ms") X(q1, "q1_ms") X(median, "median_ms") X(q3, "q3_ms")     \
  X(max, "max_ms") X(mean, "mean_ms")

// A stored measurement (StoredMeasurement) is flat JSON except its timing: X(member, key, absent)
// where `absent` says which value is written as null (kZero: 0, kNegative: below 0, kEmpty: "").
// Its launch configuration, also written alone as the "config" of a lookup answer; "family"
// (from the run) and "params" (the label as an object of name -> integer) come with it.
#define OCCTUNE_CONFIG_FIELDS(X)                                                              \
  X(variant, "variant", kPlain) X(params, "label", kPlain) X(threads, "threads", kPlain)      \
  X(tile, "tile", kZero) X(dynamic_smem, "dynamic_smem", kPlain) X(grid_x, "grid_x", kPlain)  \
  X(grid_y, "grid_y", kPlain)
#define OCCTUNE_MEASUREMENT_FIELDS(X)                                                         \
  X(id, "id", kZero) X(run_id, "run_id", kZero) X(origin, "origin", kPlain)                   \
  X(step, "step", kPlain) X(suggested_block, "suggested_block", kPlain)                       \
  X(block_limit, "block_limit", kPlain) X(registers, "registers", kPlain)                     \
  X(active_blocks_per_sm, "active_blocks_per_sm", kPlain) X(occupancy, "occupancy", kPlain)   \
  X(limiter, "limiter", kPlain) X(waves, "waves", kPlain) X(outcome, "outcome", kPlain)       \
  X(error, "error", kPlain) X(rel_error, "rel_error", kNegative)                              \
  X(samples_ms, "samples_ms", kPlain) X(flops, "flops", kPlain) X(gflops, "gflops", kPlain)   \
  X(sm_clock_mhz, "sm_clock_mhz", kPlain) X(sm_clock_min_mhz, "sm_clock_min_mhz", kPlain)     \
  X(sm_clock_max_mhz, "sm_clock_max_mhz", kPlain) X(throttled, "throttled", kPlain)           \
  X(throttled_batches, "throttled_batches", kPlain) X(stop_reason, "stop_reason", kPlain)     \
  X(search_round, "search_round", kPlain) X(tie, "tie", kPlain) X(winner, "winner", kPlain)   \
  X(reused_from, "reused_from", kZero)
// Inside a measurement's "timing", beside OCCTUNE_SUMMARY_FIELDS of its summary.
#define OCCTUNE_MEASUREMENT_TIMING_FIELDS(X)                                                  \
  X(noise, "noise", kPlain) X(median_ci.low, "ci_low_ms", kPlain)                             \
  X(median_ci.high, "ci_high_ms", kPlain)

// A stored run (StoredRun): its cache key flat, the key's device as "device" (the names of
// OCCTUNE_DEVICE_KEY_FIELDS, checked in model_json.cpp), the reference as "cublas" (its summary
// as "timing"); argv and policy are written as JSON, not as the text the store keeps.
#define OCCTUNE_KEY_DEVICE_FIELDS(X)                                                          \
  X(device_uuid, "uuid", kPlain) X(device_name, "name", kPlain) X(cc_major, "cc_major", kPlain) \
  X(cc_minor, "cc_minor", kPlain) X(sm_count, "sm_count", kPlain)                             \
  X(driver_version, "driver_version", kPlain) X(runtime_version, "runtime_version", kPlain)
#define OCCTUNE_KEY_FIELDS(X)                                                                 \
  X(kernel, "kernel", kPlain) X(build_id, "build_id", kPlain) X(dtype, "dtype", kPlain)       \
  X(shape.m, "m", kPlain) X(shape.n, "n", kPlain) X(shape.k, "k", kPlain)                     \
  X(layout, "layout", kPlain)
#define OCCTUNE_RUN_FIELDS(X)                                                                 \
  X(id, "id", kZero) X(status, "status", kPlain) X(started_at, "started_at", kPlain)          \
  X(finished_at, "finished_at", kEmpty) X(tool_version, "tool_version", kPlain)               \
  X(strategy, "strategy", kPlain) X(reference_clock_mhz, "reference_clock_mhz", kPlain)
#define OCCTUNE_CUBLAS_FIELDS(X)                                                              \
  X(cublas_samples_ms, "samples_ms", kPlain) X(cublas_sm_clock_mhz, "sm_clock_mhz", kPlain)
// clang-format on
