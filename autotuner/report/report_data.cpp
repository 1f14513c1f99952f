// report_data.hpp: reads the store once per device and shapes it for the page. The newest
// complete run of each family at a shape is what the scatter shows (the same run the cache
// serves from); every complete run and every check make the history.
#include "autotuner/report/report_data.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

#include "autotuner/core/device_selector.hpp"
#include "autotuner/core/error.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::report {

namespace {

using ShapeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
ShapeKey key_of(const Shape& s) { return {s.m, s.n, s.k}; }

// The measurement a run serves: the search's recorded winner, else the fastest timed one
// (Store::best's rule, applied to rows already read).
int served(const std::vector<db::StoredMeasurement>& ms) {
  int best = -1;
  for (int i = 0; i < int(ms.size()); ++i) {
    const auto& m = ms[size_t(i)];
    if (m.outcome != Outcome::kOk || m.summary.median <= 0) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const auto& b = ms[size_t(best)];
    if (std::make_tuple(!m.winner, m.summary.median, m.id) <
        std::make_tuple(!b.winner, b.summary.median, b.id))
      best = i;
  }
  return best;
}

Point point_of(const db::StoredMeasurement& m, const std::string& family, bool winner) {
  Point p;
  p.family = family;
  p.config = m.params;
  p.variant = m.variant;
  p.threads = m.threads;
  p.occupancy = m.occupancy;
  p.active_blocks_per_sm = m.active_blocks_per_sm;
  p.limiter = m.limiter;
  p.outcome = std::string(to_string(m.outcome));
  p.error = m.error;
  if (m.outcome == Outcome::kOk && m.summary.count > 0) {
    p.median_ms = m.summary.median;
    p.q1_ms = m.summary.q1;
    p.q3_ms = m.summary.q3;
    p.samples = m.summary.count;
  }
  p.run_id = m.run_id;
  p.textbook = m.origin == "occupancy-api" && m.step == 1;
  p.family_winner = winner;
  return p;
}

HistoryPoint tune_point(const db::StoredRun& run, const db::StoredMeasurement& m) {
  HistoryPoint h;
  h.when = run.started_at;
  h.kind = "tune";
  h.id = run.id;
  h.config = m.params;
  h.build_id = run.key.build_id;
  h.median_ms = m.summary.median;
  // The search's interval of the median when it recorded one (schema 2), else the quartiles.
  const bool ci = m.median_ci.high > 0 && m.median_ci.low > 0;
  h.low_ms = ci ? m.median_ci.low : m.summary.q1;
  h.high_ms = ci ? m.median_ci.high : m.summary.q3;
  return h;
}

void finish_shape(ShapeView& view) {
  for (auto& f : view.families) {
    if (f.winner < 0) continue;
    const auto& p = view.points[size_t(f.winner)];
    if (view.winner < 0 || p.median_ms < view.points[size_t(view.winner)].median_ms)
      view.winner = f.winner;
  }
  for (int i = 0; i < int(view.points.size()); ++i)
    if (view.points[size_t(i)].textbook && view.points[size_t(i)].family == "tiled_dynamic")
      view.textbook = i;
  if (view.textbook >= 0 && view.points[size_t(view.textbook)].timed()) {
    const double t = view.points[size_t(view.textbook)].median_ms;
    view.textbook_rank = 1;
    for (auto& p : view.points)
      if (p.timed() && p.median_ms < t) ++view.textbook_rank;
  }
}

DeviceView device_view(db::Store& store, const DeviceInfo& device,
                       const std::vector<db::StoredRun>& all_runs) {
  DeviceView view;
  view.device = device;
  std::vector<const db::StoredRun*> runs;  // this device's, newest first
  for (auto& r : all_runs)
    if (r.key.device_uuid == device.uuid) runs.push_back(&r);

  std::map<std::int64_t, std::vector<db::StoredMeasurement>> measured;
  auto measurements_of = [&](std::int64_t id) -> const std::vector<db::StoredMeasurement>& {
    auto it = measured.find(id);
    if (it == measured.end()) it = measured.emplace(id, store.measurements(id)).first;
    return it->second;
  };

  // The scatter: each family's newest complete run per shape.
  std::map<ShapeKey, ShapeView> shapes;
  std::set<std::pair<ShapeKey, std::string>> taken;
  for (const db::StoredRun* r : runs) {
    if (r->status != RunStatus::kComplete) continue;
    if (!taken.insert({key_of(r->key.shape), r->key.kernel}).second) continue;
    ShapeView& s = shapes[key_of(r->key.shape)];
    s.shape = r->key.shape;
    const auto& ms = measurements_of(r->id);
    const int win = served(ms);
    FamilySummary f;
    f.family = r->key.kernel;
    f.run_id = r->id;
    f.started_at = r->started_at;
    f.build_id = r->key.build_id;
    f.cublas_ms = r->cublas.count > 0 ? r->cublas.median : 0;
    if (s.cublas_ms <= 0) s.cublas_ms = f.cublas_ms;  // runs are newest first
    for (int i = 0; i < int(ms.size()); ++i) {
      const auto& m = ms[size_t(i)];
      if (i == win) f.winner = int(s.points.size());
      s.points.push_back(point_of(m, r->key.kernel, i == win));
      ++f.candidates;
      if (s.points.back().timed())
        ++f.timed;
      else
        ++f.failed;
    }
    s.families.push_back(f);
  }
  for (auto& [key, s] : shapes) {
    std::sort(s.families.begin(), s.families.end(),
              [](auto& a, auto& b) { return a.family < b.family; });
    finish_shape(s);
    view.shapes.push_back(std::move(s));
  }
  // Largest problems last: the order people read sizes in.
  std::stable_sort(view.shapes.begin(), view.shapes.end(),
                   [](auto& a, auto& b) { return a.shape.flops() < b.shape.flops(); });

  // History: every complete run of each key, oldest first, then the checks.
  std::map<std::pair<std::string, ShapeKey>, KeyHistory> history;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    const db::StoredRun* r = *it;
    if (r->status != RunStatus::kComplete) continue;
    const auto& ms = measurements_of(r->id);
    const int win = served(ms);
    if (win < 0) continue;
    KeyHistory& h = history[{r->key.kernel, key_of(r->key.shape)}];
    h.family = r->key.kernel;
    h.shape = r->key.shape;
    h.points.push_back(tune_point(*r, ms[size_t(win)]));
  }
  view.checks = store.checks(device.uuid);
  for (const db::CheckRecord& c : view.checks)
    for (const db::CheckKeyRecord& k : c.keys) {
      KeyHistory& h = history[{k.kernel, key_of(k.shape)}];
      h.family = k.kernel;
      h.shape = k.shape;
      HistoryPoint p;
      p.when = c.recorded_at;
      p.kind = "check";
      p.id = c.id;
      p.config = k.config.value_or("");
      p.build_id = c.build_id;
      p.median_ms = k.current_median_ms.value_or(0);
      p.low_ms = k.current_low_ms.value_or(k.current_q1_ms.value_or(0));
      p.high_ms = k.current_high_ms.value_or(k.current_q3_ms.value_or(0));
      p.verdict = k.verdict;
      h.points.push_back(p);
    }
  for (auto& [key, h] : history) {
    std::stable_sort(h.points.begin(), h.points.end(),
                     [](auto& a, auto& b) { return a.when < b.when; });
    view.history.push_back(std::move(h));
  }

  for (const db::StoredRun* r : runs) {
    RunProvenance p;
    p.run = *r;
    for (auto& m : measurements_of(r->id)) {
      ++p.measurements;
      if (m.outcome != Outcome::kOk) continue;
      const int lo = m.sm_clock_min_mhz > 0 ? m.sm_clock_min_mhz : m.sm_clock_mhz;
      const int hi = m.sm_clock_max_mhz > 0 ? m.sm_clock_max_mhz : m.sm_clock_mhz;
      if (lo > 0) p.sm_clock_min_mhz = p.sm_clock_min_mhz ? std::min(p.sm_clock_min_mhz, lo) : lo;
      p.sm_clock_max_mhz = std::max(p.sm_clock_max_mhz, hi);
    }
    view.runs.push_back(std::move(p));
  }
  return view;
}

// The stored device a selector names: a UUID prefix, or the runtime index recorded with it
// when exactly one stored device had that index. Matching stored records, not visible GPUs, so
// the report works on a machine without one.
DeviceInfo stored_device(const std::vector<DeviceInfo>& devices, const std::string& text,
                         const std::string& db_path) {
  const DeviceSelector selector = parse_device_selector(text);
  std::vector<const DeviceInfo*> found;
  for (auto& d : devices) {
    std::string uuid = d.uuid, prefix = selector.uuid_prefix;
    for (auto* lower : {&uuid, &prefix})
      for (char& c : *lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (selector.kind == DeviceSelector::Kind::kIndex ? d.index == selector.index
                                                       : uuid.rfind(prefix, 0) == 0)
      found.push_back(&d);
  }
  if (found.size() == 1) return *found.front();
  std::string known;
  for (auto& d : devices)
    known += fmt::format("{}{} (index {}, {})", known.empty() ? "" : ", ", d.uuid, d.index, d.name);
  fail(ExitCode::kNotFound,
       fmt::format("--device '{}' names {} of the devices stored in '{}' ({}); pass a UUID "
                   "prefix that names one",
                   text, found.empty() ? "none" : "more than one", db_path,
                   known.empty() ? "none stored" : known));
}

std::string now_utc() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

}  // namespace

ReportData gather(db::Store& store, const std::string& device_selector,
                  const std::string& tool_version) {
  ReportData data;
  data.db_path = store.path().string();
  data.tool_version = tool_version;
  data.build_id = std::string(kernels::kernel_build_id());
  data.generated_at = now_utc();
  const auto runs = store.runs();
  // One record per UUID, the newest (devices() is newest first).
  std::vector<DeviceInfo> devices;
  for (auto& d : store.devices())
    if (std::none_of(devices.begin(), devices.end(), [&](auto& x) { return x.uuid == d.uuid; }))
      devices.push_back(d);
  if (!device_selector.empty()) devices = {stored_device(devices, device_selector, data.db_path)};
  for (auto& d : devices) {
    DeviceView view = device_view(store, d, runs);
    if (!view.shapes.empty() || !view.checks.empty()) data.devices.push_back(std::move(view));
  }
  if (data.devices.empty())
    fail(ExitCode::kNotFound,
         fmt::format("database '{}' has no complete tuning run{}; run `occtune tune` first",
                     data.db_path,
                     device_selector.empty() ? "" : " on device '" + device_selector + "'"));
  return data;
}

}  // namespace occtune::report
