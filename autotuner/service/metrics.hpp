// The service's counters in the Prometheus text exposition format (version 0.0.4). Written by
// hand: Debian's prometheus-cpp pulls civetweb and libcurl development stacks for pull/push
// transports we do not need, ships shared objects only (one more library to carry to the GPU
// machines) and takes a mutex in Histogram::Observe; five metric families do not need it.
// Labels come from closed sets (routes, status codes, steps), so cardinality is bounded.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "db/lookup.hpp"

namespace occtune::service {

enum class Route { kDevices, kBest, kConfigs, kHealthz, kMetrics, kOpenApi, kOther };
inline constexpr std::size_t kRouteCount = 7;
std::string_view route_label(Route route);  // "/v1/best", ..., "other"
Route route_of(std::string_view path);      // kOther for anything that is not a route

struct BuildInfo {
  std::string version, kernel_build_id, httplib_version, sqlite_version;
};

class Metrics {
 public:
  explicit Metrics(BuildInfo build);

  void request(Route route, int status, std::chrono::nanoseconds duration);
  // One lookup step of /v1/best: hit or miss (steps not tried are not counted).
  void lookup_step(std::size_t step, bool hit);
  void connection_accepted() { accepted_.fetch_add(1, std::memory_order_relaxed); }
  void connection_shed() { shed_.fetch_add(1, std::memory_order_relaxed); }
  void store_busy() { busy_.fetch_add(1, std::memory_order_relaxed); }

  // Gauges read when rendering.
  struct Gauges {
    std::size_t workers = 0, busy_workers = 0, queued = 0;
  };
  std::string render(const Gauges& gauges) const;

  // Upper bounds of the latency buckets, in seconds.
  static constexpr std::array<double, 14> kBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                                      0.0025,  0.005,  0.01,    0.025,  0.05,
                                                      0.1,     0.25,   1.0,     5.0};

 private:
  static constexpr int kStatusCount = 600;
  BuildInfo build_;
  std::array<std::array<std::atomic<std::uint64_t>, kStatusCount>, kRouteCount> requests_{};
  std::array<std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1>, kRouteCount>
      buckets_{};  // non-cumulative here; the last one is +Inf
  std::array<std::atomic<std::uint64_t>, kRouteCount> duration_ns_{};
  std::array<std::array<std::atomic<std::uint64_t>, 2>, db::kLookupSteps.size()> lookup_{};  // [step][miss, hit]
  std::atomic<std::uint64_t> accepted_{0}, shed_{0}, busy_{0};
};

}  // namespace occtune::service
