// The worker as a process: started with posix_spawn, talked to over a socket pair, stopped with
// SIGKILL and reaped. It runs in its own process group, so a terminal's Ctrl-C reaches only the
// parent (which commits, then stops the worker), and killing the group takes along anything the
// worker started.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "autotuner/isolation/line_channel.hpp"

namespace occtune::isolation {

// The channel's descriptor in the worker.
inline constexpr int kWorkerFd = 3;

class WorkerProcess {
 public:
  // Runs argv[0] (a path) with the channel on kWorkerFd, stdin from /dev/null, stdout sent to
  // the parent's stderr (the parent's stdout carries tables and JSON) and stderr inherited.
  // Throws Error(kRuntime) naming the program when it cannot be started.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();  // kills and reaps a worker still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running() const { return !reaped_; }
  LineChannel& channel() { return channel_; }

  // SIGKILL to the process group, then waits for it. Returns how it ended, e.g.
  // "was killed by signal 9 (Killed)".
  std::string kill();
  // Waits up to timeout_s for the worker to exit by itself, then kills it. Returns how it ended.
  std::string wait(double timeout_s);

 private:
  std::string reaped(int status);
  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  std::string ending_;
  LineChannel channel_;
};

// "exited with code 3", "was killed by signal 11 (Segmentation fault)".
std::string describe_wait_status(int status);

}  // namespace occtune::isolation
