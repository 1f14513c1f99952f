// The routes of the service: /v1/devices, /v1/best, /v1/configs, /healthz, /metrics and
// /openapi.json. Each worker thread keeps its own read-only store connection and the answers it
// derived from it, dropped as soon as the WAL index (or PRAGMA data_version) shows a commit.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "autotuner/service/metrics.hpp"
#include "db/wal_watch.hpp"

namespace occtune::service {

class Routes {
 public:
  // `watch` may be null (the database is not in WAL mode): then each request asks its
  // connection for PRAGMA data_version.
  Routes(std::filesystem::path db, int busy_timeout_ms, std::string version, Metrics& metrics,
         std::function<Metrics::Gauges()> gauges, std::shared_ptr<const db::WalWatch> watch);
  Route operator()(const httplib::Request& req, httplib::Response& res);

 private:
  std::filesystem::path db_;
  int busy_timeout_ms_;
  std::string version_;
  Metrics& metrics_;
  std::function<Metrics::Gauges()> gauges_;
  std::shared_ptr<const db::WalWatch> watch_;
  std::uint64_t id_;  // tells this instance's thread-local state from another's
};

}  // namespace occtune::service
