// Renders tuning results: the per-shape table with the tie band and search state, the JSON
// document fields (ties, noise, throttled, strategy) and CSV rows.
#include "autotuner/cli/tune_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "autotuner/core/device_peaks.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/problem_json.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {

namespace {

double ratio(double cublas_ms, double ms) { return ms > 0 ? cublas_ms / ms : 0; }

// The family a shape's results are of, for writing its problem ("" when none was tuned): the
// families of one run share their kind and, for user families, their dimensions.
std::string_view family_of(const ShapeResult& r) {
  return r.kernels.empty() ? std::string_view() : std::string_view(r.kernels.front().kernel);
}

// "nx=8192,ny=8192" for the problem of a user kernel family (occtune/kernel.hpp), else the
// GEMM shape "MxNxK".
std::string problem_text(const ShapeResult& r) { return problem_text(family_of(r), r.shape); }

bool in(const std::vector<int>& v, int i) { return std::find(v.begin(), v.end(), i) != v.end(); }

// How a candidate left the search: "converged", "timeout", "elim r1", "dropped r0", "budget",
// "pruned (cost model: est 3.10x best)", "abandoned r0: 3 samples, min 2.40x best"; "reused "
// in front when its samples came from the store, ", throttled" when kept throttled.
std::string search_cell(const Measurement& m) {
  if (m.outcome != Outcome::kOk) return "-";
  const StopReason r = m.timing.stop;
  if (r == StopReason::kPruned) return fmt::format("pruned ({})", m.error);
  std::string text(to_string(r));
  if (r == StopReason::kEliminated) text = fmt::format("elim r{}", m.search_round);
  if (r == StopReason::kDropped) text = fmt::format("dropped r{}", m.search_round);
  if (r == StopReason::kAbandoned)
    text = fmt::format("abandoned r{}: {} sample{}, min {:.2f}x best", m.search_round,
                       m.timing.summary.count, m.timing.summary.count == 1 ? "" : "s", m.behind);
  if (text.empty()) text = "-";
  if (m.reused_from > 0) text = "reused " + text;
  if (m.timing.throttled) text += ", throttled";
  return text;
}

// A family whose every measured candidate was abandoned (issue #18) has no winner; its fastest
// abandoned row is marked instead, so the table still says where the family stands. -1: none.
int fastest_abandoned_of(const KernelResult& k) {
  int best = -1;
  for (int i = 0; i < int(k.measurements.size()); ++i) {
    const Measurement& m = k.measurements[size_t(i)];
    if (m.timing.stop != StopReason::kAbandoned || m.timing.summary.count == 0) continue;
    if (best < 0 || m.timing.summary.median < k.measurements[size_t(best)].timing.summary.median)
      best = i;
  }
  return best;
}

// The rule of core/ties.hpp, in words for the table.
constexpr const char* kTieRule = "lowest median, then higher occupancy, then fewer threads";

}  // namespace

ShapeBest best_of(const ShapeResult& r) {
  ShapeBest best;
  for (auto& k : r.kernels) {
    if (k.winner < 0) continue;
    auto& m = k.measurements[size_t(k.winner)];
    if (!best.m || m.timing.summary.median < best.m->timing.summary.median) best = {&k, &m};
  }
  return best;
}

void print_summary(std::ostream& out, const std::vector<ShapeResult>& results) {
  output::TextTable t({"shape", "winner", "config", "ms", "TFLOP/s", "x cuBLAS", "textbook pick",
                       "its ms", "x winner's time", "rank"});
  for (auto& r : results) {
    const ShapeBest b = best_of(r);
    const double ms = b.m ? b.m->timing.summary.median : 0;
    const double ref = r.cublas.summary.median;
    // The textbook answer: the occupancy API's first suggestion for the tiled kernel.
    const Measurement* textbook = nullptr;
    for (auto& k : r.kernels)
      for (auto& m : k.measurements)
        if (k.kernel == "tiled_dynamic" && m.candidate.origin == "occupancy-api" &&
            m.candidate.step == 1)
          textbook = &m;
    const bool textbook_timed = textbook && textbook->outcome == Outcome::kOk &&
                                textbook->timing.summary.median > 0;
    int rank = 0, timed = 0;
    for (auto& k : r.kernels)
      for (auto& m : k.measurements) {
        if (m.outcome != Outcome::kOk || m.timing.summary.median <= 0) continue;
        ++timed;
        if (textbook_timed && m.timing.summary.median < textbook->timing.summary.median) ++rank;
      }
    t.add_row({problem_text(r), b.kernel ? b.kernel->kernel : "no correct result",
               b.m ? b.m->candidate.variant->label() : "-", ms > 0 ? output::fixed(ms, 4) : "-",
               ms > 0 && b.m->flops > 0 ? fmt::format("{:.1f}", b.m->flops / (ms * 1e9)) : "-",
               ms > 0 && ref > 0 ? fmt::format("{:.3f}x", ref / ms) : "-",
               textbook ? textbook->candidate.variant->label() +
                              fmt::format(" ({} thr, {})", textbook->candidate.threads,
                                          output::percent(textbook->candidate.occupancy))
                        : "not tuned",
               textbook_timed ? output::fixed(textbook->timing.summary.median, 4)
               : textbook && textbook->timing.stop == StopReason::kPruned ? "pruned"
               : textbook     ? std::string(to_string(textbook->outcome))
                              : "-",
               textbook_timed && ms > 0
                   ? fmt::format("{:.2f}x", textbook->timing.summary.median / ms)
                   : "-",
               textbook_timed ? fmt::format("{} of {}", rank + 1, timed) : "-"});
  }
  out << "summary: the fastest correct configuration per shape, and where the textbook "
         "occupancy pick landed\n";
  t.print(out);
}

nlohmann::json search_json(const SearchSettings& s) {
  return {{"strategy", s.strategy},
          {"screen_samples", s.screen_samples},
          {"drop_factor", s.drop_factor},
          {"finalists", s.finalists},
          {"confirm_samples", s.confirm_samples},
          {"tie_level", s.tie_level},
          {"time_budget", s.time_budget_s},
          {"max_candidates", s.max_candidates},
          {"prune", s.prune},
          {"prune_factor", s.prune_factor},
          {"prune_keep", s.prune_keep},
          {"prunes", s.prunes()},
          {"abandon_factor", s.abandon_factor},
          {"abandon_min_samples", kAbandonMinSamples},
          {"behind_factor", s.behind_factor},
          {"behind_min_samples", kBehindMinSamples},
          {"abandons", s.abandons()},
          {"tie_rule", kTieRule}};
}

void print_shape_table(std::ostream& out, const ShapeResult& r, const DeviceInfo& device,
                       bool wide) {
  const bool user = problem_text(r) != r.shape.str();
  if (user)
    out << fmt::format("problem {} of {}\n", problem_text(r), r.kernels.front().kernel);
  else
    out << fmt::format("shape {} (M x N x K), {:.3g} GFLOP\n", r.shape.str(),
                       r.shape.flops() / 1e9);
  std::vector<std::string> head = {"kernel",    "config",    "threads", "smem",   "blocks/SM",
                                   "occupancy", "limiter",   "waves",   "median ms", "q1-q3 ms",
                                   "n",         "noise",     "GFLOP/s", "vs cuBLAS", "rel err",
                                   "status",    "search",    ""};
  std::vector<bool> right = {false, false, true, true, true, true, false, true, true,
                             true,  true,  true, true, true, true, false, false, false};
  // A user family has no cuBLAS ratio: its columns are the rates of its work measure and the
  // share of the device's limit (DRAM bandwidth or FMA peak) the better of them reaches.
  constexpr std::size_t kRatio = 13;
  if (user) {
    head[kRatio] = "GB/s";
    head.insert(head.begin() + kRatio + 1, "of limit");
    right.insert(right.begin() + kRatio + 1, true);
  }
  output::TextTable t(head, right);
  t.wide_only({"smem", "limiter", "waves", "q1-q3 ms", "n", "noise", "rel err"});
  const double ref = r.cublas.summary.median;
  for (auto& k : r.kernels) {
    const int fastest_abandoned = k.winner < 0 ? fastest_abandoned_of(k) : -1;
    for (size_t i = 0; i < k.measurements.size(); ++i) {
      auto& m = k.measurements[i];
      auto& c = m.candidate;
      const auto& s = m.timing.summary;
      const bool timed = m.outcome == Outcome::kOk && s.count > 0;
      std::string mark;
      if (int(i) == k.winner)
        mark = "<- best " + k.kernel;
      else if (int(i) == fastest_abandoned)
        mark = "<- fastest " + k.kernel + ", abandoned";
      else if (in(k.ties, int(i)))
        mark = "tie";
      std::vector<std::string> row = {
          k.kernel, c.variant->label(), std::to_string(c.threads), output::bytes(c.dynamic_smem),
          std::to_string(c.active_blocks_per_sm), output::percent(c.occupancy), c.limiter,
          output::fixed(c.waves, 2), timed ? output::fixed(s.median, 4) : "-",
          timed ? fmt::format("{:.4f}-{:.4f}", s.q1, s.q3) : "-",
          timed ? std::to_string(s.count) : "-",
          timed ? fmt::format("{:.1f}%", m.timing.noise * 100) : "-",
          timed && m.flops > 0 ? fmt::format("{:.0f}", m.gflops()) : "-",
          timed && ref > 0 ? fmt::format("{:.2f}x", ratio(ref, s.median)) : "-",
          output::sci(m.rel_error),
          m.timing.stop == StopReason::kPruned ? "-" : std::string(to_string(m.outcome)),
          search_cell(m), mark};
      if (user) {
        row[kRatio] = timed && m.bytes > 0 ? fmt::format("{:.0f}", m.gbps()) : "-";
        row.insert(row.begin() + kRatio + 1,
                   timed ? share_text(share_of_limit(m.flops, m.bytes, s.median * 1e-3, device))
                         : "-");
      }
      t.add_row(row);
    }
  }
  const auto& rs = r.cublas.summary;
  if (rs.count > 0) {  // no reference for user kernel families
    t.add_row({"cublas", "sgemm fp32", "-", "-", "-", "-", "-", "-", output::fixed(ref, 4),
               fmt::format("{:.4f}-{:.4f}", rs.q1, rs.q3), std::to_string(rs.count),
               fmt::format("{:.1f}%", r.cublas.noise * 100),
               fmt::format("{:.0f}", ref > 0 ? r.shape.flops() / (ref * 1e6) : 0.0), "1.00x", "0",
               "reference", std::string(to_string(r.cublas.stop)), ""});
  }
  t.print(out, wide);
  bool measured_work = false;
  for (auto& k : r.kernels)
    for (auto& m : k.measurements) measured_work |= m.flops > 0 || m.bytes > 0;
  if (user && measured_work) out << "  " << limits_line(device) << '\n';
  for (auto& k : r.kernels)
    for (auto& m : k.measurements)
      if (m.outcome != Outcome::kOk)
        out << fmt::format("  {} {}: {}: {}\n", k.kernel, m.candidate.variant->label(),
                           to_string(m.outcome), m.error);
  for (auto& k : r.kernels) {
    std::string line = fmt::format("  {}: {} over {} candidate{}", k.kernel, k.strategy,
                                   k.candidates, k.candidates == 1 ? "" : "s");
    if (k.reused > 0) line += fmt::format(", {} reused from the database", k.reused);
    if (k.pruned > 0) line += fmt::format(", {} pruned by the cost model", k.pruned);
    if (k.abandoned > 0)
      line += fmt::format(", {} abandoned far behind the shape's best", k.abandoned);
    if (k.unmeasured > 0) line += fmt::format(", {} not measured", k.unmeasured);
    line += fmt::format(", {} samples, {:.2f} s", k.samples_taken, k.wall_s);
    // A source kernel compiled before it was planned: compiling and measuring, apart.
    if (k.compile_s > 0) line += fmt::format(" measuring, {:.2f} s compiling", k.compile_s);
    if (k.throttled_batches > 0)
      line += fmt::format(", {} throttled batch{} retaken", k.throttled_batches,
                          k.throttled_batches == 1 ? "" : "es");
    if (k.stopped != StopReason::kNone) line += fmt::format(" (stopped: {})", to_string(k.stopped));
    if (k.winner >= 0) {
      line +=
          fmt::format("; winner {}", k.measurements[size_t(k.winner)].candidate.variant->label());
      if (k.ties.size() > 1) {
        std::string names;
        for (int i : k.ties)
          names +=
              (names.empty() ? "" : ", ") + k.measurements[size_t(i)].candidate.variant->label();
        line += fmt::format("; tie band {} ({}median intervals overlap; rule: {})", names,
                            k.confirmed ? "confirmed with more samples, " : "", kTieRule);
      }
    }
    out << line << '\n';
  }
  out << fmt::format("  shape wall time {:.3f} s\n\n", r.wall_s);
}

nlohmann::json candidate_json(const Measurement& m, double cublas_ms, const DeviceInfo& device) {
  auto j = output::to_json(m);
  // Pruned by the cost model: listed with its reason, never launched.
  if (m.timing.stop == StopReason::kPruned) {
    j["outcome"] = "pruned";
    j["pruned"] = m.error;
  }
  // Abandoned (issue #18): its few samples are real; how far behind the incumbent it was.
  if (m.timing.stop == StopReason::kAbandoned) j["behind_best"] = m.behind;
  if (m.outcome == Outcome::kOk && m.timing.summary.count > 0) {
    j["ratio_to_cublas"] = ratio(cublas_ms, m.timing.summary.median);
    if (m.bytes > 0) j["gbps"] = m.gbps();
    const LimitShare share =
        share_of_limit(m.flops, m.bytes, m.timing.summary.median * 1e-3, device);
    if (share.fraction > 0)
      j["share_of_limit"] = {{"fraction", share.fraction}, {"limit", share.limit}};
  }
  return j;
}

nlohmann::json shape_json(const ShapeResult& r, const DeviceInfo& device) {
  nlohmann::json kernels = nlohmann::json::array();
  for (auto& k : r.kernels) {
    nlohmann::json ms = nlohmann::json::array();
    for (auto& m : k.measurements) ms.push_back(candidate_json(m, r.cublas.summary.median, device));
    kernels.push_back({{"kernel", k.kernel},
                       {"run_id", k.run_id},
                       {"strategy", k.strategy},
                       {"winner", k.winner},
                       {"ties", k.ties},
                       {"confirmed", k.confirmed},
                       {"candidates_planned", k.candidates},
                       {"unmeasured", k.unmeasured},
                       {"pruned", k.pruned},
                       {"abandoned", k.abandoned},
                       {"reused", k.reused},
                       {"samples_taken", k.samples_taken},
                       {"throttled_batches", k.throttled_batches},
                       {"wall_s", k.wall_s},
                       {"compile_s", k.compile_s},
                       {"stopped", std::string(to_string(k.stopped))},
                       {"candidates", ms}});
  }
  nlohmann::json doc = {{"shape", r.shape.str()},
          {"m", r.shape.m},
          {"n", r.shape.n},
          {"k", r.shape.k},
          {"wall_s", r.wall_s},
          {"limits",
           {{"dram_bytes_per_s", dram_bandwidth(device)},
            {"fma_flops_per_s", fma_peak_flops(device)},
            {"from", limits_line(device)}}},
          {"cublas",
           {{"timing", output::to_json(r.cublas.summary)},
            {"samples_ms", r.cublas.samples_ms},
            {"noise", r.cublas.noise},
            {"sm_clock_mhz", r.cublas.sm_clock_mhz},
            {"throttled", r.cublas.throttled}}},
          {"kernels", kernels}};
  output::add_problem(doc, family_of(r), r.shape);
  return doc;
}

namespace {

const std::vector<std::string> kCsvColumns = {
    "schema_version", "device_uuid", "shape", "kernel", "variant", "params", "threads", "tile",
    "dynamic_smem", "active_blocks_per_sm", "occupancy", "limiter", "grid_x", "grid_y", "waves",
    "outcome", "median_ms", "min_ms", "q1_ms", "q3_ms", "samples", "gflops", "ratio_to_cublas",
    "rel_error", "winner", "noise", "stop_reason", "throttled", "tie", "gbps", "share_of_limit",
    "limit", "problem"};

// Numbers without rounding that would lose what the JSON keeps; absent values are empty fields.
std::string g(double v) { return fmt::format("{:.9g}", v); }

}  // namespace

void print_csv_header(std::ostream& out) { output::write_csv_record(out, kCsvColumns); }

void print_csv_rows(std::ostream& out, const DeviceInfo& device, const ShapeResult& r) {
  const double ref = r.cublas.summary.median;
  const std::string version = std::to_string(output::kJsonSchemaVersion);
  for (auto& k : r.kernels) {
    for (size_t i = 0; i < k.measurements.size(); ++i) {
      auto& m = k.measurements[i];
      auto& c = m.candidate;
      auto& s = m.timing.summary;
      const bool timed = m.outcome == Outcome::kOk && s.count > 0;
      const LimitShare share =
          timed ? share_of_limit(m.flops, m.bytes, s.median * 1e-3, device) : LimitShare{};
      output::write_csv_record(
          out, {version, device.uuid, r.shape.str(), k.kernel, c.variant->symbol,
                c.variant->label(), std::to_string(c.threads), std::to_string(c.tile),
                std::to_string(c.dynamic_smem), std::to_string(c.active_blocks_per_sm),
                g(c.occupancy), c.limiter, std::to_string(c.grid_x), std::to_string(c.grid_y),
                g(c.waves), std::string(to_string(m.outcome)), timed ? g(s.median) : "",
                timed ? g(s.min) : "", timed ? g(s.q1) : "", timed ? g(s.q3) : "",
                std::to_string(s.count), timed ? g(m.gflops()) : "",
                timed && ref > 0 ? g(ratio(ref, s.median)) : "",
                m.rel_error >= 0 ? g(m.rel_error) : "", int(i) == k.winner ? "1" : "0",
                timed ? g(m.timing.noise) : "", std::string(to_string(m.timing.stop)),
                m.timing.throttled ? "1" : "0", in(k.ties, int(i)) ? "1" : "0",
                timed && m.bytes > 0 ? g(m.gbps()) : "", share.fraction > 0 ? g(share.fraction) : "",
                share.limit, problem_text(r)});
    }
  }
  auto& s = r.cublas.summary;
  output::write_csv_record(
      out, {version, device.uuid, r.shape.str(), "cublas", "cublasSgemm", "", "", "", "", "", "",
            "", "", "", "", "ok", g(s.median), g(s.min), g(s.q1), g(s.q3), std::to_string(s.count),
            ref > 0 ? g(r.shape.flops() / (ref * 1e6)) : "", "1", "", "0", g(r.cublas.noise),
            std::string(to_string(r.cublas.stop)), r.cublas.throttled ? "1" : "0", "0", "", "",
            "", r.shape.str()});
}

}  // namespace occtune::cli
