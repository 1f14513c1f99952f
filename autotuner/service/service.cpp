// Wiring of the service: the store check at start, the HTTP server with its limits, the routes,
// and which Host names are accepted.
#include "autotuner/service/service.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "autotuner/core/error.hpp"
#include "autotuner/service/http_server.hpp"
#include "autotuner/service/routes.hpp"
#include "db/store.hpp"
#include "db/wal_watch.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::service {

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

struct Service::Impl {
  ServiceOptions options;
  // Held open for the service's lifetime: it keeps the -shm file that `watch` maps in place.
  db::Store anchor;
  std::shared_ptr<const db::WalWatch> watch;
  Metrics metrics;
  HttpServer server;
  int port = 0;

  Impl(ServiceOptions o, db::Store store)
      : options(std::move(o)),
        anchor(std::move(store)),
        watch(open_watch(anchor, options.db)),
        metrics(BuildInfo{options.version, std::string(kernels::kernel_build_id()),
                          CPPHTTPLIB_VERSION, sqlite3_libversion()}),
        server(limits(options), metrics,
               Routes(
                   options.db, options.busy_timeout_ms, options.version, metrics,
                   [this] { return server.gauges(); }, watch)) {}

  static std::shared_ptr<const db::WalWatch> open_watch(db::Store& store,
                                                        const std::filesystem::path& path) {
    store.data_version();  // a first read maps the WAL index (creating -shm if need be)
    std::shared_ptr<const db::WalWatch> w = db::WalWatch::open(path);
    if (!w)
      spdlog::info(
          "{} has no WAL index to watch (not in WAL mode?): each request asks SQLite "
          "whether the database changed",
          path.string());
    return w;
  }

  static HttpLimits limits(const ServiceOptions& o) {
    HttpLimits l;
    l.workers = o.threads;
    l.queue = o.queue;
    return l;
  }
};

Service::Service(ServiceOptions options) {
  if (options.threads < 1 || options.threads > 1024)
    fail(ExitCode::kUsage,
         fmt::format("--threads {} is out of range; use 1 to 1024", options.threads));
  if (options.queue < 1 || options.queue > 65536)
    fail(ExitCode::kUsage,
         fmt::format("--queue {} is out of range; use 1 to 65536", options.queue));
  if (options.port < 0 || options.port > 65535)
    fail(ExitCode::kUsage, fmt::format("--port {} is out of range; use 0 to 65535 (0: any free "
                                       "port)",
                                       options.port));
  // Fail at start, with the store's own message, rather than on every request.
  auto anchor = db::Store::open(options.db, db::OpenMode::kReadOnly);
  impl_ = std::make_unique<Impl>(std::move(options), std::move(anchor));
}

Service::~Service() {
  if (impl_) impl_->server.stop_accepting();
}

int Service::bind() {
  const ServiceOptions& o = impl_->options;
  std::vector<std::string> hosts = o.allow_hosts;
  // The bound address itself, as a client writes it in Host (IPv6 in brackets).
  hosts.push_back(o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind);
  if (is_loopback(o.bind)) {
    hosts.push_back("localhost");
  } else {
    spdlog::warn(
        "listening on {}, which other machines may reach: the service has no "
        "authentication and no TLS; bind 127.0.0.1 unless that is intended",
        o.bind);
  }
  impl_->port = impl_->server.bind(o.bind, o.port, hosts);
  return impl_->port;
}

void Service::serve() {
  const ServiceOptions& o = impl_->options;
  spdlog::info("serving {} on http://{}:{}/ ({} workers, queue {})", o.db.string(),
               o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind, impl_->port,
               o.threads, o.queue);
  impl_->server.serve();
}

void Service::stop() { impl_->server.stop_accepting(); }

int Service::port() const { return impl_->port; }

}  // namespace occtune::service
