#include "autotuner/isolation/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "autotuner/core/error.hpp"

extern char** environ;

namespace occtune::isolation {
namespace {

// RAII for the posix_spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
};

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return fmt::format("ended with wait status {}", status);
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) fail(ExitCode::kRuntime, "internal: no worker command");
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    fail(ExitCode::kRuntime, fmt::format("cannot create the worker channel: {}; rerun, or "
                                         "measure in-process with --no-isolation",
                                         std::strerror(errno)));
  // The child's end is moved above the standard descriptors so dup2 onto kWorkerFd always
  // copies (a dup2 onto itself would keep close-on-exec).
  const int child_end = ::fcntl(pair[1], F_DUPFD_CLOEXEC, 10);
  ::close(pair[1]);
  fd_ = pair[0];
  if (child_end < 0) {
    ::close(fd_);
    fail(ExitCode::kRuntime,
         fmt::format("cannot set up the worker channel: {}", std::strerror(errno)));
  }

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, child_end, kWorkerFd);
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, STDERR_FILENO, STDOUT_FILENO);
  // Own process group (Ctrl-C goes to the parent only), no blocked signals, and the default
  // action for the signals a shell or the parent may have set to be ignored.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE}) sigaddset(&defaults, s);
  posix_spawnattr_setflags(&setup.attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&setup.attributes, 0);
  posix_spawnattr_setsigmask(&setup.attributes, &none);
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);

  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, argv[0].c_str(), &setup.actions, &setup.attributes,
                               args.data(), environ);
  ::close(child_end);
  if (rc != 0) {
    ::close(fd_);
    fail(ExitCode::kRuntime, fmt::format("cannot start the worker process '{}': {}; rerun, or "
                                         "measure in-process with --no-isolation",
                                         argv[0], std::strerror(rc)));
  }
  channel_ = LineChannel(fd_);
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_ && pid_ > 0) kill();
  if (fd_ >= 0) ::close(fd_);
}

std::string WorkerProcess::reaped(int status) {
  reaped_ = true;
  ending_ = describe_wait_status(status);
  return ending_;
}

std::string WorkerProcess::kill() {
  if (reaped_) return ending_;
  // The group first (the worker leads it); the pid alone if the group is already gone.
  if (::kill(-pid_, SIGKILL) != 0) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return reaped(0);
  }
  return reaped(status);
}

std::string WorkerProcess::wait(double timeout_s) {
  if (reaped_) return ending_;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) return reaped(status);
    if (r < 0 && errno != EINTR) return reaped(0);
    if (std::chrono::steady_clock::now() >= deadline) return kill();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace occtune::isolation
