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
#include "autotuner/core/error.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/measurement_sink.hpp"
#include "autotuner/core/records.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/check_history.hpp"

namespace SQLite {
class Database;
}

namespace occtune::db {

inline constexpr int kSchemaVersion = 6;
inline constexpr int kApplicationId = 0x4F43544E;  // "OCTN"

// The records the store keeps are the typed model of autotuner/core/records.hpp; these names
// are kept so db/ code and its callers read as before.
using occtune::BestEntry;
using occtune::CacheKey;
using occtune::CheckKeyRecord;
using occtune::CheckRecord;
using occtune::RunSearch;
using occtune::RunStart;
using occtune::RunStatus;
using occtune::StoredMeasurement;
using occtune::StoredRun;

// Thrown instead of a plain Error(kRuntime) by the reads the service uses (entries,
// device_records, data_version) when SQLite reports the file busy or locked, so a server can
// answer 503 with Retry-After rather than 500. The message is the same kind of one-liner.
class StoreBusy : public Error {
 public:
  explicit StoreBusy(const std::string& message) : Error(ExitCode::kRuntime, message) {}
};

// Which cached entries to read. An entry is a key whose newest complete run has a correct
// measurement: exactly what Store::best answers for that key. Unset fields match anything.
struct EntryQuery {
  enum class Order {
    kNewestMeasured,  // started_at, then run id, newest first: "the newest complete run"
    kRunId,           // run id, highest first: stable keyset pagination with before_run_id
  };
  std::optional<std::string> device_uuid;
  std::optional<std::string> device_name;
  std::optional<int> cc_major, cc_minor, sm_count, driver_version, runtime_version;
  std::optional<std::string> kernel, build_id, dtype;
  std::optional<Shape> shape;
  std::optional<std::string> layout;
  std::optional<CacheKey> excluding;  // leave out the entry of exactly this key
  std::int64_t before_run_id = 0;     // > 0: only keys whose newest complete run id is below it
  int limit = 100;                    // keys examined (a key without a correct result is skipped)
  Order order = Order::kNewestMeasured;
};

struct EntryPage {
  std::vector<BestEntry> entries;
  std::int64_t next_before_run_id = 0;  // pass as before_run_id for the next page; 0: no more
};

enum class OpenMode { kReadWrite, kReadOnly };

class Store final : public MeasurementSink, public RunHistory {
 public:
  // Opens (creating parent directories and the file in kReadWrite mode), applies the connection
  // pragmas and migrates. Throws Error: kRuntime for I/O problems (the message names the path
  // and the fix), kNotFound for a newer schema or a foreign file (application_id mismatch).
  static Store open(const std::filesystem::path& path, OpenMode mode = OpenMode::kReadWrite);
  static std::filesystem::path default_path();
  // A factory of new connections to the store at `path` (opened read-write), one per thread of
  // a multi-GPU tune (engine/multi_tune.hpp).
  static SinkFactory connections_to(const std::filesystem::path& path);  // $XDG_CACHE_HOME/occtune/occtune.db or ~/.cache/...

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  // Each write is its own BEGIN IMMEDIATE transaction; GPU work happens between them.
  std::int64_t begin_run(const RunStart& start, const RunSearch& search) override;
  std::int64_t begin_run(const RunStart& start) { return begin_run(start, RunSearch{}); }
  // Returns the new measurement's id.
  std::int64_t add_measurement(std::int64_t run_id, const Measurement& m) override;
  // Rewrites a stored measurement's outcome, timing and decision (more samples after a tie
  // was confirmed, the tie and winner marks). The candidate columns stay as stored.
  void update_measurement(std::int64_t measurement_id, const Measurement& m) override;
  void set_reference(std::int64_t run_id, const Timing& cublas) override;
  void finish_run(std::int64_t run_id, RunStatus status) override;

  std::optional<BestEntry> best(const CacheKey& key);
  std::vector<StoredMeasurement> measurements(std::int64_t run_id) override;
  // Measurements a new run of `key` may reuse instead of measuring again: `ok` rows of any run
  // (finished or not) with the same key and an identical protocol (policy JSON), that were
  // measured to their stopping rule, or -- under the same strategy -- left its race
  // (eliminated, dropped). The newest row per (variant, threads, dynamic_smem).
  std::vector<StoredMeasurement> reusable_measurements(const CacheKey& key,
                                                       const TimingPolicy& policy,
                                                       const std::string& strategy) override;
  std::vector<StoredRun> runs() override;          // newest first
  std::vector<DeviceInfo> devices();      // distinct device records, newest first
  // The history of `occtune check` (schema 4). record_check writes one check with its keys in
  // one transaction and returns its id; checks() reads them oldest first, all devices (empty
  // uuid) or one.
  std::int64_t record_check(const CheckRecord& check);
  std::vector<CheckRecord> checks(const std::string& device_uuid = {});
  // The newest device record with this UUID (query by UUID reads only the database).
  std::optional<DeviceInfo> device_by_uuid(const std::string& uuid);
  // Keys whose shape and kernel (any kernel when key.kernel is empty) match but whose other
  // fields differ, to explain a miss.
  std::vector<CacheKey> near_keys(const CacheKey& key);

  // Reads for the query service (db/lookup, autotuner/service). Each runs in one read snapshot
  // and throws StoreBusy when the file is busy or locked, Error(kRuntime) for other failures.
  // The entry of each matching key is exactly what best() answers for it.
  EntryPage entries(const EntryQuery& query);
  // Device records newest first, all of them (empty uuid) or those of one UUID; the first
  // record of a UUID is what device_by_uuid answers.
  std::vector<DeviceInfo> device_records(const std::string& uuid = {});
  // PRAGMA data_version: changes whenever another connection commits to the file, so a reader
  // can keep answers derived from the database until it changes.
  std::int64_t data_version();
  // How long a statement waits for a lock before failing (the default is 5 s).
  void set_busy_timeout(int milliseconds);

  const std::filesystem::path& path() const { return path_; }
  int schema_version();

 private:
  friend struct StoreAccess;  // db/exchange.cpp: export and import copy rows column by column
  Store(std::filesystem::path path, std::unique_ptr<SQLite::Database> database);
  std::filesystem::path path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace occtune::db
