// The worker process: holds the CUDA context and runs what the parent asks, through the same
// in-process backend `--no-isolation` uses. It dies with its parent, ignores Ctrl-C (the parent
// commits what it has, then stops it) and leaves with _exit after a sticky CUDA error.
#include "autotuner/cli/worker_mode.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <string>

#include "autotuner/cli/source_jobs.hpp"
#include "autotuner/cuda/in_process_backend.hpp"
#include "autotuner/isolation/worker_process.hpp"
#include "autotuner/isolation/worker_server.hpp"

namespace occtune::cli {

int run_worker(int argc, char** argv) {
  // SIGKILL when the parent dies, whatever it died of; if it is already gone (it died before
  // this line), leave now.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--parent" && std::atol(argv[i + 1]) != long(::getppid())) return 0;
  ::signal(SIGINT, SIG_IGN);
  spdlog::default_logger()->set_pattern("occtune worker " + std::to_string(::getpid()) +
                                        ": %^%l%$: %v");
  int code = isolation::kWorkerStopped;
  try {
    // The source kernels of the parent's job file (OCCTUNE_SOURCE_JOB), before the registry is
    // first read, so both processes know the same families.
    cuda::register_source_job_from_env(source_family_options());
    code = isolation::serve(isolation::kWorkerFd, [](const std::string& selector) {
      return cuda::make_in_process_backend(selector);
    });
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());  // the parent sees the channel close and reports the crash
  }
  spdlog::default_logger()->flush();
  // After a sticky error the context is unusable: skip CUDA teardown (destructors, atexit).
  if (code != isolation::kWorkerDone) ::_exit(code);
  return code;
}

}  // namespace occtune::cli
