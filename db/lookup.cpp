// The lookup chain: exact key -> same device model -> same architecture -> nearest measured
// shape -> occupancy heuristic. Steps 1-4 read entries through Store (so "an entry" means what
// Store::best answers); step 5 plans offline with cuda_occupancy.h on the device properties
// stored for the UUID.
#include "db/lookup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_limits.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "kernels/registry.hpp"

namespace occtune::db {
namespace {

std::string describe(const BestEntry& e) {
  return fmt::format("run {} finished {}: {} ({} threads), median {:.4f} ms", e.run.id,
                     e.run.finished_at, e.best.params, e.best.threads, e.best.summary.median);
}

std::string cc(int major, int minor) { return fmt::format("{}.{}", major, minor); }

// The fields that every fallback keeps: same kernel build, dtype, shape and layout.
EntryQuery same_work(const CacheKey& key) {
  EntryQuery q;
  q.kernel = key.kernel;
  q.build_id = key.build_id;
  q.dtype = key.dtype;
  q.shape = key.shape;
  q.layout = key.layout;
  q.excluding = key;
  q.limit = 4;  // keys whose newest run has no correct result are skipped; look a little further
  return q;
}

// Boards of the key's model whose entries for this work are apart beyond their noise (the median
// intervals of the fastest and the slowest board's best do not overlap): a same-model answer then
// depends on which board measured it, and says so. "" when they agree or one board measured.
std::string model_disagreement(Store& store, const CacheKey& key) {
  EntryQuery q = same_work(key);
  q.device_name = key.device_name;
  q.excluding.reset();
  q.limit = 16;
  const auto page = store.entries(q);
  std::vector<const BestEntry*> boards;  // the newest entry of each UUID
  for (auto& e : page.entries)
    if (std::none_of(boards.begin(), boards.end(), [&](const BestEntry* b) {
          return b->run.key.device_uuid == e.run.key.device_uuid;
        }))
      boards.push_back(&e);
  if (boards.size() < 2) return "";
  const auto [fast, slow] =
      std::minmax_element(boards.begin(), boards.end(), [](const BestEntry* a, const BestEntry* b) {
        return a->best.summary.median < b->best.summary.median;
      });
  const Interval &a = (*fast)->best.median_ci, &b = (*slow)->best.median_ci;
  if (a.high <= 0 || b.high <= 0 || a.overlaps(b)) return "";  // older rows have no interval
  auto board = [](const BestEntry* e) {
    return fmt::format("{} {} {:.4f} ms [{:.4f}, {:.4f}]", e->run.key.device_uuid, e->best.params,
                       e->best.summary.median, e->best.median_ci.low, e->best.median_ci.high);
  };
  return fmt::format(
      "; the {} boards of this model that measured it disagree beyond their noise: "
      "fastest {}, slowest {}",
      boards.size(), board(*fast), board(*slow));
}

std::optional<BestEntry> first_entry(Store& store, const EntryQuery& q) {
  auto page = store.entries(q);
  if (page.entries.empty()) return std::nullopt;
  return std::move(page.entries.front());
}

}  // namespace

std::string_view to_string(LookupStep step) {
  switch (step) {
    case LookupStep::kExact:
      return "exact";
    case LookupStep::kSameModel:
      return "same_model";
    case LookupStep::kSameArchitecture:
      return "same_architecture";
    case LookupStep::kNearestShape:
      return "nearest_shape";
    case LookupStep::kHeuristic:
      return "heuristic";
  }
  return "exact";
}

std::string_view to_string(StepReport::State state) {
  switch (state) {
    case StepReport::State::kHit:
      return "hit";
    case StepReport::State::kMiss:
      return "miss";
    case StepReport::State::kNotTried:
      return "not_tried";
  }
  return "not_tried";
}

HeuristicAnswer occupancy_heuristic(const DeviceInfo& device, const std::string& kernel,
                                    Shape shape, Layout layout) {
  const kernels::FamilyInfo* family = kernels::find_family(kernel);
  if (!family)
    fail(ExitCode::kUsage,
         fmt::format("unknown kernel '{}'; known kernels: {}", kernel, kernels::family_names()));
  OfflineOccupancy oracle(device);
  const Plan plan = plan_family(*family, device, shape, oracle, 0, layout);
  HeuristicAnswer answer;
  answer.oracle = plan.oracle;
  const Candidate* pick = nullptr;
  if (!family->generation_symbol.empty()) {
    // The textbook method's own answer (occupancy API, snapped to a power of four); when the
    // device cannot run it (e.g. a grid limit), its next answer.
    for (auto& c : plan.candidates) {
      if (c.rejection.empty()) {
        pick = &c;
        break;
      }
    }
    answer.method =
        "textbook occupancy method (occupancy API, block size snapped to a power of "
        "four)";
  } else {
    for (auto& c : plan.candidates) {
      if (c.rejection.empty() && (!pick || c.occupancy > pick->occupancy)) pick = &c;
    }
    answer.method = "highest theoretical occupancy among the registered variants";
  }
  if (!pick)
    fail(ExitCode::kNotFound, fmt::format("no runnable {} configuration for {} on {}", kernel,
                                          shape.str(), device.name));
  answer.candidate = *pick;
  answer.nearest_arch_registers = oracle.used_nearest_arch();
  return answer;
}

double shape_distance(const Shape& a, const Shape& b) {
  auto term = [](std::int64_t x, std::int64_t y) {
    const double d = std::log(double(std::max<std::int64_t>(x, 1))) -
                     std::log(double(std::max<std::int64_t>(y, 1)));
    return d * d;
  };
  return std::sqrt(term(a.m, b.m) + term(a.n, b.n) + term(a.k, b.k));
}

namespace {

// What one measured step found for one family.
struct StepHit {
  BestEntry entry;
  std::string detail;
  double distance = 0;  // nearest shape only
};

std::optional<StepHit> nearest_shape(Store& store, const CacheKey& key) {
  EntryQuery q = same_work(key);  // any shape of this very device
  q.shape.reset();
  q.device_uuid = key.device_uuid;
  q.device_name = key.device_name;
  q.cc_major = key.cc_major;
  q.cc_minor = key.cc_minor;
  q.sm_count = key.sm_count;
  q.driver_version = key.driver_version;
  q.runtime_version = key.runtime_version;
  q.order = EntryQuery::Order::kRunId;
  q.limit = 256;
  std::optional<StepHit> best;
  for (;;) {
    EntryPage page = store.entries(q);
    for (auto& e : page.entries) {
      const double d = shape_distance(key.shape, e.run.key.shape);
      // Nearest first; among equally near shapes the newest run (pages come newest first).
      if (!best || d < best->distance) best = StepHit{std::move(e), {}, d};
    }
    if (page.next_before_run_id == 0) break;
    q.before_run_id = page.next_before_run_id;
  }
  if (best)
    best->detail = fmt::format("{} at distance {:.3f} from {}: {}", best->entry.run.key.shape.str(),
                               best->distance, key.shape.str(), describe(best->entry));
  return best;
}

// The measured steps (everything but the heuristic) for one family: key.kernel is set.
std::optional<StepHit> measured_step(Store& store, const CacheKey& key, LookupStep step) {
  switch (step) {
    case LookupStep::kExact: {
      auto entry = store.best(key);
      if (!entry) return std::nullopt;
      std::string detail = describe(*entry);
      return StepHit{std::move(*entry), std::move(detail)};
    }
    case LookupStep::kSameModel: {
      EntryQuery q = same_work(key);
      q.device_name = key.device_name;
      auto entry = first_entry(store, q);
      if (!entry) return std::nullopt;
      std::string detail =
          fmt::format("{} ({}, driver {}, runtime {}): {}", entry->run.key.device_uuid,
                      entry->run.key.device_name, entry->run.key.driver_version,
                      entry->run.key.runtime_version, describe(*entry)) +
          model_disagreement(store, key);
      return StepHit{std::move(*entry), std::move(detail)};
    }
    case LookupStep::kSameArchitecture: {
      EntryQuery q = same_work(key);
      q.cc_major = key.cc_major;
      q.cc_minor = key.cc_minor;
      auto entry = first_entry(store, q);
      if (!entry) return std::nullopt;
      std::string detail = fmt::format(
          "{} ({}, compute capability {}): {}", entry->run.key.device_uuid,
          entry->run.key.device_name, cc(entry->run.key.cc_major, entry->run.key.cc_minor),
          describe(*entry));
      return StepHit{std::move(*entry), std::move(detail)};
    }
    case LookupStep::kNearestShape:
      return nearest_shape(store, key);
    case LookupStep::kHeuristic:
      break;
  }
  return std::nullopt;
}

std::string miss_detail(const CacheKey& key, LookupStep step) {
  const std::string what = key.kernel.empty() ? "any kernel family" : "this kernel build";
  switch (step) {
    case LookupStep::kExact:
      return "no complete run with a correct result for this exact key (device, driver, "
             "runtime, kernel build, dtype, shape, layout)";
    case LookupStep::kSameModel:
      return fmt::format("no other entry for a {} with {}, dtype and shape", key.device_name, what);
    case LookupStep::kSameArchitecture:
      return fmt::format(
          "no entry for a device of compute capability {} with {}, dtype and shape",
          cc(key.cc_major, key.cc_minor), what);
    case LookupStep::kNearestShape:
      return fmt::format("no entry of {} at another shape on this device (same driver, runtime "
                         "and dtype)",
                         what);
    case LookupStep::kHeuristic:
      break;
  }
  return {};
}

// The step for the key's family, or, for an empty family, for every registered family: the
// fastest correct entry among those that hit (for the nearest shape: the nearest, then the
// fastest), so a faster family measured at the same step always wins.
std::optional<StepHit> any_family_step(Store& store, const CacheKey& key, LookupStep step) {
  if (!key.kernel.empty()) return measured_step(store, key, step);
  std::optional<StepHit> best;
  for (const auto& family : kernels::families()) {
    CacheKey k = key;
    k.kernel = family.name;
    auto hit = measured_step(store, k, step);
    if (!hit) continue;
    const auto rank = [](const StepHit& h) {
      return std::pair{h.distance, h.entry.best.summary.median};
    };
    if (!best || rank(*hit) < rank(*best)) best = std::move(hit);
  }
  if (best) best->detail = best->entry.run.key.kernel + ": " + best->detail;
  return best;
}

}  // namespace

LookupResult lookup(Store& store, const CacheKey& key, const LookupOptions& options) {
  LookupResult result;
  for (LookupStep step : kLookupSteps)
    result.steps.push_back({step, StepReport::State::kNotTried, {}});
  auto may_answer = [&](LookupStep step) {
    return !result.hit() && (step == LookupStep::kExact || options.fallback);
  };
  auto report = [&](LookupStep step) -> StepReport& {
    return result.steps[static_cast<std::size_t>(step)];
  };
  auto should_try = [&](LookupStep step) {
    if (may_answer(step) || options.probe_all) return true;
    report(step).detail =
        result.hit() ? fmt::format("not tried: {} answered", to_string(*result.answered_by))
                     : std::string("not tried: fallback was not requested");
    return false;
  };

  for (LookupStep step : kLookupSteps) {
    if (step == LookupStep::kHeuristic || !should_try(step)) continue;
    StepReport& r = report(step);
    auto hit = any_family_step(store, key, step);
    if (!hit) {
      r.state = StepReport::State::kMiss;
      r.detail = miss_detail(key, step);
      continue;
    }
    r.state = StepReport::State::kHit;
    r.detail = std::move(hit->detail);
    if (may_answer(step)) {
      result.answered_by = step;
      result.shape_distance = hit->distance;
      result.entry = std::move(hit->entry);
    } else {
      r.detail += result.hit() ? " (not used: an earlier step answered)"
                               : " (not used: fallback was not requested)";
    }
  }

  if (should_try(LookupStep::kHeuristic)) {
    StepReport& r = report(LookupStep::kHeuristic);
    const std::string kernel = key.kernel.empty() ? kTextbookFamily : key.kernel;
    std::optional<DeviceInfo> device;
    if (options.device) {
      device = *options.device;
    } else {
      auto records = store.device_records(key.device_uuid);
      if (!records.empty()) device = std::move(records.front());
    }
    if (!device) {
      r.state = StepReport::State::kMiss;
      r.detail = fmt::format("no device properties are stored for {}", key.device_uuid);
    } else {
      try {
        // Rows written before properties were validated (or by hand) must not reach the
        // occupancy arithmetic: a warp size of 0 would kill the process.
        require_valid_device(*device, device->uuid.empty() ? device->name : device->uuid,
                             ExitCode::kNotFound,
                             "tune on that GPU again, or import an export with valid device "
                             "properties, to store a usable record");
        HeuristicAnswer answer = occupancy_heuristic(
            *device, kernel, key.shape, parse_layout(key.layout).value_or(Layout::kNN));
        const Candidate& c = answer.candidate;
        r.state = StepReport::State::kHit;
        r.detail = fmt::format(
            "{}{} on the properties of {} ({}): {}, {} threads, {:.0f}% theoretical occupancy "
            "(limited by {}); not measured",
            key.kernel.empty() ? kernel + ": " : std::string(), answer.method,
            device->uuid.empty() ? "the device" : device->uuid, device->name,
            c.variant ? c.variant->label() : std::string("?"), c.threads, c.occupancy * 100,
            c.limiter);
        if (answer.nearest_arch_registers)
          r.detail += "; register counts taken from the nearest compiled architecture";
        if (may_answer(LookupStep::kHeuristic)) {
          result.answered_by = LookupStep::kHeuristic;
          result.heuristic = std::move(answer);
        } else {
          r.detail += result.hit() ? " (not used: an earlier step answered)"
                                   : " (not used: fallback was not requested)";
        }
      } catch (const Error& e) {
        r.state = StepReport::State::kMiss;
        r.detail = e.what();
      }
    }
  }
  return result;
}

}  // namespace occtune::db
