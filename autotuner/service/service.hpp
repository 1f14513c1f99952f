// occtune serve: the HTTP query service for cached best configurations (issue #7). It reads the
// store read-only, one SQLite connection per worker thread, so a tune writing into the same
// database is seen by the next request and never blocked. httplib stays behind this header.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace occtune::service {

struct ServiceOptions {
  std::filesystem::path db;
  std::string bind = "127.0.0.1";
  int port = 8470;                       // 0: an ephemeral port (see Service::bind)
  std::vector<std::string> allow_hosts;  // Host names accepted besides the bound address
  std::size_t threads = 64;              // workers: connections served at once
  std::size_t queue = 256;               // accepted connections waiting for a worker
  int busy_timeout_ms = 100;             // how long a read waits for a lock before a 503
  std::string version;                   // reported in /metrics build info and /healthz
};

bool is_loopback(const std::string& address);

class Service {
 public:
  // Opens the store once to fail early: Error(kNotFound) for a missing or foreign database,
  // Error(kUsage) for options out of range.
  explicit Service(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  int bind();    // listens; returns the port. Throws Error(kRuntime) when it cannot.
  void serve();  // answers requests until stop(); returns when in-flight requests are done
  void stop();   // from any thread (not from a signal handler), before or during serve()
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace occtune::service
