// occtune db doctor: checks the store on demand (file, filesystem, header, integrity, references,
// schema, runs left 'running') and, with --repair, fixes what it found (db/doctor.hpp). The
// report goes to stdout; an unhealthy verdict is also the one-line error on stderr.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "db/doctor.hpp"
#include "db/store.hpp"

namespace occtune::cli {
namespace {

struct DoctorOptions {
  std::string db;
  bool repair = false;
  std::string format = "table";
};

const char* liveness_name(db::owner::Liveness liveness) {
  switch (liveness) {
    case db::owner::Liveness::kAlive:
      return "alive";
    case db::owner::Liveness::kDead:
      return "abandoned";
    case db::owner::Liveness::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string contents_line(const db::DoctorReport& r) {
  std::int64_t total = 0;
  std::string by_status;
  for (const auto& [status, count] : r.runs) {
    total += count;
    by_status += fmt::format("{}{} {}", by_status.empty() ? "" : ", ", count, status);
  }
  return fmt::format("{} device{}, {} run{}{}, {} measurement{}", r.devices,
                     r.devices == 1 ? "" : "s", total, total == 1 ? "" : "s",
                     by_status.empty() ? "" : " (" + by_status + ")", r.measurements,
                     r.measurements == 1 ? "" : "s");
}

void print_table(const db::DoctorReport& r, std::ostream& out) {
  auto line = [&](const char* label, const std::string& text) {
    out << fmt::format("{:<11}{}\n", label, text);
  };
  line("database", r.path.string());
  if (r.header) {
    std::string file = output::bytes(static_cast<std::size_t>(r.header->file_size));
    if (r.header->file_size > 0) {
      file += r.header->sqlite_magic ? ", SQLite" : ", no SQLite header";
      if (r.header->occtune_id) file += ", occtune application_id";
      if (r.header->sqlite_magic && r.application_id == db::kApplicationId)
        file += fmt::format(", schema {} (this build: {})", r.user_version, db::kSchemaVersion);
    }
    line("file", file);
  }
  if (!r.network_fs.empty()) line("filesystem", r.network_fs + " (a network filesystem)");
  if (!r.integrity.empty()) {
    for (const auto& finding : r.integrity) line("integrity", finding);
  } else if (r.counted) {
    line("integrity", "ok (integrity_check)");
  }
  if (!r.foreign_keys.empty()) {
    for (const auto& finding : r.foreign_keys) line("references", finding);
  } else if (r.counted) {
    line("references", "ok (foreign_key_check)");
  }
  if (r.counted) line("contents", contents_line(r));
  for (const auto& run : r.running) {
    line("running", fmt::format("run {} ({}, started {}): {}, {}", run.id, run.kernel,
                                run.started_at, liveness_name(run.liveness), run.why));
  }
  for (const auto& note : r.notes) line("note", note);
  for (const auto& action : r.actions) line("repaired", action);
  line("verdict", db::DoctorReport::state_name(r.state));
}

nlohmann::json to_json(const db::DoctorReport& r) {
  nlohmann::json j = {{"database", r.path.string()},
                      {"state", db::DoctorReport::state_name(r.state)},
                      {"exit_code", static_cast<int>(r.exit_code())},
                      {"summary", r.summary},
                      {"network_filesystem", r.network_fs},
                      {"integrity", r.integrity},
                      {"foreign_keys", r.foreign_keys},
                      {"notes", r.notes},
                      {"actions", r.actions}};
  if (r.header) {
    j["file"] = {{"size_bytes", r.header->file_size},
                 {"sqlite", r.header->sqlite_magic},
                 {"occtune_application_id", r.header->occtune_id},
                 {"page_size", r.header->page_size},
                 {"schema", r.user_version},
                 {"schema_supported", db::kSchemaVersion}};
  }
  if (r.counted) {
    j["contents"] = {{"devices", r.devices}, {"runs", r.runs}, {"measurements", r.measurements}};
  }
  nlohmann::json running = nlohmann::json::array();
  for (const auto& run : r.running) {
    running.push_back({{"run_id", run.id},
                       {"kernel", run.kernel},
                       {"started_at", run.started_at},
                       {"owner_pid", run.owner.pid},
                       {"owner_host", run.owner.host},
                       {"liveness", liveness_name(run.liveness)},
                       {"why", run.why}});
  }
  j["running"] = running;
  return j;
}

int run_doctor(const DoctorOptions& o) {
  const Format format = resolve_format(o.format, FormatSet::kTableJson);
  const std::string db_path = resolve_db(o.db);
  const db::DoctorReport report = o.repair ? db::repair(db_path) : db::diagnose(db_path);
  if (format == Format::kJson) {
    std::cout << output::document("db_doctor", to_json(report)).dump(2) << '\n';
  } else {
    print_table(report, std::cout);
  }
  if (report.exit_code() != ExitCode::kOk) fail(report.exit_code(), report.summary);
  return 0;
}

}  // namespace

void add_db_command(CLI::App& app, Context&, Action& action) {
  auto* db = app.add_subcommand("db", "Maintain the database (doctor)");
  db->require_subcommand(1);
  auto* doctor = db->add_subcommand(
      "doctor",
      "Check the database: integrity, references, schema, runs left running; exit 0 "
      "when healthy, 3 when missing/foreign/newer, 4 when damaged or unusable");
  auto o = std::make_shared<DoctorOptions>();
  add_db_option(*doctor, o->db);
  doctor->add_flag("--repair", o->repair,
                   "fix what was found: move a damaged database aside and start a fresh one, "
                   "migrate, mark abandoned runs interrupted, delete rows that refer to nothing");
  add_format_option(*doctor, o->format, FormatSet::kTableJson);
  doctor->callback([&action, o] { action = [o] { return run_doctor(*o); }; });
}

}  // namespace occtune::cli
