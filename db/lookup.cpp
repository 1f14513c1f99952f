// The lookup chain: exact key -> same device model -> same architecture -> occupancy heuristic.
// Steps 1-3 read entries through Store (so "an entry" means what Store::best answers); step 4
// plans offline with cuda_occupancy.h on the device properties stored for the UUID.
#include "db/lookup.hpp"

#include <fmt/format.h>

#include <algorithm>

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

// The fields that every fallback keeps: same kernel build, dtype and shape.
EntryQuery same_work(const CacheKey& key) {
  EntryQuery q;
  q.kernel = key.kernel;
  q.build_id = key.build_id;
  q.dtype = key.dtype;
  q.shape = key.shape;
  q.excluding = key;
  q.limit = 4;  // keys whose newest run has no correct result are skipped; look a little further
  return q;
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
                                    Shape shape) {
  const kernels::FamilyInfo* family = kernels::find_family(kernel);
  if (!family)
    fail(ExitCode::kUsage,
         fmt::format("unknown kernel '{}'; known kernels: {}", kernel, kernels::family_names()));
  OfflineOccupancy oracle(device);
  const Plan plan = plan_family(*family, device, shape, oracle);
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
  auto measured_step = [&](LookupStep step, const EntryQuery& q, auto&& describe_hit,
                           std::string miss) {
    if (!should_try(step)) return;
    StepReport& r = report(step);
    auto entry = step == LookupStep::kExact ? store.best(key) : first_entry(store, q);
    if (!entry) {
      r.state = StepReport::State::kMiss;
      r.detail = std::move(miss);
      return;
    }
    r.state = StepReport::State::kHit;
    r.detail = describe_hit(*entry);
    if (may_answer(step)) {
      result.answered_by = step;
      result.entry = std::move(entry);
    } else {
      r.detail += result.hit() ? " (not used: an earlier step answered)"
                               : " (not used: fallback was not requested)";
    }
  };

  measured_step(
      LookupStep::kExact, EntryQuery{}, [](const BestEntry& e) { return describe(e); },
      "no complete run with a correct result for this exact key (device, driver, runtime, "
      "kernel build, dtype, shape)");

  {
    EntryQuery q = same_work(key);
    q.device_name = key.device_name;
    measured_step(
        LookupStep::kSameModel, q,
        [&](const BestEntry& e) {
          return fmt::format("{} ({}, driver {}, runtime {}): {}", e.run.key.device_uuid,
                             e.run.key.device_name, e.run.key.driver_version,
                             e.run.key.runtime_version, describe(e));
        },
        fmt::format("no other entry for a {} with this kernel build, dtype and shape",
                    key.device_name));
  }
  {
    EntryQuery q = same_work(key);
    q.cc_major = key.cc_major;
    q.cc_minor = key.cc_minor;
    measured_step(
        LookupStep::kSameArchitecture, q,
        [&](const BestEntry& e) {
          return fmt::format("{} ({}, compute capability {}): {}", e.run.key.device_uuid,
                             e.run.key.device_name, cc(e.run.key.cc_major, e.run.key.cc_minor),
                             describe(e));
        },
        fmt::format("no entry for a device of compute capability {} with this kernel build, "
                    "dtype and shape",
                    cc(key.cc_major, key.cc_minor)));
  }

  if (should_try(LookupStep::kHeuristic)) {
    StepReport& r = report(LookupStep::kHeuristic);
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
        HeuristicAnswer answer = occupancy_heuristic(*device, key.kernel, key.shape);
        const Candidate& c = answer.candidate;
        r.state = StepReport::State::kHit;
        r.detail = fmt::format(
            "{} on the properties of {} ({}): {}, {} threads, {:.0f}% theoretical occupancy "
            "(limited by {}); not measured",
            answer.method, device->uuid.empty() ? "the device" : device->uuid, device->name,
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
