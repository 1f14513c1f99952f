// The SQLite store: opening (pragmas, compatibility checks, migration, damaged files, abandoned
// runs), the write transactions of a tuning run, and the lookups that derive the best
// configuration from stored measurements. SQLite errors are turned into occtune::Error here,
// naming the database path and the fix.
#include "db/store.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include "autotuner/core/error.hpp"
#include "db/codec.hpp"
#include "db/doctor.hpp"
#include "db/file_probe.hpp"
#include "db/read_access.hpp"
#include "db/recovery.hpp"
#include "db/retry.hpp"
#include "db/run_owner.hpp"
#include "db/schema.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = kDefaultBusyTimeoutMs;
// Evaluated by SQLite so every writer stamps with the same clock and format.
constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

[[noreturn]] void cannot_open(const fs::path& path, const std::string& reason) {
  fail(ExitCode::kRuntime,
       fmt::format("cannot open database '{}': {}; pass --db with a writable file path or set "
                   "OCCTUNE_DB",
                   path.string(), reason));
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

std::string sqlite_reason(const SQLite::Exception& e) {
  switch (e.getErrorCode()) {
    case SQLITE_NOTADB:
      return "the file is not an SQLite database";
    case SQLITE_CORRUPT:
      return "the database file is corrupt";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format("the database is locked by another process (waited up to {} ms)",
                         kBusyTimeoutMs);
    case SQLITE_READONLY:
      return "the database is read-only";
    case SQLITE_FULL:
      return "the disk is full";
    default:
      return one_line(e.what());
  }
}

std::string_view sqlite_hint(const SQLite::Exception& e) {
  switch (e.getErrorCode()) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "retry when the other occtune process is done, or pass --db with another path";
    case SQLITE_READONLY:
      return "open it for writing, or pass --db with a writable file path";
    case SQLITE_FULL:
      return "free disk space, or pass --db with a path on another disk";
    default:
      return "check the file and its directory, or pass --db with another path or set "
             "OCCTUNE_DB";
  }
}

[[noreturn]] void io_failure(const fs::path& path, std::string_view what,
                             const SQLite::Exception& e) {
  const std::string hint =
      is_damage(e) ? fmt::format(
                         "run `occtune db doctor --db {} --repair` to move it aside and "
                         "start a fresh store",
                         path.string())
                   : std::string(sqlite_hint(e));
  fail(ExitCode::kRuntime, fmt::format("database '{}': {} failed: {}; {}", path.string(), what,
                                       sqlite_reason(e), hint));
}

[[noreturn]] void no_such_run(const fs::path& path, std::int64_t run_id) {
  fail(ExitCode::kNotFound,
       fmt::format("no run with id {} in database '{}'; start the run with begin_run first", run_id,
                   path.string()));
}

// Runs `body` in one transaction and maps SQLite errors to Error(kRuntime). The transaction
// rolls back on any exception, so a failed operation leaves the database as it was. Writers take
// the lock up front (IMMEDIATE): a deferred writer that has to upgrade its lock gets SQLITE_BUSY
// without the busy handler being consulted. A transaction that still fails with SQLITE_BUSY
// after the busy timeout is retried whole (db/retry.hpp), so `body` may run more than once and
// must build its result inside.
template <typename Body>
auto in_transaction(SQLite::Database& db, const fs::path& path, std::string_view what,
                    SQLite::TransactionBehavior behavior, Body&& body) -> decltype(body()) {
  try {
    return with_busy_retry(BusyRetry{}, [&]() -> decltype(body()) {
      SQLite::Transaction transaction(db, behavior);
      if constexpr (std::is_void_v<decltype(body())>) {
        body();
        transaction.commit();
      } else {
        auto result = body();
        transaction.commit();
        return result;
      }
    });
  } catch (const SQLite::Exception& e) {
    io_failure(path, what, e);
  }
}

template <typename Body>
auto write_transaction(SQLite::Database& db, const fs::path& path, std::string_view what,
                       Body&& body) {
  return in_transaction(db, path, what, SQLite::TransactionBehavior::IMMEDIATE,
                        std::forward<Body>(body));
}

// Reads that take several statements see one snapshot.
template <typename Body>
auto read_snapshot(SQLite::Database& db, const fs::path& path, std::string_view what, Body&& body) {
  return in_transaction(db, path, what, SQLite::TransactionBehavior::DEFERRED,
                        std::forward<Body>(body));
}

// Binds parameters in order, so column lists and values cannot drift apart by index.
class Binder {
 public:
  explicit Binder(SQLite::Statement& statement) : statement_(statement) {}
  Binder& operator()(int value) { return bind(value); }
  Binder& operator()(std::int64_t value) { return bind(value); }
  Binder& operator()(std::size_t value) { return bind(static_cast<std::int64_t>(value)); }
  Binder& operator()(double value) { return bind(value); }
  Binder& operator()(const std::string& value) { return bind(value); }
  Binder& operator()(std::string_view value) { return bind(std::string(value)); }
  Binder& null() {
    statement_.bind(++index_);
    return *this;
  }

 private:
  template <typename T>
  Binder& bind(const T& value) {
    statement_.bind(++index_, value);
    return *this;
  }
  SQLite::Statement& statement_;
  int index_ = 0;
};

// Reads columns in order; NULL reads as 0 or "".
class Row {
 public:
  explicit Row(SQLite::Statement& statement) : statement_(statement) {}
  int next_int() { return statement_.getColumn(index_++).getInt(); }
  std::int64_t next_int64() { return statement_.getColumn(index_++).getInt64(); }
  double next_double() { return statement_.getColumn(index_++).getDouble(); }
  std::string next_string() { return statement_.getColumn(index_++).getString(); }
  bool next_is_null() const { return statement_.getColumn(index_).isNull(); }

 private:
  SQLite::Statement& statement_;
  int index_ = 0;
};

constexpr const char* kKeyWhere =
    "d.uuid = ? AND d.name = ? AND d.cc_major = ? AND d.cc_minor = ? AND d.sm_count = ? AND "
    "d.driver_version = ? AND d.runtime_version = ? AND r.kernel = ? AND r.build_id = ? AND "
    "r.dtype = ? AND r.m = ? AND r.n = ? AND r.k = ? AND r.layout = ?";

void bind_key(Binder& bind, const CacheKey& key) {
  bind(key.device_uuid)(key.device_name)(key.cc_major)(key.cc_minor)(key.sm_count)(
      key.driver_version)(key.runtime_version)(key.kernel)(key.build_id)(key.dtype)(key.shape.m)(
      key.shape.n)(key.shape.k)(key.layout);
}

constexpr const char* kRunColumns =
    "r.id, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
    "d.runtime_version, r.kernel, r.build_id, r.dtype, r.m, r.n, r.k, r.layout, r.status, "
    "r.started_at, "
    "r.finished_at, r.tool_version, r.argv_json, r.policy_json, r.cublas_count, r.cublas_min_ms, "
    "r.cublas_q1_ms, r.cublas_median_ms, r.cublas_q3_ms, r.cublas_max_ms, r.cublas_mean_ms, "
    "r.strategy, r.reference_clock_mhz";

// The cache-key columns, in the order every key-selecting query lists them.
CacheKey read_key(Row& row) {
  CacheKey key;
  key.device_uuid = row.next_string();
  key.device_name = row.next_string();
  key.cc_major = row.next_int();
  key.cc_minor = row.next_int();
  key.sm_count = row.next_int();
  key.driver_version = row.next_int();
  key.runtime_version = row.next_int();
  key.kernel = row.next_string();
  key.build_id = row.next_string();
  key.dtype = row.next_string();
  key.shape.m = row.next_int64();
  key.shape.n = row.next_int64();
  key.shape.k = row.next_int64();
  key.layout = row.next_string();
  return key;
}

StoredRun read_run(SQLite::Statement& statement) {
  Row row(statement);
  StoredRun run;
  run.id = row.next_int64();
  run.key = read_key(row);
  run.status = row.next_string();
  run.started_at = row.next_string();
  run.finished_at = row.next_string();
  run.tool_version = row.next_string();
  run.argv_json = row.next_string();
  run.policy_json = row.next_string();
  run.cublas.count = static_cast<std::size_t>(row.next_int64());
  run.cublas.min = row.next_double();
  run.cublas.q1 = row.next_double();
  run.cublas.median = row.next_double();
  run.cublas.q3 = row.next_double();
  run.cublas.max = row.next_double();
  run.cublas.mean = row.next_double();
  run.strategy = row.next_string();
  run.reference_clock_mhz = row.next_int();
  return run;
}

constexpr const char* kMeasurementColumns =
    "id, run_id, variant, params, threads, tile, dynamic_smem, registers, active_blocks_per_sm, "
    "occupancy, limiter, origin, grid_x, grid_y, waves, outcome, error, rejection, rel_error, "
    "sample_count, min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, samples_json, gflops, "
    "sm_clock_mhz, noise, ci_low_ms, ci_high_ms, sm_clock_min_mhz, sm_clock_max_mhz, throttled, "
    "throttled_batches, stop_reason, search_round, tie, winner, reused_from, step";

StoredMeasurement read_measurement(SQLite::Statement& statement) {
  Row row(statement);
  StoredMeasurement m;
  m.id = row.next_int64();
  m.run_id = row.next_int64();
  m.variant = row.next_string();
  m.params = row.next_string();
  m.threads = row.next_int();
  m.tile = row.next_int();
  m.dynamic_smem = row.next_int64();
  m.registers = row.next_int();
  m.active_blocks_per_sm = row.next_int();
  m.occupancy = row.next_double();
  m.limiter = row.next_string();
  m.origin = row.next_string();
  m.grid_x = row.next_int64();
  m.grid_y = row.next_int64();
  m.waves = row.next_double();
  m.outcome = row.next_string();
  m.error = row.next_string();
  // A candidate refused before launch carries its reason as the rejection; readers see one
  // "why it did not run" text either way.
  std::string rejection = row.next_string();
  if (m.error.empty()) m.error = std::move(rejection);
  const bool unchecked = row.next_is_null();
  const double rel_error = row.next_double();
  m.rel_error = unchecked ? -1.0 : rel_error;
  m.summary.count = static_cast<std::size_t>(row.next_int64());
  m.summary.min = row.next_double();
  m.summary.q1 = row.next_double();
  m.summary.median = row.next_double();
  m.summary.q3 = row.next_double();
  m.summary.max = row.next_double();
  m.summary.mean = row.next_double();
  m.samples_ms = codec::samples_from_json(row.next_string());
  m.gflops = row.next_double();
  m.sm_clock_mhz = row.next_int();
  m.noise = row.next_double();
  m.median_ci.low = row.next_double();
  m.median_ci.high = row.next_double();
  m.sm_clock_min_mhz = row.next_int();
  m.sm_clock_max_mhz = row.next_int();
  m.throttled = row.next_int() != 0;
  m.throttled_batches = row.next_int();
  m.stop_reason = row.next_string();
  m.search_round = row.next_int();
  m.tie = row.next_int() != 0;
  m.winner = row.next_int() != 0;
  m.reused_from = row.next_int64();
  m.step = row.next_int();
  return m;
}

// What a measurement says about its result, as opposed to which candidate it is: the part that
// update_measurement() may rewrite. Bound by bind_result() in this order.
constexpr const char* kResultColumns =
    "outcome, error, rel_error, sample_count, min_ms, q1_ms, median_ms, q3_ms, max_ms, mean_ms, "
    "samples_json, flops, gflops, sm_clock_mhz, noise, ci_low_ms, ci_high_ms, sm_clock_min_mhz, "
    "sm_clock_max_mhz, throttled, throttled_batches, stop_reason, search_round, tie, winner, "
    "reused_from";
constexpr const char* kResultPlaceholders =
    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";

void bind_result(Binder& bind, const Measurement& m) {
  const Timing& t = m.timing;
  const Summary& s = t.summary;
  bind(to_string(m.outcome))(m.error);
  if (m.rel_error < 0) {
    bind.null();
  } else {
    bind(m.rel_error);
  }
  bind(s.count)(s.min)(s.q1)(s.median)(s.q3)(s.max)(s.mean)(codec::samples_json(t.samples_ms))(
      m.flops)(m.gflops())(t.sm_clock_mhz)(t.noise)(t.median_ci.low)(t.median_ci.high)(
      t.sm_clock_min_mhz)(t.sm_clock_max_mhz)(t.throttled ? 1 : 0)(t.throttled_batches)(
      to_string(t.stop))(m.search_round)(m.tie ? 1 : 0)(m.winner ? 1 : 0);
  if (m.reused_from > 0) {
    bind(m.reused_from);
  } else {
    bind.null();
  }
}

constexpr const char* kDeviceColumns =
    "d.properties_json, d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
    "d.runtime_version";
// Newest = most recently used by a run; run ids only grow (AUTOINCREMENT), timestamps can tie.
constexpr const char* kDeviceOrder =
    "ORDER BY (SELECT MAX(r.id) FROM runs r WHERE r.device_id = d.id) DESC, d.id DESC";

DeviceInfo read_device(SQLite::Statement& statement) {
  Row row(statement);
  DeviceInfo device = codec::device_from_json(row.next_string());
  // The key columns are authoritative: they are what lookups match on.
  device.uuid = row.next_string();
  device.name = row.next_string();
  device.cc_major = row.next_int();
  device.cc_minor = row.next_int();
  device.sm_count = row.next_int();
  device.driver_version = row.next_int();
  device.runtime_version = row.next_int();
  return device;
}

bool same_key(const CacheKey& a, const CacheKey& b) {
  return a.device_uuid == b.device_uuid && a.device_name == b.device_name &&
         a.cc_major == b.cc_major && a.cc_minor == b.cc_minor && a.sm_count == b.sm_count &&
         a.driver_version == b.driver_version && a.runtime_version == b.runtime_version &&
         a.kernel == b.kernel && a.build_id == b.build_id && a.dtype == b.dtype &&
         a.shape == b.shape && a.layout == b.layout;
}

// Checked before SQLite sees the path so the message says what is wrong and nothing is created
// in the wrong place.
void check_writable_location(const fs::path& path, bool exists) {
  fs::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (status.type() == fs::file_type::not_found) {
    fs::create_directories(dir, ec);
    if (ec) {
      cannot_open(path,
                  fmt::format("cannot create directory '{}': {}", dir.string(), ec.message()));
    }
  } else if (ec) {
    cannot_open(path, fmt::format("cannot access directory '{}': {}", dir.string(), ec.message()));
  } else if (!fs::is_directory(status)) {
    cannot_open(path, fmt::format("'{}' is not a directory", dir.string()));
  }
  // ENOENT: the file was moved aside (a damaged store being replaced) since it was seen; the
  // directory check below is then the one that matters.
  if (exists && ::access(path.c_str(), W_OK) != 0 && errno != ENOENT) {
    cannot_open(
        path, fmt::format("the file is not writable ({})", std::generic_category().message(errno)));
  }
  // SQLite keeps its -wal and -shm files next to the database, so the directory must be
  // writable even when the file already exists.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    cannot_open(path, fmt::format("directory '{}' is not writable ({})", dir.string(),
                                  std::generic_category().message(errno)));
  }
}

// Switching to WAL reads the header and then upgrades to a write lock inside one statement. When
// another connection is switching or creating the schema at the same moment, SQLite reports
// SQLITE_BUSY at once instead of waiting (waiting could deadlock), so the switch is retried here
// for as long as the busy timeout would have waited. WAL is persistent in the file; a file system
// without shared memory keeps the old mode, which is slower under concurrency but still correct,
// so the answer is not checked.
void switch_to_wal(SQLite::Database& db) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      db.execAndGet("PRAGMA journal_mode = WAL");
      return;
    } catch (const SQLite::Exception& e) {
      const bool busy = e.getErrorCode() == SQLITE_BUSY || e.getErrorCode() == SQLITE_LOCKED;
      if (!busy || std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Runs left 'running' by processes that no longer exist (SIGKILL, a crash, a reboot) would stay
// 'running' for ever: they are marked 'interrupted' here, so every run of a dead writer ends in
// a final state. Runs of live processes, other hosts and unknown owners are left alone. The
// check is a read of a partial index; the write lock is taken only when there is work.
void interrupt_abandoned_runs(SQLite::Database& db, const fs::path& path) {
  auto abandoned = [&] {
    std::vector<owner::RunningRun> out;
    for (auto& run : owner::running_runs(db))
      if (run.liveness == owner::Liveness::kDead) out.push_back(std::move(run));
    return out;
  };
  const bool any = with_busy_retry(BusyRetry{}, [&] {
    SQLite::Transaction snapshot(db);
    const bool found = !abandoned().empty();
    snapshot.commit();
    return found;
  });
  if (!any) return;
  const auto marked = with_busy_retry(BusyRetry{}, [&] {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    auto runs = abandoned();  // again, under the write lock
    std::vector<std::int64_t> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    owner::mark_interrupted(db, ids);
    transaction.commit();
    return runs;
  });
  for (const auto& run : marked) {
    spdlog::info(
        "database '{}': run {} ({}, started {}) was left 'running' and {}; marked it "
        "'interrupted' (its measurements are kept, it is never used as the best)",
        path.string(), run.id, run.kernel, run.started_at, run.why);
  }
}

// SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB) while opening it. Store::open
// decides what to do about it, since that depends on the mode and on whose file it is.
struct Damaged {
  std::string reason;
};

// The connection as Store::open makes it: pragmas, compatibility checks, migration, WAL and
// abandoned runs, in that order, so a refused file is left byte-for-byte untouched.
std::unique_ptr<SQLite::Database> connect(const fs::path& path, bool writable, bool memory) {
  std::unique_ptr<SQLite::Database> db;
  const char* stage = "opening the file";  // named in the message: locks differ per step
  try {
    if (writable) {
      db = std::make_unique<SQLite::Database>(
          path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
    } else {
      // Immutable where no writer can exist (db/read_access.hpp): a store in a read-only
      // directory is readable although SQLite could not create its -shm there.
      const ReadOnlyOpen ro = read_only_open(path);
      db = std::make_unique<SQLite::Database>(ro.filename, ro.flags, kBusyTimeoutMs);
    }
    // SQLite silently falls back to read-only when it may not write the file.
    if (writable && sqlite3_db_readonly(db->getHandle(), "main") == 1) {
      cannot_open(path, "the file is not writable");
    }
    db->exec("PRAGMA foreign_keys = ON");
    db->exec("PRAGMA synchronous = NORMAL");
    stage = "reading the header";
    const schema::FileState state = with_busy_retry(BusyRetry{}, [&] {
      SQLite::Transaction snapshot(*db);  // the header and the table list from one moment
      const schema::FileState inspected = schema::inspect(*db);
      snapshot.commit();
      return inspected;
    });
    // Everything that can refuse the file runs before the first write, so a refused file stays
    // byte-for-byte untouched.
    schema::check_compatible(state, path, writable ? OpenMode::kReadWrite : OpenMode::kReadOnly);
    if (writable && state.user_version < kSchemaVersion) {
      stage = "migrating the schema";
      with_busy_retry(BusyRetry{}, [&] { schema::migrate(*db, path); });
    }
    if (writable && !memory) {
      stage = "switching to WAL";
      with_busy_retry(BusyRetry{}, [&] { switch_to_wal(*db); });
      stage = "checking for abandoned runs";
      interrupt_abandoned_runs(*db, path);
    }
  } catch (const SQLite::Exception& e) {
    if (is_damage(e)) throw Damaged{fmt::format("{} while {}", sqlite_reason(e), stage)};
    cannot_open(path, fmt::format("{} while {}", sqlite_reason(e), stage));
  }
  return db;
}

// (device, inode) of the file at `path`, nullopt when there is none.
std::optional<std::pair<dev_t, ino_t>> file_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

// Only files that are recognisably ours are ever moved: the application_id in the header says
// so even when SQLite cannot read the header any more. Anything else is left as it is.
[[noreturn]] void refuse_damaged_foreign_file(const fs::path& path, const Damaged& damage) {
  const auto header = probe::read_header(path);
  if (header && !header->sqlite_magic) {
    cannot_open(path,
                "the file is not an SQLite database (nor an occtune one), so occtune "
                "leaves it untouched");
  }
  cannot_open(path, fmt::format("{}, and the file is not recognisably an occtune database, so "
                                "occtune leaves it untouched",
                                damage.reason));
}

}  // namespace

Store::Store(std::filesystem::path path, std::unique_ptr<SQLite::Database> database)
    : path_(std::move(path)), db_(std::move(database)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

std::filesystem::path Store::default_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec says a relative value is invalid and must be ignored.
  if (xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()) {
    return fs::path(xdg) / "occtune" / "occtune.db";
  }
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "occtune" / "occtune.db";
  // No HOME (some service managers): a relative path still names a usable file.
  return fs::path(".cache") / "occtune" / "occtune.db";
}

Store Store::open(const std::filesystem::path& path, OpenMode mode) {
  const bool memory = path.native() == ":memory:";
  // An in-memory database starts empty, so it is always opened for writing and given the schema.
  const bool writable = memory || mode == OpenMode::kReadWrite;
  if (path.empty()) cannot_open(path, "the path is empty");

  if (!memory) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    const bool exists = fs::exists(status);
    if (!exists && status.type() != fs::file_type::not_found && ec) {
      cannot_open(path, ec.message());
    }
    if (fs::is_directory(status)) cannot_open(path, "it is a directory");
    // SQLite would block for ever opening a FIFO (and a device is never a store).
    if (exists && !fs::is_regular_file(status))
      cannot_open(path, "it is not a regular file (a FIFO, socket or device)");
    if (!writable && !exists) {
      fail(
          ExitCode::kNotFound,
          fmt::format("no database at '{}'; run `occtune tune` first or pass --db", path.string()));
    }
    if (const auto type = probe::filesystem_type(path)) {
      if (const auto name =
              probe::check_local_filesystem(path, *type, probe::network_filesystem_allowed())) {
        spdlog::warn(
            "database '{}' is on a network filesystem ({}); used because "
            "OCCTUNE_ALLOW_NETWORK_FS=1: run one occtune process at a time on it",
            path.string(), *name);
      }
    }
    if (writable) check_writable_location(path, exists);
  }

  // SQLite never gets to open a file whose header it cannot read: closing such a connection
  // deletes the file's -wal, which may hold the newest committed runs.
  auto open_once = [&] {
    if (!memory) {
      const auto header = probe::read_header(path);
      if (header && header->file_size > 0 && !header->sqlite_magic)
        throw Damaged{"its SQLite header is unreadable"};
    }
    return Store(path, connect(path, writable, memory));
  };
  // Which file the damage was seen in: a concurrent opener may move it aside and start a fresh
  // store at the same path between our look and our verdict, and that new file (still empty,
  // or not yet stamped with our application_id) must be opened, not judged.
  const auto identity_before = file_identity(path);
  try {
    return open_once();
  } catch (const Damaged& damage) {
    const auto header = probe::read_header(path);
    // Looked at after the header, so a header read from a replacement is never judged.
    const bool replaced = !memory && file_identity(path) != identity_before;
    if (replaced) {
      // fall through to the second attempt below
    } else if (!header || !header->occtune_id) {
      refuse_damaged_foreign_file(path, damage);
    } else {
      if (!writable) {
        fail(ExitCode::kRuntime,
             fmt::format("database '{}' is damaged ({}); nothing was changed; run `occtune db "
                         "doctor --db {} --repair` to move it aside and start a fresh store",
                         path.string(), damage.reason, path.string()));
      }
      // The check is repeated under the recovery lock: another process may have replaced the
      // file with a fresh store in the meantime, which must not be moved.
      const auto moved = recovery::move_aside(
          path, [&] { return !integrity_problems(path, /*full=*/false, 1).empty(); });
      if (moved) {
        spdlog::warn(
            "database '{}' was damaged ({}); moved {} and started a fresh store there; "
            "the old measurements may be recoverable with `sqlite3 {} .recover`",
            path.string(), damage.reason, moved->describe(), moved->main().string());
      }
    }
  }
  try {
    return open_once();
  } catch (const Damaged& damage) {
    fail(ExitCode::kRuntime,
         fmt::format("database '{}' is still damaged after moving it aside ({}); run `occtune db "
                     "doctor --db {}` and move the file away by hand",
                     path.string(), damage.reason, path.string()));
  }
}

std::int64_t Store::begin_run(const RunStart& start, const RunSearch& search) {
  return write_transaction(*db_, path_, "starting a run", [&] {
    std::int64_t device_id = 0;
    {
      SQLite::Statement upsert(
          *db_, fmt::format("INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, "
                            "driver_version, runtime_version, properties_json, first_seen_at, "
                            "last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, {0}, {0}) "
                            "ON CONFLICT (uuid, name, cc_major, cc_minor, sm_count, "
                            "driver_version, runtime_version) DO UPDATE SET "
                            "properties_json = excluded.properties_json, "
                            "last_seen_at = excluded.last_seen_at RETURNING id",
                            kNow));
      const DeviceInfo& d = start.device;
      Binder{upsert}(d.uuid)(d.name)(d.cc_major)(d.cc_minor)(d.sm_count)(d.driver_version)(
          d.runtime_version)(codec::device_json(d));
      upsert.executeStep();
      device_id = upsert.getColumn(0).getInt64();
    }
    SQLite::Statement insert(
        *db_, fmt::format("INSERT INTO runs (device_id, kernel, build_id, dtype, m, n, k, layout, "
                          "status, started_at, tool_version, argv_json, policy_json, strategy, "
                          "reference_clock_mhz) VALUES "
                          "(?, ?, ?, ?, ?, ?, ?, ?, 'running', {}, ?, ?, ?, ?, ?)",
                          kNow));
    Binder{insert}(device_id)(start.kernel)(start.build_id)(start.dtype)(start.shape.m)(
        start.shape.n)(start.shape.k)(start.layout)(start.tool_version)(
        codec::strings_json(start.argv))(codec::policy_json(start.policy))(search.strategy)(
        search.reference_clock_mhz);
    insert.exec();
    const std::int64_t run_id = db_->getLastInsertRowid();
    owner::stamp(*db_, run_id);  // lets a later open tell an abandoned run from a live one
    return run_id;
  });
}

std::int64_t Store::add_measurement(std::int64_t run_id, const Measurement& m) {
  return write_transaction(*db_, path_, "storing a measurement", [&] {
    SQLite::Statement insert(
        *db_,
        fmt::format("INSERT INTO measurements (run_id, variant, params, origin, step, "
                    "suggested_block, block_limit, threads, tile, dynamic_smem, registers, "
                    "active_blocks_per_sm, occupancy, limiter, grid_x, grid_y, waves, rejection, "
                    "{}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {})",
                    kResultColumns, kResultPlaceholders));
    const Candidate& c = m.candidate;
    const std::string symbol = c.variant ? c.variant->symbol : std::string();
    const std::string params = c.variant ? c.variant->label() : std::string();
    Binder bind(insert);
    bind(run_id)(symbol)(params)(c.origin)(c.step)(c.suggested_block)(c.block_limit);
    bind(c.threads)(c.tile)(c.dynamic_smem)(c.registers)(c.active_blocks_per_sm)(c.occupancy);
    bind(c.limiter)(c.grid_x)(c.grid_y)(c.waves)(c.rejection);
    bind_result(bind, m);
    try {
      insert.exec();
    } catch (const SQLite::Exception& e) {
      if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_FOREIGNKEY) no_such_run(path_, run_id);
      throw;
    }
    return db_->getLastInsertRowid();
  });
}

void Store::update_measurement(std::int64_t measurement_id, const Measurement& m) {
  write_transaction(*db_, path_, "updating a measurement", [&] {
    std::string set;
    for (std::string_view rest = kResultColumns; !rest.empty();) {
      const auto comma = rest.find(',');
      std::string_view column = rest.substr(0, comma);
      while (!column.empty() && column.front() == ' ') column.remove_prefix(1);
      set += fmt::format("{}{} = ?", set.empty() ? "" : ", ", column);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    SQLite::Statement update(*db_, fmt::format("UPDATE measurements SET {} WHERE id = ?", set));
    Binder bind(update);
    bind_result(bind, m);
    bind(measurement_id);
    if (update.exec() == 0)
      fail(ExitCode::kNotFound, fmt::format("no measurement with id {} in database '{}'",
                                            measurement_id, path_.string()));
  });
}

void Store::set_reference(std::int64_t run_id, const Timing& cublas) {
  write_transaction(*db_, path_, "storing the cuBLAS reference", [&] {
    SQLite::Statement update(
        *db_,
        "UPDATE runs SET cublas_count = ?, cublas_min_ms = ?, cublas_q1_ms = ?, "
        "cublas_median_ms = ?, cublas_q3_ms = ?, cublas_max_ms = ?, cublas_mean_ms = ?, "
        "cublas_samples_json = ?, cublas_sm_clock_mhz = ? WHERE id = ?");
    const Summary& s = cublas.summary;
    Binder{update}(s.count)(s.min)(s.q1)(s.median)(s.q3)(s.max)(s.mean)(
        codec::samples_json(cublas.samples_ms))(cublas.sm_clock_mhz)(run_id);
    if (update.exec() == 0) no_such_run(path_, run_id);
  });
}

void Store::finish_run(std::int64_t run_id, RunStatus status) {
  write_transaction(*db_, path_, "finishing a run", [&] {
    SQLite::Statement update(
        *db_, fmt::format("UPDATE runs SET status = ?1, finished_at = CASE WHEN ?1 = 'running' "
                          "THEN NULL ELSE {} END WHERE id = ?2",
                          kNow));
    Binder{update}(to_string(status))(run_id);
    if (update.exec() == 0) no_such_run(path_, run_id);
  });
}

std::optional<BestEntry> Store::best(const CacheKey& key) {
  return read_snapshot(
      *db_, path_, "looking up the best configuration", [&]() -> std::optional<BestEntry> {
        SQLite::Statement find_run(
            *db_, fmt::format("SELECT {} FROM runs r JOIN devices d ON d.id = r.device_id "
                              "WHERE {} AND r.status = 'complete' "
                              "ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
                              kRunColumns, kKeyWhere));
        Binder bind(find_run);
        bind_key(bind, key);
        if (!find_run.executeStep()) return std::nullopt;
        BestEntry entry;
        entry.run = read_run(find_run);

        // A zero median is not a timing (an ok row without samples); it must not win.
        SQLite::Statement find_best(*db_,
                                    fmt::format("SELECT {} FROM measurements WHERE run_id = ? AND "
                                                "outcome = 'ok' AND median_ms > 0 "
                                                "ORDER BY winner DESC, median_ms, id LIMIT 1",
                                                kMeasurementColumns));
        Binder{find_best}(entry.run.id);
        if (!find_best.executeStep()) return std::nullopt;
        entry.best = read_measurement(find_best);
        return entry;
      });
}

std::vector<StoredMeasurement> Store::measurements(std::int64_t run_id) {
  return read_snapshot(*db_, path_, "reading measurements", [&] {
    SQLite::Statement query(*db_,
                            fmt::format("SELECT {} FROM measurements WHERE run_id = ? ORDER BY id",
                                        kMeasurementColumns));
    Binder{query}(run_id);
    std::vector<StoredMeasurement> out;
    while (query.executeStep()) out.push_back(read_measurement(query));
    return out;
  });
}

std::vector<StoredMeasurement> Store::reusable_measurements(const CacheKey& key,
                                                            const TimingPolicy& policy,
                                                            const std::string& strategy) {
  return read_snapshot(*db_, path_, "looking up reusable measurements", [&] {
    // The newest row per candidate identity; `max(m.id)` picks the whole row in SQLite's
    // bare-column aggregate semantics.
    SQLite::Statement query(
        *db_,
        fmt::format("SELECT {}, max(id) FROM (SELECT m.* FROM measurements m "
                    "JOIN runs r ON r.id = m.run_id JOIN devices d ON d.id = r.device_id "
                    "WHERE {} AND r.policy_json = ? AND m.outcome = 'ok' AND m.sample_count > 0 "
                    "AND (m.stop_reason IN ('converged', 'timeout', 'max_samples') OR "
                    "(m.stop_reason IN ('eliminated', 'dropped') AND r.strategy = ?))) "
                    "GROUP BY variant, threads, dynamic_smem ORDER BY variant, threads",
                    kMeasurementColumns, kKeyWhere));
    Binder bind(query);
    bind_key(bind, key);
    bind(codec::policy_json(policy))(strategy);
    std::vector<StoredMeasurement> out;
    while (query.executeStep()) out.push_back(read_measurement(query));
    return out;
  });
}

std::vector<StoredRun> Store::runs() {
  return read_snapshot(*db_, path_, "reading runs", [&] {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM runs r JOIN devices d ON d.id = r.device_id "
                          "ORDER BY r.started_at DESC, r.id DESC",
                          kRunColumns));
    std::vector<StoredRun> out;
    while (query.executeStep()) out.push_back(read_run(query));
    return out;
  });
}

std::vector<DeviceInfo> Store::devices() {
  return read_snapshot(*db_, path_, "reading devices", [&] {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM devices d {}", kDeviceColumns, kDeviceOrder));
    std::vector<DeviceInfo> out;
    while (query.executeStep()) out.push_back(read_device(query));
    return out;
  });
}

std::optional<DeviceInfo> Store::device_by_uuid(const std::string& uuid) {
  return read_snapshot(*db_, path_, "looking up a device", [&]() -> std::optional<DeviceInfo> {
    SQLite::Statement query(
        *db_, fmt::format("SELECT {} FROM devices d WHERE d.uuid = ? {} LIMIT 1", kDeviceColumns,
                          kDeviceOrder));
    Binder{query}(uuid);
    if (!query.executeStep()) return std::nullopt;
    return read_device(query);
  });
}

namespace {

constexpr const char* kCheckKeyColumns =
    "kernel, dtype, m, n, k, launched_kernel, verdict, reason, config, threads, baseline_run_id, "
    "baseline_build_id, baseline_count, baseline_median_ms, baseline_low_ms, baseline_high_ms, "
    "current_outcome, current_rel_error, current_count, current_min_ms, current_q1_ms, "
    "current_median_ms, current_q3_ms, current_max_ms, current_low_ms, current_high_ms, ratio, "
    "p_value";
constexpr int kCheckKeyColumnCount = 28;

template <typename T>
void bind_optional(Binder& bind, const std::optional<T>& value) {
  if (value)
    bind(*value);
  else
    bind.null();
}

template <typename T>
std::optional<T> read_optional(SQLite::Statement& statement, int& index) {
  const SQLite::Column column = statement.getColumn(index++);
  if (column.isNull()) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>)
    return column.getString();
  else if constexpr (std::is_same_v<T, double>)
    return column.getDouble();
  else if constexpr (std::is_same_v<T, int>)
    return column.getInt();
  else
    return column.getInt64();
}

CheckKeyRecord read_check_key(SQLite::Statement& q) {
  CheckKeyRecord k;
  int i = 1;  // column 0 is check_id
  k.kernel = q.getColumn(i++).getString();
  k.dtype = q.getColumn(i++).getString();
  k.shape.m = q.getColumn(i++).getInt64();
  k.shape.n = q.getColumn(i++).getInt64();
  k.shape.k = q.getColumn(i++).getInt64();
  k.launched_kernel = q.getColumn(i++).getString();
  k.verdict = q.getColumn(i++).getString();
  k.reason = q.getColumn(i++).getString();
  k.config = read_optional<std::string>(q, i);
  k.threads = read_optional<int>(q, i);
  k.baseline_run_id = read_optional<std::int64_t>(q, i);
  k.baseline_build_id = read_optional<std::string>(q, i);
  k.baseline_count = read_optional<std::int64_t>(q, i);
  for (auto* v : {&k.baseline_median_ms, &k.baseline_low_ms, &k.baseline_high_ms})
    *v = read_optional<double>(q, i);
  k.current_outcome = read_optional<std::string>(q, i);
  k.current_rel_error = read_optional<double>(q, i);
  k.current_count = read_optional<std::int64_t>(q, i);
  for (auto* v : {&k.current_min_ms, &k.current_q1_ms, &k.current_median_ms, &k.current_q3_ms,
                  &k.current_max_ms, &k.current_low_ms, &k.current_high_ms, &k.ratio, &k.p_value})
    *v = read_optional<double>(q, i);
  return k;
}

}  // namespace

std::int64_t Store::record_check(const CheckRecord& check) {
  return write_transaction(*db_, path_, "recording a check", [&] {
    SQLite::Statement insert(
        *db_, fmt::format("INSERT INTO checks (recorded_at, device_uuid, device_name, platform, "
                          "build_id, tool_version, argv_json, threshold, strict, exit_code) "
                          "VALUES ({}, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          kNow));
    Binder{insert}(check.device_uuid)(check.device_name)(check.platform)(check.build_id)(
        check.tool_version)(check.argv_json)(check.threshold)(check.strict ? 1 : 0)(
        check.exit_code);
    insert.exec();
    const std::int64_t id = db_->getLastInsertRowid();
    std::string placeholders;
    for (int i = 0; i < kCheckKeyColumnCount; ++i) placeholders += ", ?";
    SQLite::Statement key_insert(
        *db_, fmt::format("INSERT INTO check_keys (check_id, {}) VALUES (?{})", kCheckKeyColumns,
                          placeholders));
    for (const CheckKeyRecord& k : check.keys) {
      key_insert.reset();
      key_insert.clearBindings();
      Binder bind(key_insert);
      bind(id)(k.kernel)(k.dtype)(k.shape.m)(k.shape.n)(k.shape.k)(k.launched_kernel)(k.verdict)(
          k.reason);
      bind_optional(bind, k.config);
      bind_optional(bind, k.threads);
      bind_optional(bind, k.baseline_run_id);
      bind_optional(bind, k.baseline_build_id);
      bind_optional(bind, k.baseline_count);
      for (auto* v : {&k.baseline_median_ms, &k.baseline_low_ms, &k.baseline_high_ms})
        bind_optional(bind, *v);
      bind_optional(bind, k.current_outcome);
      bind_optional(bind, k.current_rel_error);
      bind_optional(bind, k.current_count);
      for (auto* v : {&k.current_min_ms, &k.current_q1_ms, &k.current_median_ms, &k.current_q3_ms,
                      &k.current_max_ms, &k.current_low_ms, &k.current_high_ms, &k.ratio,
                      &k.p_value})
        bind_optional(bind, *v);
      key_insert.exec();
    }
    return id;
  });
}

std::vector<CheckRecord> Store::checks(const std::string& device_uuid) {
  return read_snapshot(*db_, path_, "reading the check history", [&] {
    SQLite::Statement query(
        *db_,
        "SELECT id, recorded_at, device_uuid, device_name, platform, build_id, tool_version, "
        "argv_json, threshold, strict, exit_code FROM checks WHERE ?1 = '' OR device_uuid = ?1 "
        "ORDER BY recorded_at, id");
    Binder{query}(device_uuid);
    std::vector<CheckRecord> out;
    while (query.executeStep()) {
      Row row(query);
      CheckRecord c;
      c.id = row.next_int64();
      c.recorded_at = row.next_string();
      c.device_uuid = row.next_string();
      c.device_name = row.next_string();
      c.platform = row.next_string();
      c.build_id = row.next_string();
      c.tool_version = row.next_string();
      c.argv_json = row.next_string();
      c.threshold = row.next_double();
      c.strict = row.next_int() != 0;
      c.exit_code = row.next_int();
      out.push_back(std::move(c));
    }
    SQLite::Statement keys(
        *db_, fmt::format("SELECT check_id, {} FROM check_keys WHERE check_id = ? ORDER BY id",
                          kCheckKeyColumns));
    for (CheckRecord& c : out) {
      keys.reset();
      Binder{keys}(c.id);
      while (keys.executeStep()) c.keys.push_back(read_check_key(keys));
    }
    return out;
  });
}

std::vector<CacheKey> Store::near_keys(const CacheKey& key) {
  return read_snapshot(*db_, path_, "looking up related entries", [&] {
    SQLite::Statement query(
        *db_,
        "SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
        "d.runtime_version, r.build_id, r.dtype, r.kernel, MAX(r.id) AS newest "
        "FROM runs r JOIN devices d ON d.id = r.device_id "
        "WHERE (? = '' OR r.kernel = ?) AND r.m = ? AND r.n = ? AND r.k = ? AND r.layout = ? "
        "AND r.status = 'complete' "
        "GROUP BY d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, "
        "d.runtime_version, r.build_id, r.dtype, r.kernel ORDER BY newest DESC");
    Binder{query}(key.kernel)(key.kernel)(key.shape.m)(key.shape.n)(key.shape.k)(key.layout);
    std::vector<CacheKey> out;
    while (query.executeStep()) {
      Row row(query);
      CacheKey near;
      near.device_uuid = row.next_string();
      near.device_name = row.next_string();
      near.cc_major = row.next_int();
      near.cc_minor = row.next_int();
      near.sm_count = row.next_int();
      near.driver_version = row.next_int();
      near.runtime_version = row.next_int();
      near.build_id = row.next_string();
      near.dtype = row.next_string();
      near.kernel = row.next_string();
      near.shape = key.shape;
      near.layout = key.layout;
      if (!same_key(near, key)) out.push_back(std::move(near));
    }
    return out;
  });
}

int Store::schema_version() {
  return read_snapshot(*db_, path_, "reading the schema version",
                       [&] { return db_->execAndGet("PRAGMA user_version").getInt(); });
}

}  // namespace occtune::db

// --- Reads for the query service -----------------------------------------------------------
// Kept apart from the reads above because a server must tell "the file is busy, retry" (503)
// from other failures (500); everything else about them follows the same rules.

namespace occtune::db {
namespace {

bool is_busy(const SQLite::Exception& e) {
  return e.getErrorCode() == SQLITE_BUSY || e.getErrorCode() == SQLITE_LOCKED;
}

// Like read_snapshot, but a busy or locked file surfaces as StoreBusy.
template <typename Body>
auto service_read(SQLite::Database& db, const fs::path& path, std::string_view what, Body&& body)
    -> decltype(body()) {
  try {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::DEFERRED);
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      transaction.commit();
    } else {
      auto result = body();
      transaction.commit();
      return result;
    }
  } catch (const SQLite::Exception& e) {
    if (is_busy(e)) {
      throw StoreBusy(
          fmt::format("database '{}': {} failed: the database is locked by another "
                      "connection ({}); retry shortly",
                      path.string(), what, e.getErrorStr()));
    }
    io_failure(path, what, e);
  }
}

}  // namespace

EntryPage Store::entries(const EntryQuery& q) {
  // First the keys, newest complete run first, from one snapshot; then each key's entry through
  // best(), so "the entry of a key" has one definition in this file.
  std::vector<std::pair<CacheKey, std::int64_t>> keys;  // key, id of its newest complete run
  service_read(*db_, path_, "listing cached entries", [&] {
    std::string where = "r.status = 'complete'";
    auto add = [&](bool present, const char* clause) {
      if (present) where += fmt::format(" AND {}", clause);
    };
    add(q.device_uuid.has_value(), "d.uuid = ?");
    add(q.device_name.has_value(), "d.name = ?");
    add(q.cc_major.has_value(), "d.cc_major = ?");
    add(q.cc_minor.has_value(), "d.cc_minor = ?");
    add(q.sm_count.has_value(), "d.sm_count = ?");
    add(q.driver_version.has_value(), "d.driver_version = ?");
    add(q.runtime_version.has_value(), "d.runtime_version = ?");
    add(q.kernel.has_value(), "r.kernel = ?");
    add(q.build_id.has_value(), "r.build_id = ?");
    add(q.dtype.has_value(), "r.dtype = ?");
    add(q.shape.has_value(), "r.m = ? AND r.n = ? AND r.k = ?");
    add(q.layout.has_value(), "r.layout = ?");
    add(q.excluding.has_value(), fmt::format("NOT ({})", kKeyWhere).c_str());
    const bool by_id = q.order == EntryQuery::Order::kRunId;
    SQLite::Statement query(
        *db_,
        fmt::format("SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, "
                    "d.driver_version, d.runtime_version, r.kernel, r.build_id, r.dtype, r.m, "
                    "r.n, r.k, r.layout, MAX(r.started_at) AS newest_at, MAX(r.id) AS newest_id "
                    "FROM runs r JOIN devices d ON d.id = r.device_id WHERE {} "
                    "GROUP BY r.device_id, r.kernel, r.build_id, r.dtype, r.m, r.n, r.k, "
                    "r.layout {} "
                    "ORDER BY {} LIMIT ?",
                    where, q.before_run_id > 0 ? "HAVING newest_id < ?" : "",
                    by_id ? "newest_id DESC" : "newest_at DESC, newest_id DESC"));
    Binder bind(query);
    if (q.device_uuid) bind(*q.device_uuid);
    if (q.device_name) bind(*q.device_name);
    if (q.cc_major) bind(*q.cc_major);
    if (q.cc_minor) bind(*q.cc_minor);
    if (q.sm_count) bind(*q.sm_count);
    if (q.driver_version) bind(*q.driver_version);
    if (q.runtime_version) bind(*q.runtime_version);
    if (q.kernel) bind(*q.kernel);
    if (q.build_id) bind(*q.build_id);
    if (q.dtype) bind(*q.dtype);
    if (q.shape) bind(q.shape->m)(q.shape->n)(q.shape->k);
    if (q.layout) bind(*q.layout);
    if (q.excluding) bind_key(bind, *q.excluding);
    if (q.before_run_id > 0) bind(q.before_run_id);
    bind(std::max(q.limit, 0));
    while (query.executeStep()) {
      Row row(query);
      CacheKey key = read_key(row);
      row.next_string();  // newest_at: ordering only
      const std::int64_t newest_id = row.next_int64();
      keys.emplace_back(std::move(key), newest_id);
    }
  });

  EntryPage page;
  for (auto& [key, newest_id] : keys) {
    std::optional<BestEntry> entry;
    try {
      entry = best(key);
    } catch (const StoreBusy&) {
      throw;
    } catch (const Error&) {
      // best() reports every SQLite failure alike; ask the file again so a busy one still
      // reads as StoreBusy (this read throws it), and anything else keeps its own message.
      data_version();
      throw;
    }
    if (entry) page.entries.push_back(std::move(*entry));
  }
  if (q.limit > 0 && keys.size() == static_cast<std::size_t>(q.limit))
    page.next_before_run_id = keys.back().second;
  return page;
}

std::vector<DeviceInfo> Store::device_records(const std::string& uuid) {
  return service_read(*db_, path_, "reading devices", [&] {
    SQLite::Statement query(*db_,
                            fmt::format("SELECT {} FROM devices d {} {}", kDeviceColumns,
                                        uuid.empty() ? "" : "WHERE d.uuid = ?", kDeviceOrder));
    if (!uuid.empty()) Binder{query}(uuid);
    std::vector<DeviceInfo> out;
    while (query.executeStep()) out.push_back(read_device(query));
    return out;
  });
}

std::int64_t Store::data_version() {
  try {
    return db_->execAndGet("PRAGMA data_version").getInt64();
  } catch (const SQLite::Exception& e) {
    if (is_busy(e)) {
      throw StoreBusy(
          fmt::format("database '{}': reading the data version failed: the "
                      "database is locked by another connection ({}); retry shortly",
                      path_.string(), e.getErrorStr()));
    }
    io_failure(path_, "reading the data version", e);
  }
}

void Store::set_busy_timeout(int milliseconds) { db_->setBusyTimeout(milliseconds); }

}  // namespace occtune::db
