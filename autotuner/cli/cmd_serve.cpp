// occtune serve: runs the HTTP query service (autotuner/service) on the store until SIGINT or
// SIGTERM. The signals are blocked in every thread and taken by one watcher thread (sigwait),
// which stops the server from ordinary code: nothing runs inside a signal handler.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <thread>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/service/service.hpp"
#include "db/store.hpp"

namespace occtune::cli {
namespace {

struct ServeOptions {
  std::string db;
  std::string bind = "127.0.0.1";
  int port = 8470;
  std::vector<std::string> allow_hosts;
  int threads = 64;
  int queue = 256;
};

// Workers log concurrently: swap the CLI's single-threaded logger for a thread-safe one with
// timestamps (a service's log outlives the terminal), keeping the level.
void use_service_logger() {
  const auto level = spdlog::default_logger()->level();
  const bool color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  auto logger = spdlog::get("occtune_serve");
  if (!logger)
    logger = color ? spdlog::stderr_color_mt("occtune_serve")
                   : spdlog::stderr_logger_mt("occtune_serve");
  logger->set_pattern("occtune: %Y-%m-%dT%H:%M:%S.%e %^%l%$: %v");
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

// An address written as numbers must be one (999.1.1.1 would end in getaddrinfo's "No such
// file or directory"); a host name is left to the resolver.
void check_bind_address(const std::string& bind) {
  in6_addr v6{};
  in_addr v4{};
  const bool numeric = !bind.empty() && bind.find_first_not_of("0123456789.") == std::string::npos;
  const bool ipv6 = bind.find(':') != std::string::npos;
  if (bind.empty() || (numeric && ::inet_pton(AF_INET, bind.c_str(), &v4) != 1) ||
      (ipv6 && ::inet_pton(AF_INET6, bind.c_str(), &v6) != 1))
    fail(ExitCode::kUsage, fmt::format("--bind '{}' is not an IPv4 or IPv6 address; use an "
                                       "address of this machine, e.g. 127.0.0.1 or ::1",
                                       bind));
}

int run_serve(const ServeOptions& o) {
  use_service_logger();
  service::ServiceOptions options;
  options.db = resolve_db(o.db);
  options.bind = o.bind;
  check_bind_address(o.bind);
  options.port = o.port;
  options.allow_hosts = o.allow_hosts;
  if (o.threads < 1 || o.queue < 1)
    fail(ExitCode::kUsage, fmt::format("--threads and --queue must be at least 1 (got {} and {})",
                                       o.threads, o.queue));
  options.threads = static_cast<std::size_t>(o.threads);
  options.queue = static_cast<std::size_t>(o.queue);
  options.version = OCCTUNE_VERSION;

  // Every request allocates (httplib's request and response objects). glibc caps malloc at 8
  // arenas per core, 16 on the 2-core machine, so 64 workers share arenas and queue on their
  // locks when a thread is preempted holding one: wrk's p99 went from 9-17 ms to 2.4-3.2 ms at
  // 45-54k requests/s with an arena per worker. Arenas are reserved lazily (address space).
  mallopt(M_ARENA_MAX, o.threads + 8);

  // Block the stop signals before any thread exists, so every thread inherits the mask and
  // only the watcher below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  service::Service service(options);
  const int port = service.bind();
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    const timespec slice{0, 200'000'000};
    while (!done.load()) {
      const int signal = sigtimedwait(&stop_signals, nullptr, &slice);
      if (signal == SIGINT || signal == SIGTERM) {
        spdlog::info("{}: stopping (requests in flight finish)",
                     signal == SIGINT ? "SIGINT" : "SIGTERM");
        service.stop();
        return;
      }
    }
  });
  spdlog::info("listening on port {}", port);
  try {
    service.serve();
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, Context&, Action& action) {
  auto* cmd =
      app.add_subcommand("serve",
                         "Serve cached best configurations over HTTP (GET /v1/best, /v1/configs, "
                         "/v1/devices, /healthz, /metrics, /openapi.json)");
  auto o = std::make_shared<ServeOptions>();
  add_db_option(*cmd, o->db, "opened read-only");
  cmd->add_option("--bind", o->bind,
                  "address to listen on (default 127.0.0.1; any other address is reachable from "
                  "other machines and is logged as a warning)");
  cmd->add_option("--port", o->port, "TCP port (default 8470; 0 picks a free one)");
  cmd->add_option("--allow-host", o->allow_hosts,
                  "a Host name to accept besides the bound address (repeatable); requests for "
                  "other names are refused (DNS rebinding)");
  cmd->add_option("--threads", o->threads, "worker threads: connections served at once (64)");
  cmd->add_option("--queue", o->queue,
                  "accepted connections that may wait for a worker (256); beyond it: 503");
  cmd->callback([&action, o] { action = [o] { return run_serve(*o); }; });
}

}  // namespace occtune::cli
