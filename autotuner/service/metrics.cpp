// Prometheus text rendering of the service counters.
#include "autotuner/service/metrics.hpp"

#include <fmt/format.h>

#include "db/lookup.hpp"

namespace occtune::service {
namespace {

constexpr std::array<Route, kRouteCount> kRoutes = {
    Route::kDevices, Route::kBest,    Route::kConfigs, Route::kHealthz,
    Route::kMetrics, Route::kOpenApi, Route::kOther};

// Label values are ours, but escape per the format anyway (backslash, quote, newline).
std::string escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string_view route_label(Route route) {
  switch (route) {
    case Route::kDevices:
      return "/v1/devices";
    case Route::kBest:
      return "/v1/best";
    case Route::kConfigs:
      return "/v1/configs";
    case Route::kHealthz:
      return "/healthz";
    case Route::kMetrics:
      return "/metrics";
    case Route::kOpenApi:
      return "/openapi.json";
    case Route::kOther:
      return "other";
  }
  return "other";
}

Route route_of(std::string_view path) {
  for (Route route : kRoutes)
    if (route != Route::kOther && route_label(route) == path) return route;
  return Route::kOther;
}

Metrics::Metrics(BuildInfo build) : build_(std::move(build)) {}

void Metrics::request(Route route, int status, std::chrono::nanoseconds duration) {
  const auto r = static_cast<std::size_t>(route);
  if (status < 0 || status >= kStatusCount) status = 0;
  requests_[r][static_cast<std::size_t>(status)].fetch_add(1, std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(duration).count();
  std::size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket]) ++bucket;
  buckets_[r][bucket].fetch_add(1, std::memory_order_relaxed);
  duration_ns_[r].fetch_add(static_cast<std::uint64_t>(duration.count()),
                            std::memory_order_relaxed);
}

void Metrics::lookup_step(std::size_t step, bool hit) {
  if (step < lookup_.size()) lookup_[step][hit ? 1 : 0].fetch_add(1, std::memory_order_relaxed);
}

std::string Metrics::render(const Gauges& gauges) const {
  std::string out;
  out.reserve(8192);
  header(out, "occtune_http_requests_total", "counter",
         "HTTP responses sent, by route (fixed set; \"other\" for anything else) and status.");
  for (Route route : kRoutes) {
    const auto r = static_cast<std::size_t>(route);
    for (int status = 0; status < kStatusCount; ++status) {
      const auto n = requests_[r][static_cast<std::size_t>(status)].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out += fmt::format("occtune_http_requests_total{{route=\"{}\",status=\"{}\"}} {}\n",
                         route_label(route), status, n);
    }
  }

  header(out, "occtune_http_request_duration_seconds", "histogram",
         "Time from the first byte of a request to the end of its response, by route.");
  for (Route route : kRoutes) {
    const auto r = static_cast<std::size_t>(route);
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += buckets_[r][b].load(std::memory_order_relaxed);
      const std::string le = b < kBuckets.size() ? fmt::format("{}", kBuckets[b]) : "+Inf";
      out +=
          fmt::format("occtune_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
                      route_label(route), le, cumulative);
    }
    out += fmt::format("occtune_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n",
                       route_label(route),
                       double(duration_ns_[r].load(std::memory_order_relaxed)) * 1e-9);
    out += fmt::format("occtune_http_request_duration_seconds_count{{route=\"{}\"}} {}\n",
                       route_label(route), cumulative);
  }

  header(out, "occtune_lookup_steps_total", "counter",
         "Steps of the /v1/best lookup chain tried, by step and result (hit or miss).");
  for (std::size_t s = 0; s < lookup_.size(); ++s) {
    for (int hit = 1; hit >= 0; --hit) {
      out += fmt::format("occtune_lookup_steps_total{{step=\"{}\",result=\"{}\"}} {}\n",
                         db::to_string(db::kLookupSteps[s]), hit ? "hit" : "miss",
                         lookup_[s][static_cast<std::size_t>(hit)].load(std::memory_order_relaxed));
    }
  }

  header(out, "occtune_connections_accepted_total", "counter", "TCP connections accepted.");
  out += fmt::format("occtune_connections_accepted_total {}\n", accepted_.load());
  header(out, "occtune_connections_shed_total", "counter",
         "Connections answered 503 because every worker was busy and the queue was full.");
  out += fmt::format("occtune_connections_shed_total {}\n", shed_.load());
  header(out, "occtune_store_busy_total", "counter",
         "Requests answered 503 because the database was locked.");
  out += fmt::format("occtune_store_busy_total {}\n", busy_.load());
  header(out, "occtune_workers", "gauge", "Worker threads of the server.");
  out += fmt::format("occtune_workers {}\n", gauges.workers);
  header(out, "occtune_workers_busy", "gauge", "Worker threads serving a connection.");
  out += fmt::format("occtune_workers_busy {}\n", gauges.busy_workers);
  header(out, "occtune_connections_queued", "gauge", "Accepted connections waiting for a worker.");
  out += fmt::format("occtune_connections_queued {}\n", gauges.queued);

  header(out, "occtune_build_info", "gauge", "Build of the running server; the value is 1.");
  out += fmt::format(
      "occtune_build_info{{version=\"{}\",kernel_build_id=\"{}\",httplib=\"{}\",sqlite=\"{}\"}} "
      "1\n",
      escape(build_.version), escape(build_.kernel_build_id), escape(build_.httplib_version),
      escape(build_.sqlite_version));
  return out;
}

}  // namespace occtune::service
