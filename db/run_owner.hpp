// Who writes a run, and whether that writer still exists. A run left 'running' by a process
// that is gone (killed, crashed, machine rebooted) is abandoned: opening the store for writing
// marks it 'interrupted', while runs of live writers, here or elsewhere, are never touched.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace occtune::db::owner {

// Enough to recognise a process later on the same machine, even after its pid is reused.
struct ProcessIdentity {
  std::int64_t pid = 0;          // 0: unknown (a run written before schema 3)
  std::string host;              // gethostname()
  std::string boot_id;           // /proc/sys/kernel/random/boot_id: changes on every boot
  std::string pid_ns;            // /proc/self/ns/pid, e.g. "pid:[4026531836]": pids are per ns
  std::int64_t start_ticks = 0;  // /proc/<pid>/stat field 22: start time in ticks since boot
};

// The calling process, read afresh each time (a forked child is another process).
ProcessIdentity current_process();

enum class Liveness { kAlive, kDead, kUnknown };

// What this machine says about a pid.
struct PidState {
  bool exists = false;           // kill(pid, 0) succeeds or fails with EPERM
  bool zombie = false;           // exited, not yet reaped by its parent: it writes no more
  std::int64_t start_ticks = 0;  // 0 when /proc cannot be read
};
using PidProbe = std::function<PidState(std::int64_t pid)>;
PidProbe system_probe();  // kill(2) and /proc; tests inject fakes

// kDead only when certain: same host and pid namespace and the pid is gone or belongs to a
// process started at another time, or same host booted since. Other hosts, other pid
// namespaces and unknown owners are kUnknown. `why` (optional) gets a short explanation.
Liveness judge(const ProcessIdentity& owner, const ProcessIdentity& here, const PidProbe& probe,
               std::string* why = nullptr);

struct RunningRun {
  std::int64_t id = 0;
  std::string kernel;
  std::string started_at;
  ProcessIdentity owner;
  Liveness liveness = Liveness::kUnknown;
  std::string why;
};

// Every run with status 'running', judged against the calling process. Reads only; run it in a
// read transaction.
std::vector<RunningRun> running_runs(SQLite::Database& db, const PidProbe& probe = system_probe());

// Marks the given runs 'interrupted' if they are still 'running'; returns how many changed. Run
// it in a write transaction; call running_runs() inside the same transaction first, so the
// verdicts and the update see the same rows.
int mark_interrupted(SQLite::Database& db, const std::vector<std::int64_t>& run_ids);

// Records the calling process as the owner of `run_id` (inside begin_run's transaction).
void stamp(SQLite::Database& db, std::int64_t run_id);

}  // namespace occtune::db::owner
