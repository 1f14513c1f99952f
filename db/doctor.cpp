// The checks behind `occtune db doctor` (db/doctor.hpp): file and filesystem, header, SQLite's
// integrity_check and foreign_key_check, schema, contents and runs left 'running'; and the
// repairs, each of which either keeps every readable row or moves the whole file aside.
#include "db/doctor.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "db/read_access.hpp"
#include "db/recovery.hpp"
#include "db/retry.hpp"
#include "db/schema.hpp"
#include "db/store.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

using sql::is_damage;
using sql::column_texts;
using sql::one_line;
namespace {

namespace fs = std::filesystem;
using State = DoctorReport::State;

void set_state(DoctorReport& report, State state, std::string summary) {
  report.state = state;
  report.summary = std::move(summary);
}

std::string repair_hint(const fs::path& path) {
  return fmt::format(
      "run `occtune db doctor --db {} --repair` to move it aside (nothing is "
      "deleted) and start a fresh store",
      path.string());
}

void mark_damaged(DoctorReport& report, const std::string& finding) {
  if (report.header && !report.header->sqlite_magic && !report.header->occtune_id) {
    set_state(report, State::kNotDatabase,
              fmt::format("'{}' is not an SQLite database (nor recognisably an occtune one); "
                          "occtune never moves or changes it; pass --db with the right path",
                          report.path.string()));
    return;
  }
  if (report.header && !report.header->occtune_id && report.application_id != kApplicationId) {
    set_state(report, State::kNotDatabase,
              fmt::format("'{}' is damaged ({}) and is not recognisably an occtune database; "
                          "occtune never moves or changes it; pass --db with the right path",
                          report.path.string(), finding));
    return;
  }
  set_state(report, State::kDamaged,
            fmt::format("database '{}' is damaged ({}); {}", report.path.string(), finding,
                        repair_hint(report.path)));
}

// Runs without owner columns (schema < 3) are listed with an unknown owner.
std::vector<owner::RunningRun> running_without_owner(SQLite::Database& db) {
  SQLite::Statement query(db,
                          "SELECT id, kernel, started_at FROM runs WHERE status = 'running' "
                          "ORDER BY id");
  std::vector<owner::RunningRun> out;
  while (query.executeStep()) {
    owner::RunningRun run;
    run.id = query.getColumn(0).getInt64();
    run.kernel = query.getColumn(1).getString();
    run.started_at = query.getColumn(2).getString();
    run.why = "no owner recorded (written before schema 3)";
    out.push_back(std::move(run));
  }
  return out;
}

// Everything read through SQLite, in one read transaction so the numbers agree.
void examine(DoctorReport& report) {
  const ReadOnlyOpen ro = read_only_open(report.path);
  SQLite::Database db(ro.filename, ro.flags, kDefaultBusyTimeoutMs);
  SQLite::Transaction snapshot(db);
  const schema::FileState state = schema::inspect(db);
  report.application_id = state.application_id;
  report.user_version = state.user_version;
  if (state.fresh()) {
    report.notes.push_back("the database is empty; the schema is created at the first write");
    return;
  }
  if (state.application_id != kApplicationId) {
    set_state(report, State::kForeign,
              fmt::format("'{}' is not an occtune database (application_id 0x{:08X}); occtune "
                          "never writes to it; pass --db with another path",
                          report.path.string(), static_cast<unsigned>(state.application_id)));
    return;
  }
  report.integrity = column_texts(db, "PRAGMA integrity_check(20)");
  if (report.integrity.size() == 1 && report.integrity[0] == "ok") report.integrity.clear();
  if (!report.integrity.empty()) {
    mark_damaged(report, "integrity_check: " + report.integrity.front());
    return;
  }
  {
    SQLite::Statement fk(db, "PRAGMA foreign_key_check");
    while (fk.executeStep()) {
      report.foreign_keys.push_back(
          fmt::format("{} row {} refers to a missing {} row", fk.getColumn(0).getString(),
                      fk.getColumn(1).getInt64(), fk.getColumn(2).getString()));
    }
  }
  if (state.user_version < 0) {
    // Every other command refuses such a file (exit 3), so the doctor must not call it healthy.
    set_state(report, State::kForeign,
              fmt::format("database '{}' has an invalid schema version {} (occtune writes 1 to "
                          "{}); occtune never writes to it; pass --db with another path",
                          report.path.string(), state.user_version, kSchemaVersion));
    return;
  }
  if (state.user_version > kSchemaVersion) {
    // Its tables may mean something else now: report, but read nothing more.
    set_state(report, State::kNewer,
              fmt::format("database '{}' was written by a newer occtune (schema {}, this build "
                          "knows {}); it is never written to by this build; upgrade occtune or "
                          "pass --db with another path",
                          report.path.string(), state.user_version, kSchemaVersion));
    return;
  }
  if (state.user_version < kSchemaVersion) {
    report.notes.push_back(fmt::format(
        "schema {} (this build: {}): migrated in one transaction at the next write open, or "
        "with --repair",
        state.user_version, kSchemaVersion));
  }
  report.devices = db.execAndGet("SELECT count(*) FROM devices").getInt64();
  report.measurements = db.execAndGet("SELECT count(*) FROM measurements").getInt64();
  {
    SQLite::Statement runs(db, "SELECT status, count(*) FROM runs GROUP BY status ORDER BY 1");
    while (runs.executeStep())
      report.runs[runs.getColumn(0).getString()] = runs.getColumn(1).getInt64();
  }
  report.counted = true;
  report.running = state.user_version >= 3 ? owner::running_runs(db) : running_without_owner(db);
  int abandoned = 0;
  for (const auto& run : report.running) abandoned += run.liveness == owner::Liveness::kDead;
  if (abandoned > 0) {
    report.notes.push_back(fmt::format(
        "{} run{} left 'running' by processes that are gone (never used as the best): marked "
        "'interrupted' at the next write open, or with --repair",
        abandoned, abandoned == 1 ? "" : "s"));
  }
  snapshot.commit();
  if (!report.foreign_keys.empty()) {
    set_state(report, State::kInconsistent,
              fmt::format("database '{}' has {} row{} that refer to missing rows ({}); run "
                          "`occtune db doctor --db {} --repair` to delete them",
                          report.path.string(), report.foreign_keys.size(),
                          report.foreign_keys.size() == 1 ? "" : "s", report.foreign_keys.front(),
                          report.path.string()));
  }
}

// Rows that point at nothing can never be read back through a run and its device; deleting them
// loses nothing that occtune could use.
std::vector<std::string> delete_orphans(const fs::path& path) {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE, kDefaultBusyTimeoutMs);
  db.exec("PRAGMA foreign_keys = ON");  // so deleting a run takes its measurements along
  return with_busy_retry(BusyRetry{}, [&] {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    std::vector<std::string> actions;
    const int measurements =
        db.exec("DELETE FROM measurements WHERE run_id NOT IN (SELECT id FROM runs)");
    const int runs = db.exec("DELETE FROM runs WHERE device_id NOT IN (SELECT id FROM devices)");
    transaction.commit();
    if (measurements > 0)
      actions.push_back(fmt::format("deleted {} measurement(s) of missing runs", measurements));
    if (runs > 0)
      actions.push_back(
          fmt::format("deleted {} run(s) of missing devices, with their "
                      "measurements",
                      runs));
    return actions;
  });
}

}  // namespace

const char* DoctorReport::state_name(State state) {
  switch (state) {
    case State::kHealthy:
      return "healthy";
    case State::kMissing:
      return "missing";
    case State::kForeign:
      return "foreign";
    case State::kNewer:
      return "newer";
    case State::kNotDatabase:
      return "not_a_database";
    case State::kDamaged:
      return "damaged";
    case State::kInconsistent:
      return "inconsistent";
    case State::kUnusable:
      return "unusable";
  }
  return "unknown";
}

ExitCode DoctorReport::exit_code() const {
  switch (state) {
    case State::kHealthy:
      return ExitCode::kOk;
    case State::kMissing:
    case State::kForeign:
    case State::kNewer:
      return ExitCode::kNotFound;
    default:
      return ExitCode::kRuntime;
  }
}

DoctorReport diagnose(const fs::path& path) {
  if (path.empty()) fail(ExitCode::kUsage, "the database path is empty; pass --db PATH");
  DoctorReport report;
  report.path = path;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    set_state(report, State::kMissing,
              fmt::format("no database at '{}'; run `occtune tune` to create one, or pass --db "
                          "with an existing database",
                          path.string()));
    return report;
  }
  if (ec || !fs::is_regular_file(status)) {
    set_state(report, State::kUnusable,
              fmt::format("'{}' is {}; pass --db with the path of the database file", path.string(),
                          ec                         ? "not accessible (" + ec.message() + ")"
                          : fs::is_directory(status) ? "a directory"
                                                     : "not a regular file"));
    return report;
  }
  if (::access(path.c_str(), R_OK) != 0) {
    set_state(report, State::kUnusable,
              fmt::format("cannot read '{}' ({}); fix its permissions or pass --db with another "
                          "path",
                          path.string(), std::generic_category().message(errno)));
    return report;
  }
  std::string network_refusal;
  if (const auto type = probe::filesystem_type(path)) {
    if (const auto name = probe::network_filesystem(*type)) {
      report.network_fs = std::string(*name);
      try {
        probe::check_local_filesystem(path, *type, probe::network_filesystem_allowed());
      } catch (const Error& e) {
        network_refusal = e.what();
      }
    }
  }
  report.header = probe::read_header(path);
  if (!report.header) {
    set_state(report, State::kUnusable,
              fmt::format("cannot read '{}'; check the file or pass --db with another path",
                          path.string()));
    return report;
  }
  if (report.header->file_size == 0) {
    report.notes.push_back("the file is empty; the schema is created at the first write");
  } else if (!report.header->sqlite_magic) {
    mark_damaged(report, "no SQLite header");
  } else {
    try {
      examine(report);
    } catch (const SQLite::Exception& e) {
      if (is_damage(e)) {
        mark_damaged(report, one_line(e.what()));
      } else {
        set_state(report, State::kUnusable,
                  fmt::format("cannot check database '{}': {}; retry, or pass --db with another "
                              "path",
                              path.string(), one_line(e.what())));
      }
    }
  }
  if (report.state == State::kHealthy && !network_refusal.empty())
    set_state(report, State::kUnusable, network_refusal);
  return report;
}

DoctorReport repair(const fs::path& path) {
  const DoctorReport before = diagnose(path);
  std::vector<std::string> actions;
  switch (before.state) {
    case State::kDamaged: {
      const auto moved = recovery::move_aside(
          path, [&] { return !integrity_problems(path, /*full=*/true, 1).empty(); });
      if (moved) {
        actions.push_back("moved the damaged database aside: " + moved->describe());
        actions.push_back(
            fmt::format("the old measurements may be recoverable with `sqlite3 {} "
                        ".recover`",
                        moved->main().string()));
      }
      Store::open(path);
      actions.push_back(fmt::format("created a fresh store at '{}'", path.string()));
      break;
    }
    case State::kInconsistent:
      actions = delete_orphans(path);
      break;
    case State::kHealthy: {
      int abandoned = 0;
      for (const auto& run : before.running) abandoned += run.liveness == owner::Liveness::kDead;
      const bool older =
          before.header && before.header->file_size > 0 && before.user_version < kSchemaVersion;
      if (!older && abandoned == 0) break;
      Store::open(path);  // migrates and marks abandoned runs, each in one transaction
      if (older) {
        actions.push_back(fmt::format("migrated the schema from version {} to {}",
                                      before.user_version, kSchemaVersion));
      }
      for (const auto& run : before.running) {
        if (run.liveness == owner::Liveness::kDead)
          actions.push_back(fmt::format("marked run {} 'interrupted': {}", run.id, run.why));
      }
      break;
    }
    default:
      break;  // newer, foreign, not ours, unusable: never written to
  }
  DoctorReport after = diagnose(path);
  after.actions = std::move(actions);
  return after;
}

}  // namespace occtune::db
