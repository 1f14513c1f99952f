// Conversions of autotuner/api/conversions.hpp.
#include "autotuner/api/conversions.hpp"

#include <filesystem>
#include <mutex>
#include <optional>

#include "db/store_path.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "kernels/registry.hpp"

namespace occtune::api {

// The public steps are the store's, in the same order (cast below).
static_assert(int(LookupStep::kExact) == int(db::LookupStep::kExact) &&
              int(LookupStep::kSameModel) == int(db::LookupStep::kSameModel) &&
              int(LookupStep::kSameArchitecture) == int(db::LookupStep::kSameArchitecture) &&
              int(LookupStep::kNearestShape) == int(db::LookupStep::kNearestShape) &&
              int(LookupStep::kHeuristic) == int(db::LookupStep::kHeuristic));

namespace {

const kernels::VariantInfo& registered(const std::string& symbol) {
  for (const auto& v : kernels::variants())
    if (v.symbol == symbol) return v;
  fail(ExitCode::kNotFound,
       fmt::format("the cached configuration names the kernel variant '{}', which this build of "
                   "occtune does not have; tune again with this build",
                   symbol));
}

void set_launch(LaunchConfig& c, const kernels::VariantInfo& v, Shape asked) {
  c.family = v.family;
  c.variant = v.symbol;
  c.block_x = v.block_x;
  c.block_y = v.block_y;
  c.block_z = 1;
  c.grid_x = (asked.n + v.tile_n - 1) / v.tile_n;
  c.grid_y = (asked.m + v.tile_m - 1) / v.tile_m;
  c.grid_z = v.grid_z;
  if (const auto uv = user_variant(v)) {  // a user family computes its own grid
    const UserFamily& f = *find_user_family(v.family);
    const Grid g = user_grid(f, *uv, to_dims(f, asked));
    c.grid_x = g.x;
    c.grid_y = g.y;
    c.grid_z = g.z;
  }
  c.dynamic_smem = v.dynamic_smem;
  c.params.clear();
  for (const auto& p : v.params) c.params.push_back({p.name, p.value});
}

TimingSummary to_summary(const Summary& s) {
  return {s.median, s.min, s.q1, s.q3, s.max, static_cast<int>(s.count)};
}

}  // namespace

DeviceIdentity to_identity(const DeviceInfo& d) {
  return {d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.driver_version, d.runtime_version};
}

const Cache* process_cache() {
  static std::mutex mutex;
  static std::optional<Cache> cache;
  std::lock_guard lock(mutex);
  if (!cache) {
    const db::StorePath where = db::resolve_store_path();
    std::error_code ec;
    if (!std::filesystem::exists(where.path, ec)) return nullptr;
    cache.emplace(Cache::open(where.path.string()));
  }
  return &*cache;
}

std::vector<Param> parse_params(const std::string& label) {
  std::vector<Param> out;
  std::string_view rest = label;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const auto eq = item.find('=');
    Param p;
    p.name = std::string(item.substr(0, eq));
    if (eq != std::string_view::npos) {
      const auto digits = item.substr(eq + 1);
      std::from_chars(digits.data(), digits.data() + digits.size(), p.value);
    }
    out.push_back(std::move(p));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

Answer to_answer(const db::LookupResult& result, Shape asked) {
  Answer a;
  a.answered_by = static_cast<LookupStep>(*result.answered_by);
  a.shape_distance = result.shape_distance;
  for (const auto& s : result.steps)
    a.chain.push_back(
        {static_cast<LookupStep>(s.step), std::string(db::to_string(s.state)), s.detail});
  if (result.entry) {
    const db::BestEntry& e = *result.entry;
    const db::StoredMeasurement& m = e.best;
    set_launch(a.config, registered(m.variant), asked);
    a.config.threads = m.threads;
    a.config.occupancy = m.occupancy;
    a.config.active_blocks_per_sm = m.active_blocks_per_sm;
    a.config.limiter = m.limiter;
    MeasuredResult r;
    r.device_uuid = e.run.key.device_uuid;
    r.device_name = e.run.key.device_name;
    r.m = e.run.key.shape.m;
    r.n = e.run.key.shape.n;
    r.k = e.run.key.shape.k;
    r.kernel_build_id = e.run.key.build_id;
    r.timing = to_summary(m.summary);
    r.cublas = to_summary(e.run.cublas);
    r.rel_error = m.rel_error;
    r.run_id = e.run.id;
    r.run_finished_at = e.run.finished_at;
    a.measurement = std::move(r);
  } else if (result.heuristic) {
    const Candidate& c = result.heuristic->candidate;
    set_launch(a.config, *c.variant, asked);
    a.config.threads = c.threads;
    a.config.occupancy = c.occupancy;
    a.config.active_blocks_per_sm = c.active_blocks_per_sm;
    a.config.limiter = c.limiter;
  }
  return a;
}

}  // namespace occtune::api
