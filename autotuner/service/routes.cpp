// Route handlers. Errors leave here only as problem details (problem.hpp): parameters as 400s
// naming the parameter, a locked store as 503 with Retry-After, anything else as a generic 500
// whose cause goes to the log, never to the client.
#include "autotuner/service/routes.hpp"

#include "autotuner/core/model_json.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <optional>
#include <unordered_map>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/lookup_json.hpp"
#include "autotuner/output/problem_json.hpp"
#include "autotuner/service/http_server.hpp"
#include "autotuner/service/openapi.hpp"
#include "autotuner/service/params.hpp"
#include "autotuner/service/problem.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db/wal_watch.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::service {
namespace {

using nlohmann::json;

constexpr std::string_view kJson = "application/json";

struct Answer {
  int status = 200;
  std::string body;
  std::string_view content_type = kJson;
  // /v1/best, per step of the chain: -1 not tried, 0 miss, 1 hit
  std::array<int, db::kLookupSteps.size()> steps{-1, -1, -1, -1, -1};
};

// One per worker thread: its store connection and the answers derived from the version of the
// database that connection last saw. Bounded in answers and in bytes (a /v1/configs page of 500
// entries is about 1 MB): past either bound the cache starts over.
// What the database looked like when answers were derived: the WAL index header when it can be
// watched, else this connection's PRAGMA data_version (values of one connection only).
struct DataVersion {
  std::optional<db::WalWatch::Header> header;
  std::int64_t connection = -1;
  bool operator==(const DataVersion&) const = default;
};

struct WorkerState {
  static constexpr std::size_t kMaxCached = 256;
  static constexpr std::size_t kMaxCachedBytes = 4 << 20;
  std::uint64_t owner = 0;
  std::optional<db::Store> store;
  std::optional<DataVersion> version;
  std::unordered_map<std::string, Answer> cache;
  std::size_t cached_bytes = 0;
  void clear_cache() {
    cache.clear();
    cached_bytes = 0;
  }
};
thread_local WorkerState tls_state;

std::atomic<std::uint64_t> next_id{1};

void send(httplib::Response& res, const Answer& a) {
  res.status = a.status;
  res.set_content(a.body, std::string(a.content_type));
}

Answer problem_answer(const Problem& p) {
  Answer a;
  a.status = p.status;
  a.body = p.body();
  a.content_type = kProblemContentType;
  return a;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The cache-key fields of a device in the model's one encoding (autotuner/core/model_json).
json device_summary(const DeviceInfo& d) { return model::device_key_json(d); }

Answer best_answer(db::Store& store, const BestRequest& r) {
  const std::string& uuid = r.device;
  const std::string& kernel = r.kernel;
  const Shape shape = r.shape;
  const std::string& dtype = r.dtype;
  const bool fallback = r.fallback;
  const std::string& layout = r.layout;

  auto records = store.device_records(uuid);
  if (records.empty()) return problem_answer(unknown_device(uuid));
  const DeviceInfo& device = records.front();
  const auto key = db::CacheKey::make(
      device, kernel, family_build_id(kernel, kernels::kernel_build_id()), shape, dtype, layout);
  db::LookupOptions options;
  options.fallback = fallback;
  options.device = &device;
  const db::LookupResult result = db::lookup(store, key, options);

  Answer a;
  for (auto& s : result.steps) {
    a.steps[static_cast<std::size_t>(s.step)] =
        s.state == db::StepReport::State::kNotTried ? -1 : s.state == db::StepReport::State::kHit;
  }
  if (!result.hit()) {
    Answer miss = problem_answer(
        no_configuration(fmt::format("no configuration for {} {} (layout {}) on {} ({}) with "
                                     "kernel build {}{}",
                                     kernel.empty() ? "any kernel" : kernel,
                                     problem_text(kernel, shape), layout,
                                     uuid, device.name, key.build_id,
                                     fallback ? " at any step of the lookup chain"
                                              : " for the exact key (fallback=false)"),
                         output::chain_json(result)));
    miss.steps = a.steps;
    return miss;
  }
  json body = output::to_json(result);
  body["request"] = {{"device", uuid},
                     {"kernel", kernel.empty() ? json(nullptr) : json(kernel)},
                     {"m", shape.m},
                     {"n", shape.n},   {"k", shape.k},         {"shape", shape.str()},
                     {"dtype", dtype}, {"layout", layout}, {"fallback", fallback},
                     {"build_id", key.build_id}};
  // A user kernel family's m, n, k are its dimensions in declared order; its names beside them.
  output::add_problem(body["request"], kernel, shape);
  body["device"] = device_summary(device);
  a.body = dump(output::document("best", body));
  return a;
}

Answer configs_answer(db::Store& store, const ConfigsRequest& r) {
  db::EntryQuery q;
  q.order = db::EntryQuery::Order::kRunId;
  q.device_uuid = r.device;
  q.kernel = r.kernel;
  q.limit = r.limit;
  q.before_run_id = r.cursor;
  q.layout = r.layout;
  const db::EntryPage page = store.entries(q);
  json entries = json::array();
  for (auto& e : page.entries) {
    json entry = output::to_json(e);
    output::add_problem(entry, e.run.key.kernel, e.run.key.shape);
    entries.push_back(std::move(entry));
  }
  json next = page.next_before_run_id > 0 ? json(page.next_before_run_id) : json(nullptr);
  Answer a;
  a.body = dump(output::document(
      "configs", {{"entries", entries}, {"next_cursor", next}, {"limit", q.limit}}));
  return a;
}

Answer devices_answer(db::Store& store) {
  json devices = json::array();
  for (auto& d : store.device_records()) {
    json j = output::to_json(d);
    j.erase("index");  // a runtime ordinal of the machine that tuned, meaningless here
    devices.push_back(std::move(j));
  }
  Answer a;
  a.body = dump(output::document("devices", {{"devices", devices}}));
  return a;
}

}  // namespace

Routes::Routes(std::filesystem::path db, int busy_timeout_ms, std::string version, Metrics& metrics,
               std::function<Metrics::Gauges()> gauges, std::shared_ptr<const db::WalWatch> watch)
    : db_(std::move(db)),
      busy_timeout_ms_(busy_timeout_ms),
      version_(std::move(version)),
      metrics_(metrics),
      gauges_(std::move(gauges)),
      watch_(std::move(watch)),
      id_(next_id.fetch_add(1)) {}

Route Routes::operator()(const httplib::Request& req, httplib::Response& res) {
  const Route route = route_of(req.path);
  WorkerState& state = tls_state;
  if (state.owner != id_) state = WorkerState{id_, std::nullopt, std::nullopt, {}, 0};
  try {
    reject_repeated_names(req.target);
    switch (route) {
      case Route::kOther:
        send_problem(res, not_found(req.path));
        return route;
      case Route::kMetrics:
        QueryParams(req.params, {});
        res.status = 200;
        res.set_content(metrics_.render(gauges_()), "text/plain; version=0.0.4; charset=utf-8");
        return route;
      case Route::kOpenApi:
        QueryParams(req.params, {});
        res.status = 200;
        res.set_content(openapi_document().data(), openapi_document().size(), "application/json");
        return route;
      default:
        break;
    }

    // Every parameter is validated before anything else (the cache included) sees it.
    std::string cache_key;
    std::optional<BestRequest> best;
    std::optional<ConfigsRequest> configs;
    switch (route) {
      case Route::kBest:
        best = parse_best(req.params);
        cache_key = best->cache_key();
        break;
      case Route::kConfigs:
        configs = parse_configs(req.params);
        cache_key = configs->cache_key();
        break;
      default:  // /healthz, /v1/devices
        QueryParams(req.params, {});
        cache_key = "devices";
        break;
    }

    // Routes that read the store: one connection per worker, kept open.
    if (!state.store) {
      state.store.emplace(db::Store::open(db_, db::OpenMode::kReadOnly));
      state.store->set_busy_timeout(busy_timeout_ms_);
    }
    db::Store& store = *state.store;
    // Has anyone committed since this worker's answers were derived? The WAL index header
    // says so without a lock; without one (not WAL), the connection's data_version does.
    DataVersion version;
    if (auto header = watch_ ? watch_->header() : std::nullopt) {
      version.header = *header;
    } else {
      version.connection = store.data_version();
    }
    if (version != state.version) {
      state.clear_cache();
      state.version = version;
    }
    if (route == Route::kHealthz) {
      store.data_version();  // proves the file is readable now, not only mapped
      res.status = 200;
      res.set_content(dump({{"status", "ok"}, {"version", version_}}), std::string(kJson));
      return route;
    }
    auto cached = state.cache.find(cache_key);
    if (cached == state.cache.end()) {
      Answer a = best      ? best_answer(store, *best)
                 : configs ? configs_answer(store, *configs)
                           : devices_answer(store);
      const std::size_t bytes = a.body.size() + cache_key.size();
      if (state.cache.size() >= WorkerState::kMaxCached ||
          state.cached_bytes + bytes > WorkerState::kMaxCachedBytes)
        state.clear_cache();
      state.cached_bytes += bytes;
      cached = state.cache.emplace(std::move(cache_key), std::move(a)).first;
    }
    const Answer& answer = cached->second;
    for (std::size_t s = 0; s < answer.steps.size(); ++s)
      if (answer.steps[s] >= 0) metrics_.lookup_step(s, answer.steps[s] == 1);
    send(res, answer);
  } catch (const BadParameter& e) {
    send_problem(res, bad_parameter(e.name, e.detail));
  } catch (const db::StoreBusy& e) {
    metrics_.store_busy();
    spdlog::warn("{}", e.what());
    send_problem(res, store_busy());
  } catch (const Error& e) {
    // The store could not be read (moved, replaced, corrupt): log why, reopen next time.
    spdlog::error("{} {}: {}", printable(req.method, 16), printable(req.path, 200), e.what());
    state.store.reset();
    send_problem(res, store_unavailable());
  }
  return route;
}

}  // namespace occtune::service
