// Run ownership (db/run_owner.hpp): the identity of the writing process, kept on its run rows,
// and the liveness verdict that lets a later open mark abandoned runs 'interrupted'.
#include "db/run_owner.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>

namespace occtune::db::owner {
namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string hostname() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return {};
  return name.data();
}

std::string pid_namespace() {
  std::array<char, 64> target{};
  const ssize_t n = ::readlink("/proc/self/ns/pid", target.data(), target.size() - 1);
  return n > 0 ? std::string(target.data(), std::size_t(n)) : std::string();
}

// /proc/<pid>/stat: "pid (comm) state ... starttime ..."; comm may hold spaces and parentheses,
// so fields are counted from the last ')'. State is field 3, starttime field 22.
struct StatFields {
  char state = '?';
  std::int64_t start_ticks = 0;
};
StatFields read_stat(std::int64_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  StatFields out;
  const auto close = text.rfind(')');
  if (close == std::string::npos) return out;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int index = 3; fields >> field; ++index) {
    if (index == 3) out.state = field.empty() ? '?' : field[0];
    if (index == 22) {
      out.start_ticks = std::stoll(field);
      break;
    }
  }
  return out;
}

}  // namespace

ProcessIdentity current_process() {
  ProcessIdentity id;
  id.pid = ::getpid();
  id.host = hostname();
  id.boot_id = first_line("/proc/sys/kernel/random/boot_id");
  id.pid_ns = pid_namespace();
  id.start_ticks = read_stat(id.pid).start_ticks;
  return id;
}

PidProbe system_probe() {
  return [](std::int64_t pid) {
    PidState state;
    if (pid <= 0) return state;
    state.exists = ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
    if (!state.exists) return state;
    const StatFields stat = read_stat(pid);
    state.zombie = stat.state == 'Z' || stat.state == 'X';
    state.start_ticks = stat.start_ticks;
    return state;
  };
}

Liveness judge(const ProcessIdentity& owner, const ProcessIdentity& here, const PidProbe& probe,
               std::string* why) {
  auto verdict = [&](Liveness liveness, std::string reason) {
    if (why) *why = std::move(reason);
    return liveness;
  };
  if (owner.pid <= 0 || owner.host.empty())
    return verdict(Liveness::kUnknown, "no owner recorded (written before schema 3)");
  if (owner.host != here.host)
    return verdict(Liveness::kUnknown,
                   fmt::format("owned by pid {} on host {}", owner.pid, owner.host));
  // Processes do not survive a reboot.
  if (!owner.boot_id.empty() && !here.boot_id.empty() && owner.boot_id != here.boot_id)
    return verdict(Liveness::kDead,
                   fmt::format("pid {} ran before {} rebooted", owner.pid, owner.host));
  if (!owner.pid_ns.empty() && !here.pid_ns.empty() && owner.pid_ns != here.pid_ns)
    return verdict(Liveness::kUnknown, fmt::format("owned by pid {} in another pid namespace ({})",
                                                   owner.pid, owner.pid_ns));
  const PidState state = probe(owner.pid);
  if (!state.exists) return verdict(Liveness::kDead, fmt::format("pid {} is gone", owner.pid));
  if (state.zombie) return verdict(Liveness::kDead, fmt::format("pid {} has exited", owner.pid));
  if (owner.start_ticks > 0 && state.start_ticks > 0 && owner.start_ticks != state.start_ticks)
    return verdict(
        Liveness::kDead,
        fmt::format("pid {} is gone (the pid now belongs to another process)", owner.pid));
  return verdict(Liveness::kAlive, fmt::format("pid {} is running", owner.pid));
}

std::vector<RunningRun> running_runs(SQLite::Database& db, const PidProbe& probe) {
  const ProcessIdentity here = current_process();
  SQLite::Statement query(db,
                          "SELECT id, kernel, started_at, owner_pid, owner_host, owner_boot_id, "
                          "owner_pid_ns, owner_start_ticks FROM runs WHERE status = 'running' "
                          "ORDER BY id");
  std::vector<RunningRun> out;
  while (query.executeStep()) {
    RunningRun run;
    run.id = query.getColumn(0).getInt64();
    run.kernel = query.getColumn(1).getString();
    run.started_at = query.getColumn(2).getString();
    run.owner.pid = query.getColumn(3).getInt64();  // NULL reads as 0: unknown
    run.owner.host = query.getColumn(4).getString();
    run.owner.boot_id = query.getColumn(5).getString();
    run.owner.pid_ns = query.getColumn(6).getString();
    run.owner.start_ticks = query.getColumn(7).getInt64();
    run.liveness = judge(run.owner, here, probe, &run.why);
    out.push_back(std::move(run));
  }
  return out;
}

int mark_interrupted(SQLite::Database& db, const std::vector<std::int64_t>& run_ids) {
  SQLite::Statement update(db,
                           "UPDATE runs SET status = 'interrupted', finished_at = "
                           "strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
                           "WHERE id = ? AND status = 'running'");
  int changed = 0;
  for (const std::int64_t id : run_ids) {
    update.bind(1, id);
    changed += update.exec();
    update.reset();
  }
  return changed;
}

void stamp(SQLite::Database& db, std::int64_t run_id) {
  const ProcessIdentity self = current_process();
  SQLite::Statement update(db,
                           "UPDATE runs SET owner_pid = ?, owner_host = ?, owner_boot_id = ?, "
                           "owner_pid_ns = ?, owner_start_ticks = ? WHERE id = ?");
  update.bind(1, self.pid);
  update.bind(2, self.host);
  update.bind(3, self.boot_id);
  update.bind(4, self.pid_ns);
  update.bind(5, self.start_ticks);
  update.bind(6, run_id);
  update.exec();
}

}  // namespace occtune::db::owner
