// Opening the store: the location checks, the connection pragmas and WAL, compatibility and
// migration (db/schema), a damaged file moved aside (db/recovery), abandoned runs marked
// interrupted (db/run_owner).
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
#include "db/file_probe.hpp"
#include "db/read_access.hpp"
#include "db/recovery.hpp"
#include "db/retry.hpp"
#include "db/run_owner.hpp"
#include "db/schema.hpp"
#include "db/integrity.hpp"
#include "db/store_path.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

using namespace sql;  // the shared SQL plumbing of db/store_sql.hpp

namespace {

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

std::filesystem::path Store::default_path() { return default_store_path(); }

SinkFactory Store::connections_to(const std::filesystem::path& path) {
  return [path]() -> std::unique_ptr<MeasurementSink> {
    return std::make_unique<Store>(Store::open(path));
  };
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

}  // namespace occtune::db
