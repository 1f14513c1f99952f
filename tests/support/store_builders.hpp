// Small builders for tests that write runs into a store (robustness, stress, CLI): a device,
// a run start, an ok measurement, a temporary directory, and raw file helpers for damaging a
// database on purpose. Header-only; no gtest here so forked children may use it.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "autotuner/core/stats.hpp"
#include "db/store.hpp"
#include "kernels/registry.hpp"

namespace occtune::testing {

inline DeviceInfo fake_device() {
  DeviceInfo d;
  d.uuid = "GPU-00000000-robu-stne-ss00-000000000000";
  d.name = "NVIDIA H100 80GB HBM3";
  d.source = "runtime";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

inline const kernels::VariantInfo& fake_variant() {
  static const kernels::VariantInfo variant = [] {
    kernels::VariantInfo v;
    v.family = "tiled_dynamic";
    v.symbol = "TiledDynamic<16>";
    v.params = {{"tile", 16}};
    v.block_x = v.block_y = 16;
    v.tile_m = v.tile_n = 16;
    v.dynamic_smem = 2 * 16 * 16 * 4;
    return v;
  }();
  return variant;
}

inline db::RunStart fake_run_start(Shape shape = Shape{256, 256, 256}) {
  db::RunStart s;
  s.device = fake_device();
  s.kernel = "tiled_dynamic";
  s.build_id = "build-robustness";
  s.shape = shape;
  s.tool_version = "0.0.0-test";
  s.argv = {"occtune", "tune"};
  return s;
}

inline db::CacheKey fake_key(Shape shape = Shape{256, 256, 256}) {
  const db::RunStart s = fake_run_start(shape);
  return db::CacheKey::make(s.device, s.kernel, s.build_id, s.shape, s.dtype, s.layout);
}

inline Measurement fake_measurement(double median_ms) {
  Measurement m;
  m.candidate.variant = &fake_variant();
  m.candidate.origin = "test";
  m.candidate.threads = 256;
  m.candidate.tile = 16;
  m.candidate.dynamic_smem = 2048;
  m.candidate.limiter = "warps";
  m.outcome = Outcome::kOk;
  m.flops = 2.0 * 256 * 256 * 256;
  m.rel_error = 1e-7;
  m.timing.samples_ms = {median_ms, median_ms * 1.01, median_ms * 0.99};
  m.timing.summary = summarize(m.timing.samples_ms);
  return m;
}

inline Timing fake_timing(double median_ms) {
  Timing t;
  t.samples_ms = {median_ms, median_ms};
  t.summary = summarize(t.samples_ms);
  return t;
}

// One complete run with `measurements` ok candidates; returns its id.
inline std::int64_t write_complete_run(db::Store& store, int measurements = 3,
                                       double fastest_ms = 1.0) {
  const auto id = store.begin_run(fake_run_start());
  store.set_reference(id, fake_timing(0.5));
  for (int i = 0; i < measurements; ++i)
    store.add_measurement(id, fake_measurement(fastest_ms * (1 + i)));
  store.finish_run(id, db::RunStatus::kComplete);
  return id;
}

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    std::random_device random;
    path = std::filesystem::temp_directory_path() /
           ("occtune-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes,
                        std::uintmax_t offset = 0) {
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  out.seekp(static_cast<std::streamoff>(offset));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Files in `dir` whose name contains `part`.
inline std::vector<std::filesystem::path> files_containing(const std::filesystem::path& dir,
                                                           const std::string& part) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find(part) != std::string::npos)
      out.push_back(entry.path());
  return out;
}

}  // namespace occtune::testing
