// The three forms of `occtune bench`'s result (table, JSON, CSV): per shape the interleaved
// tuned/cuBLAS ratio (the headline) next to the race's, achieved TFLOP/s, the large operand's
// read bandwidth for M or N <= 16, the SM clock range of every sample set, the re-verification,
// and the geometric means (docs/PERFORMANCE.md, "The benchmark").
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "autotuner/cli/bench_rows.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {
namespace {

using nlohmann::json;

double tflops(const Shape& s, double ms) { return ms > 0 ? s.flops() / (ms * 1e9) : 0.0; }
double tbps(double bytes, double ms) { return ms > 0 && bytes > 0 ? bytes / (ms * 1e9) : 0.0; }

// "1965-1980" (MHz), "1980" when both ends agree, "-" without NVML or samples.
std::string clock_range(const Timing& t) {
  if (t.sm_clock_max_mhz <= 0) return "-";
  if (t.sm_clock_min_mhz == t.sm_clock_max_mhz) return std::to_string(t.sm_clock_max_mhz);
  return fmt::format("{}-{}", t.sm_clock_min_mhz, t.sm_clock_max_mhz);
}

json clock_json(const Timing& t) {
  if (t.sm_clock_max_mhz <= 0) return nullptr;
  return json::array({t.sm_clock_min_mhz, t.sm_clock_max_mhz});
}

// The race ratio of family `name`'s winner (0 when it has none), and its JSON in `out`.
double family_ratio(const BenchRow& row, const std::string& name, json* out = nullptr) {
  for (auto& k : row.result->kernels) {
    if (k.kernel != name || k.winner < 0) continue;
    const Measurement& m = k.measurements[size_t(k.winner)];
    const double x =
        m.timing.summary.median > 0 ? row.result->cublas_ms() / m.timing.summary.median : 0.0;
    if (out)
      *out = {{"params", output::params_json(m.candidate.variant->label())},
              {"median_ms", m.timing.summary.median},
              {"ratio_to_cublas", x}};
    return x;
  }
  if (out) *out = nullptr;
  return 0.0;
}

std::string reverified(const BenchRow& row) {
  if (!row.note.empty()) return "not re-measured: " + row.note;
  if (row.paired.outcome != Outcome::kOk)
    return fmt::format("FAILED in the pairs ({}): {}", to_string(row.paired.outcome),
                       row.paired.error);
  if (!row.recheck) return "-";
  if (row.recheck->outcome != Outcome::kOk)
    return fmt::format("FAILED ({}): {}", to_string(row.recheck->outcome), row.recheck->error);
  return fmt::format("ok, Frobenius {:.2g}", row.recheck->rel_error);
}

std::vector<double> ratios(const std::vector<BenchRow>& rows, bool race) {
  std::vector<double> out;
  for (auto& r : rows) out.push_back(race ? r.race_ratio() : r.ratio());
  return out;
}

// The issue #18 targets that apply to the shapes run: a geometric mean of at least 1.0, no shape
// below 0.90, 4096^3 and 8192^3 at least 1.02 (interleaved ratios).
std::vector<std::string> target_lines(const std::vector<BenchRow>& rows, double mean) {
  std::vector<std::string> out;
  auto line = [&](const std::string& what, double got, double want) {
    out.push_back(fmt::format("  {:<32} {:.3f} (target >= {:.2f}) {}", what, got, want,
                              got >= want ? "met" : "MISSED"));
  };
  const BenchRow* lowest = nullptr;
  for (auto& r : rows) {
    const Shape& s = r.result->shape;
    if (s.m == s.n && s.n == s.k && (s.m == 4096 || s.m == 8192)) line(s.str(), r.ratio(), 1.02);
    if (r.ratio() > 0 && (!lowest || r.ratio() < lowest->ratio())) lowest = &r;
  }
  if (lowest) line("lowest: " + lowest->result->shape.str(), lowest->ratio(), 0.90);
  if (mean > 0) line("geometric mean", mean, 1.0);
  return out;
}

// Reference sets that disagree by more than 5%: the race's two cuBLAS sets (the faster is the
// race reference), and the interleaved cuBLAS samples against that reference.
std::vector<std::string> drift_lines(const std::vector<BenchRow>& rows) {
  std::vector<std::string> out;
  auto apart = [](double a, double b) {
    return a > 0 && b > 0 && std::max(a, b) / std::min(a, b) > 1.05;
  };
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    const double before = r.cublas.summary.median, after = r.cublas_after.summary.median;
    if (apart(before, after))
      out.push_back(fmt::format("  cuBLAS at {}: {:.4f} ms before the races, {:.4f} ms after",
                                r.shape.str(), before, after));
    if (apart(r.cublas_ms(), row.cublas_ms()))
      out.push_back(fmt::format("  cuBLAS at {}: {:.4f} ms in the races, {:.4f} ms interleaved",
                                r.shape.str(), r.cublas_ms(), row.cublas_ms()));
  }
  return out;
}

}  // namespace

void print_bench_table(std::ostream& out, const BenchHeader& h, const std::vector<BenchRow>& rows) {
  out << fmt::format(
      "occtune {} bench on GPU {} {} ({}), kernel build {}, layout {}, fp32 (no "
      "TF32)\n\n",
      OCCTUNE_VERSION, h.device.index, h.device.name, h.device.uuid, h.build_id,
      layout_name(h.layout));
  const bool categories =
      std::any_of(rows.begin(), rows.end(), [](auto& r) { return !r.category.empty(); });
  std::vector<std::string> header{"shape"};
  if (categories) header.push_back("category");
  for (auto* c :
       {"cuBLAS ms", "TFLOP/s", "best family", "config", "threads", "occupancy", "ms", "TFLOP/s",
        "tuned/cuBLAS", "95% interval", "pairs", "operand TB/s", "A+B TB/s", "race ratio"})
    header.push_back(c);
  for (auto& k : h.kernels) header.push_back(k);
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  if (categories) right[1] = false;
  const size_t family_col = categories ? 4 : 3;
  right[family_col] = right[family_col + 1] = false;
  output::TextTable t(header, right);
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    const Measurement* m = row.best.m;
    const bool paired = row.ratio() > 0;
    // "tuned / cuBLAS" TB/s for a byte count (the larger operand's, or A's and B's), "-" where
    // the shape is not memory-bound or the winner was not re-measured.
    auto tbps_cell = [&](double bytes) {
      return paired && bytes > 0 ? fmt::format("{:.2f} / {:.2f}", tbps(bytes, row.tuned_ms()),
                                               tbps(bytes, row.cublas_ms()))
                                 : std::string("-");
    };
    std::vector<std::string> cells{r.shape.str()};
    if (categories) cells.push_back(row.category.empty() ? "-" : row.category);
    auto add = [&](std::string s) { cells.push_back(std::move(s)); };
    add(paired ? output::fixed(row.cublas_ms(), 4) : "-");
    add(paired ? fmt::format("{:.1f}", tflops(r.shape, row.cublas_ms())) : "-");
    add(row.best.kernel ? row.best.kernel->kernel : "-");
    add(m ? m->candidate.variant->label() : "-");
    add(m ? std::to_string(m->candidate.threads) : "-");
    add(m ? output::percent(m->candidate.occupancy) : "-");
    add(paired ? output::fixed(row.tuned_ms(), 4) : "-");
    add(paired ? fmt::format("{:.1f}", tflops(r.shape, row.tuned_ms())) : "-");
    add(paired ? fmt::format("{:.3f}x", row.ratio()) : "-");
    add(paired ? fmt::format("{:.3f}-{:.3f}", row.paired.ratio_ci.low, row.paired.ratio_ci.high)
               : "-");
    add(paired ? std::to_string(row.paired.ratios.size()) : "-");
    add(tbps_cell(row.large_operand_bytes()));
    add(tbps_cell(row.read_bytes()));
    add(m ? fmt::format("{:.3f}x", row.race_ratio()) : "-");
    for (auto& name : h.kernels) {
      const double x = family_ratio(row, name);
      add(x > 0 ? fmt::format("{:.2f}x", x) : "-");
    }
    t.add_row(cells);
  }
  t.print(out);
  out << "\ntuned/cuBLAS: median of the per-pair ratios of the winner re-measured against cuBLAS "
         "(A/B/A/B, L2 flushed before each); race ratio and family columns: the race's medians.\n"
         "operand TB/s (tuned / cuBLAS): the larger operand's bytes over the interleaved median, "
         "for M <= 16 or N <= 16; A+B TB/s: the bytes of A and B together (each read once).\n\n";

  output::TextTable clocks({"shape", "cuBLAS before", "cuBLAS after", "winner (race)",
                            "cuBLAS (pairs)", "winner (pairs)", "re-verified"},
                           {false, true, true, true, true, true, false});
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    clocks.add_row({r.shape.str(), clock_range(r.cublas), clock_range(r.cublas_after),
                    row.best.m ? clock_range(row.best.m->timing) : "-",
                    clock_range(row.paired.reference), clock_range(row.paired.candidate),
                    reverified(row)});
  }
  out << "SM clock range of each sample set (MHz, NVML):\n";
  clocks.print(out);

  const auto [mean, counted] = geomean(ratios(rows, false));
  const auto [race_mean, race_counted] = geomean(ratios(rows, true));
  out << fmt::format(
      "\ngeometric mean of tuned/cuBLAS over {} shapes: {:.3f} (interleaved); "
      "{:.3f} over {} shapes from the races\n",
      counted, mean, race_mean, race_counted);
  if (categories) {
    std::map<std::string, std::vector<double>> by_category;
    for (auto& row : rows)
      by_category[row.category.empty() ? "-" : row.category].push_back(row.ratio());
    for (auto& [name, values] : by_category) {
      const auto [g, n] = geomean(values);
      out << fmt::format("  {:<24} {:.3f} over {} shapes\n", name, g, n);
    }
  }
  for (auto& line : target_lines(rows, mean)) out << line << '\n';
  const auto drift = drift_lines(rows);
  if (!drift.empty()) out << "\ncuBLAS sample sets more than 5% apart:\n";
  for (auto& line : drift) out << line << '\n';
}

json bench_json(const BenchHeader& h, const std::vector<BenchRow>& rows) {
  json shapes = json::array();
  auto or_null = [](bool have, double v) { return have ? json(v) : json(nullptr); };
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    const Measurement* m = row.best.m;
    const bool paired = row.ratio() > 0;
    auto tbps_json = [&](double bytes, double ms) {
      return or_null(paired && bytes > 0, tbps(bytes, ms));
    };
    const double bytes = row.large_operand_bytes(), read = row.read_bytes();
    json families = json::object(), candidates = json::object();
    for (auto& k : r.kernels) {
      json f;
      family_ratio(row, k.kernel, &f);
      families[k.kernel] = f;
      // Every candidate of the race, winner or not, as `tune --format json` lists it (ratio to
      // the race's reference): how fast a losing configuration ran, not only the winner.
      json list = json::array();
      for (auto& c : k.measurements) list.push_back(candidate_json(c, r.cublas_ms(), h.device));
      candidates[k.kernel] = list;
    }
    json recheck = nullptr;
    if (row.recheck)
      recheck = {{"outcome", to_string(row.recheck->outcome)},
                 {"rel_error", output::rel_error_json(row.recheck->rel_error)},
                 {"error", row.recheck->error}};
    shapes.push_back(
        {{"shape", r.shape.str()},
         {"category", row.category.empty() ? json(nullptr) : json(row.category)},
         {"cublas_ms", r.cublas_ms()},
         {"cublas_before_ms", r.cublas.summary.median},
         {"cublas_after_ms",
          or_null(r.cublas_after.summary.count > 0, r.cublas_after.summary.median)},
         {"best_kernel", row.best.kernel ? json(row.best.kernel->kernel) : json(nullptr)},
         {"best_params", m ? output::params_json(m->candidate.variant->label()) : json(nullptr)},
         {"best_ms", or_null(m != nullptr, m ? m->timing.summary.median : 0)},
         {"race_ratio_to_cublas", row.race_ratio()},
         {"ratio_to_cublas", or_null(paired, row.ratio())},
         {"interleaved",
          {{"pairs", row.paired.ratios.size()},
           {"outcome", to_string(row.paired.outcome)},
           {"error", row.paired.error},
           {"cublas_median_ms", or_null(paired, row.cublas_ms())},
           {"best_median_ms", or_null(paired, row.tuned_ms())},
           {"ratio_ci", paired ? json::array({row.paired.ratio_ci.low, row.paired.ratio_ci.high})
                               : json(nullptr)},
           {"cublas_clock_mhz", clock_json(row.paired.reference)},
           {"best_clock_mhz", clock_json(row.paired.candidate)}}},
         {"tflops", or_null(paired, tflops(r.shape, row.tuned_ms()))},
         {"cublas_tflops", or_null(paired, tflops(r.shape, row.cublas_ms()))},
         {"operand_tbps", tbps_json(bytes, row.tuned_ms())},
         {"cublas_operand_tbps", tbps_json(bytes, row.cublas_ms())},
         {"read_tbps", tbps_json(read, row.tuned_ms())},
         {"cublas_read_tbps", tbps_json(read, row.cublas_ms())},
         {"clocks_mhz",
          {{"cublas_before", clock_json(r.cublas)},
           {"cublas_after", clock_json(r.cublas_after)},
           {"best", m ? clock_json(m->timing) : json(nullptr)}}},
         {"reverified", recheck},
         {"note", row.note.empty() ? json(nullptr) : json(row.note)},
         {"families", families},
         {"race_candidates", candidates}});
  }
  return output::document("bench", {{"device", output::to_json(h.device)},
                                    {"build_id", h.build_id},
                                    {"layout", layout_name(h.layout)},
                                    {"policy", output::to_json(h.policy)},
                                    {"shapes", shapes},
                                    {"geomean_ratio", geomean(ratios(rows, false)).first},
                                    {"geomean_race_ratio", geomean(ratios(rows, true)).first},
                                    {"interrupted", h.interrupted}});
}

void print_bench_csv(std::ostream& out, const BenchHeader& h, const std::vector<BenchRow>& rows) {
  std::vector<std::string> header{"schema_version",
                                  "shape",
                                  "category",
                                  "cublas_ms",
                                  "best_kernel",
                                  "best_params",
                                  "threads",
                                  "occupancy",
                                  "best_ms",
                                  "tflops",
                                  "ratio_to_cublas",
                                  "ratio_ci_low",
                                  "ratio_ci_high",
                                  "pairs",
                                  "race_cublas_ms",
                                  "race_best_ms",
                                  "race_ratio_to_cublas",
                                  "operand_tbps",
                                  "read_tbps",
                                  "cublas_clock_min_mhz",
                                  "cublas_clock_max_mhz",
                                  "best_clock_min_mhz",
                                  "best_clock_max_mhz",
                                  "reverified"};
  for (auto& k : h.kernels) header.push_back("race_ratio_" + k);
  output::write_csv_record(out, header);
  auto g = [](double v) { return fmt::format("{:.9g}", v); };
  auto opt = [&](bool have, double v) { return have ? g(v) : std::string(); };
  auto mhz = [](int v) { return v > 0 ? std::to_string(v) : std::string(); };
  for (auto& row : rows) {
    const ShapeResult& r = *row.result;
    const Measurement* m = row.best.m;
    const bool paired = row.ratio() > 0;
    auto tbps_field = [&](double bytes) {
      return opt(paired && bytes > 0, tbps(bytes, row.tuned_ms()));
    };
    std::vector<std::string> cells{std::to_string(output::kJsonSchemaVersion),
                                   r.shape.str(),
                                   row.category,
                                   opt(paired, row.cublas_ms()),
                                   row.best.kernel ? row.best.kernel->kernel : "",
                                   m ? m->candidate.variant->label() : "",
                                   m ? std::to_string(m->candidate.threads) : "",
                                   m ? g(m->candidate.occupancy) : "",
                                   opt(paired, row.tuned_ms()),
                                   opt(paired, tflops(r.shape, row.tuned_ms())),
                                   opt(paired, row.ratio()),
                                   opt(paired, row.paired.ratio_ci.low),
                                   opt(paired, row.paired.ratio_ci.high),
                                   std::to_string(row.paired.ratios.size()),
                                   g(r.cublas_ms()),
                                   m ? g(m->timing.summary.median) : "",
                                   m ? g(row.race_ratio()) : "",
                                   tbps_field(row.large_operand_bytes()),
                                   tbps_field(row.read_bytes()),
                                   mhz(row.paired.reference.sm_clock_min_mhz),
                                   mhz(row.paired.reference.sm_clock_max_mhz),
                                   mhz(row.paired.candidate.sm_clock_min_mhz),
                                   mhz(row.paired.candidate.sm_clock_max_mhz),
                                   row.recheck ? std::string(to_string(row.recheck->outcome)) : ""};
    for (auto& name : h.kernels) {
      const double x = family_ratio(row, name);
      cells.push_back(opt(x > 0, x));
    }
    output::write_csv_record(out, cells);
  }
}

}  // namespace occtune::cli
