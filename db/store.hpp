// The SQLite store (design.md section 6): devices, runs and every measured candidate, with the
// best configuration derived from them. One Store per connection; cheap to open.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/device_info.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"

namespace SQLite {
class Database;
}

namespace occtune::db {

inline constexpr int kSchemaVersion = 1;
inline constexpr int kApplicationId = 0x4F43544E;  // "OCTN"

// The complete cache key (design.md 1.2): a mismatch in any field is a miss.
struct CacheKey {
  std::string device_uuid;
  std::string device_name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;
  int runtime_version = 0;
  std::string kernel;        // family name, e.g. "tiled_dynamic"
  std::string build_id;      // kernels::kernel_build_id()
  std::string dtype = "f32";
  Shape shape;

  static CacheKey make(const DeviceInfo& device, std::string kernel, std::string build_id,
                       Shape shape, std::string dtype = "f32");
};

enum class RunStatus { kRunning, kComplete, kInterrupted, kFailed };
std::string_view to_string(RunStatus status);

struct RunStart {
  DeviceInfo device;         // full properties are kept as JSON on the device row
  std::string kernel;
  std::string build_id;
  std::string dtype = "f32";
  Shape shape;
  std::string tool_version;
  std::vector<std::string> argv;
  TimingPolicy policy;
};

// A stored measurement as read back.
struct StoredMeasurement {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string variant;       // manifest symbol
  std::string params;        // "tile=16"
  int threads = 0, tile = 0;
  std::int64_t dynamic_smem = 0;
  int registers = 0;
  int active_blocks_per_sm = 0;
  double occupancy = 0;
  std::string limiter;
  std::string origin;
  std::int64_t grid_x = 0, grid_y = 0;
  double waves = 0;
  std::string outcome;       // Outcome text
  std::string error;
  double rel_error = -1;
  Summary summary;
  std::vector<double> samples_ms;
  double gflops = 0;
  int sm_clock_mhz = 0;
};

struct StoredRun {
  std::int64_t id = 0;
  CacheKey key;
  std::string status;        // RunStatus text
  std::string started_at, finished_at;  // ISO 8601 UTC
  std::string tool_version;
  std::string argv_json;
  std::string policy_json;
  Summary cublas;            // the reference measured in the same run (count 0 if none)
};

// The best configuration for a key: the fastest `ok` measurement of the newest complete run.
struct BestEntry {
  StoredRun run;
  StoredMeasurement best;
  double ratio_to_cublas() const {
    return best.summary.median > 0 ? run.cublas.median / best.summary.median : 0.0;
  }
};

enum class OpenMode { kReadWrite, kReadOnly };

class Store {
 public:
  // Opens (creating parent directories and the file in kReadWrite mode), applies the connection
  // pragmas and migrates. Throws Error: kRuntime for I/O problems (the message names the path
  // and the fix), kNotFound for a newer schema or a foreign file (application_id mismatch).
  static Store open(const std::filesystem::path& path, OpenMode mode = OpenMode::kReadWrite);
  static std::filesystem::path default_path();  // $XDG_CACHE_HOME/occtune/occtune.db or ~/.cache/...

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  // Each write is its own BEGIN IMMEDIATE transaction; GPU work happens between them.
  std::int64_t begin_run(const RunStart& start);
  void add_measurement(std::int64_t run_id, const Measurement& m);
  void set_reference(std::int64_t run_id, const Timing& cublas);
  void finish_run(std::int64_t run_id, RunStatus status);

  std::optional<BestEntry> best(const CacheKey& key);
  std::vector<StoredMeasurement> measurements(std::int64_t run_id);
  std::vector<StoredRun> runs();          // newest first
  std::vector<DeviceInfo> devices();      // distinct device records, newest first
  // The newest device record with this UUID (query by UUID reads only the database).
  std::optional<DeviceInfo> device_by_uuid(const std::string& uuid);
  // Keys whose shape and kernel match but whose other fields differ, to explain a miss.
  std::vector<CacheKey> near_keys(const CacheKey& key);

  const std::filesystem::path& path() const { return path_; }
  int schema_version();

 private:
  Store(std::filesystem::path path, std::unique_ptr<SQLite::Database> database);
  std::filesystem::path path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace occtune::db
