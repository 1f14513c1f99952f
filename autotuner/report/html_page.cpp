// html_page.hpp: per device a header with the FMA limit, then per shape the summary table,
// the occupancy scatter and the history; then the check verdicts and the runs' provenance.
#include "autotuner/report/html_page.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "autotuner/core/flush_protocol.hpp"
#include "autotuner/report/charts.hpp"
#include "autotuner/report/svg.hpp"

namespace occtune::report {
namespace {

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font: 15px/1.45 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #1a1a1a;
       margin: 0 auto; padding: 16px 24px 40px; max-width: 1220px; background: #fff; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 34px 0 6px; padding-top: 10px; border-top: 3px solid #1a1a1a; }
h3 { font-size: 17px; margin: 28px 0 6px; }
p, li { max-width: 100ch; }
.meta { color: #444; margin: 2px 0; }
table { border-collapse: collapse; margin: 8px 0 10px; font-size: 14px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
th { background: #f2f2f2; border-bottom: 2px solid #999; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { font-weight: 600; }
td.family { white-space: nowrap; }
td.config { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; max-width: 44ch;
            overflow-wrap: anywhere; }
th { white-space: nowrap; }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; }
.chart { display: block; max-width: 100%; height: auto; margin: 6px 0; }
.swatch { vertical-align: -3px; margin-right: 5px; }
svg text { font-family: "DejaVu Sans", Arial, sans-serif; fill: #1a1a1a; }
svg .tick { font-size: 13px; fill: #333; }
svg .tick-small { font-size: 11px; fill: #555; }
svg .axis-title { font-size: 14px; font-weight: 600; }
svg .legend { font-size: 13px; }
svg .legend-title { font-size: 13px; font-weight: 600; }
svg .band-label { font-size: 12px; fill: #333; }
svg .band-title { font-size: 12px; fill: #555; font-style: italic; }
svg .note { font-size: 13px; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg .mark-label { font-size: 13px; font-weight: 600; paint-order: stroke; stroke: #fff;
                  stroke-width: 4px; stroke-linejoin: round; }
svg .verdict-label { font-size: 11px; font-weight: 700; paint-order: stroke; stroke: #fff;
                     stroke-width: 3px; }
svg .verdict-label.bad { fill: #B03A00; }
.verdict { font-weight: 700; padding: 0 5px; border-radius: 3px; border: 1px solid #999; }
.verdict.bad { background: #D55E00; color: #fff; border-color: #D55E00; }
.verdict.good { background: #E8F4EF; color: #00573F; border-color: #009E73; }
.verdict.unknown { background: #f2f2f2; color: #333; }
.caption { color: #333; font-size: 14px; margin: 2px 0 12px; }
details { margin: 8px 0; }
summary { cursor: pointer; font-weight: 600; }
nav ul { columns: 3; padding-left: 18px; }
@media print { body { max-width: none; padding: 0; } h2 { break-before: page; }
               .chart { break-inside: avoid; } }
)css";

std::string e(std::string_view text) { return escape(text); }

std::string ms(double v) { return v > 0 ? fmt::format("{:.4f}", v) : "-"; }
std::string tflops(const Shape& s, double ms_value) {
  return ms_value > 0 ? fmt::format("{:.1f}", s.flops() / (ms_value * 1e9)) : "-";
}

std::string verdict_badge(const std::string& v) {
  const char* kind = (v == "SLOW" || v == "WRONG" || v == "DRIFT") ? "bad"
                     : (v == "SAME" || v == "FAST")              ? "good"
                                                                 : "unknown";
  return fmt::format("<span class=\"verdict {}\">{}</span>", kind, e(v));
}

std::string shape_title(const Shape& s) {
  return fmt::format("{} &times; {} &times; {} <span class=\"meta\">(M &times; N &times; K, "
                     "{:.3g} GFLOP)</span>",
                     s.m, s.n, s.k, s.flops() / 1e9);
}

std::string anchor_of(const DeviceInfo& d, const Shape& s) {
  return fmt::format("d{}-{}", d.uuid.substr(0, std::min<std::size_t>(12, d.uuid.size())),
                     s.str());
}

void device_header(std::string& out, const DeviceInfo& d) {
  const double peak = fma_peak_flops(d);
  out += fmt::format("<h2 id=\"dev-{}\">{} <span class=\"meta mono\">{}</span></h2>\n",
                     e(d.uuid), e(d.name), e(d.uuid));
  out += fmt::format(
      "<p class=\"meta\">compute capability {}.{}, {} SMs, maximum SM clock {} MHz, {:.1f} GiB, "
      "L2 {:.0f} MiB, driver {}, runtime {}</p>\n",
      d.cc_major, d.cc_minor, d.sm_count, d.clock_khz / 1000,
      double(d.global_mem_bytes) / double(1ull << 30), double(d.l2_bytes) / double(1 << 20),
      d.driver_version, d.runtime_version);
  out += fmt::format(
      "<p class=\"meta\">FMA limit (fp32): 2 FLOP per FMA &times; {} SMs &times; {} FP32 lanes "
      "per SM &times; {} MHz = <b>{:.1f} TFLOP/s</b>. The share of it each result reaches is "
      "its TFLOP/s divided by this.</p>\n",
      d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor), d.clock_khz / 1000, peak / 1e12);
}

void shape_summary(std::string& out, const ShapeView& s, const DeviceInfo& d) {
  const double peak = fma_peak_flops(d);
  out += "<table class=\"summary\"><tr><th>family</th><th>winner config</th>"
         "<th class=\"num\">threads</th><th class=\"num\">occupancy</th>"
         "<th class=\"num\">median ms</th><th class=\"num\">TFLOP/s</th>"
         "<th class=\"num\">tuned/cuBLAS</th><th class=\"num\">of FMA limit</th>"
         "<th class=\"num\">timed / failed</th><th class=\"num\">run</th></tr>\n";
  auto share = [&](double v) {
    return v > 0 && peak > 0 ? fmt::format("{:.0f}%", s.shape.flops() / (v * 1e-3) / peak * 100)
                             : std::string("-");
  };
  for (auto& f : s.families) {
    const Point* w = f.winner >= 0 ? &s.points[size_t(f.winner)] : nullptr;
    const double m = w ? w->median_ms : 0;
    out += fmt::format(
        "<tr{}><td class=\"family\">{}{}</td><td class=\"config\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{} / {}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        f.winner >= 0 && f.winner == s.winner ? " class=\"best\"" : "", marker_swatch(f.family),
        e(f.family), w ? e(w->config) : "no correct result", w ? std::to_string(w->threads) : "-",
        w ? fmt::format("{:.1f}%", w->occupancy * 100) : "-", ms(m), tflops(s.shape, m),
        m > 0 && s.cublas_ms > 0 ? fmt::format("{:.3f}&times;", s.cublas_ms / m) : "-", share(m),
        f.timed, f.failed, f.run_id);
  }
  if (s.cublas_ms > 0)
    out += fmt::format(
        "<tr><td>cuBLAS SGEMM</td><td>reference (fp32, no TF32)</td><td class=\"num\">-</td>"
        "<td class=\"num\">-</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">1.000&times;</td><td class=\"num\">{}</td><td class=\"num\"></td>"
        "<td class=\"num\"></td></tr>\n",
        ms(s.cublas_ms), tflops(s.shape, s.cublas_ms), share(s.cublas_ms));
  out += "</table>\n";

  // The sentence the chart is about.
  std::string text;
  if (s.winner >= 0) {
    const Point& w = s.points[size_t(s.winner)];
    text += fmt::format("Measured winner: <b>{} {}</b> ({} threads, {:.1f}% occupancy), {} ms",
                        e(w.family), e(w.config), w.threads, w.occupancy * 100, ms(w.median_ms));
    if (s.cublas_ms > 0) text += fmt::format(", {:.3f}&times; cuBLAS", s.cublas_ms / w.median_ms);
    text += ". ";
  }
  if (s.textbook >= 0) {
    const Point& t = s.points[size_t(s.textbook)];
    int timed = 0;
    for (auto& p : s.points) timed += p.timed();
    text += fmt::format("Textbook occupancy pick (occupancy API, snapped to a power of four): "
                        "<b>{} {}</b> ({} threads, {:.1f}% occupancy)",
                        e(t.family), e(t.config), t.threads, t.occupancy * 100);
    if (t.timed() && s.winner >= 0)
      text += fmt::format(", {} ms: {:.2f}&times; the winner's time, rank {} of {} timed "
                          "candidates.",
                          ms(t.median_ms), t.median_ms / s.points[size_t(s.winner)].median_ms,
                          s.textbook_rank, timed);
    else
      text += fmt::format(": {}.", e(t.outcome));
  } else {
    text += "No textbook pick at this shape (tiled_dynamic was not tuned here).";
  }
  out += "<p class=\"caption\">" + text + "</p>\n";
}

// Verdicts as a matrix (a row per key, a column per check, newest checks last) so a change
// stands out, then the details of every verdict other than SAME and FAST.
constexpr std::size_t kCheckColumns = 8;

void check_table(std::string& out, const std::vector<db::CheckRecord>& all) {
  out += "<h3>Check verdicts</h3>\n";
  if (all.empty()) {
    out += "<p class=\"caption\">No <code>occtune check</code> has been recorded for this "
           "device.</p>\n";
    return;
  }
  const std::size_t first = all.size() > kCheckColumns ? all.size() - kCheckColumns : 0;
  std::vector<const db::CheckRecord*> checks;
  for (std::size_t i = first; i < all.size(); ++i) checks.push_back(&all[i]);
  std::vector<std::pair<std::string, Shape>> keys;  // first appearance order
  for (auto* c : checks)
    for (auto& k : c->keys)
      if (std::find(keys.begin(), keys.end(), std::make_pair(k.kernel, k.shape)) == keys.end())
        keys.emplace_back(k.kernel, k.shape);
  std::stable_sort(keys.begin(), keys.end(), [](auto& a, auto& b) {
    return std::make_tuple(a.second.flops(), a.first) < std::make_tuple(b.second.flops(), b.first);
  });
  out += fmt::format("<p class=\"caption\">The last {} of {} checks; each cell is the verdict "
                     "and the re-measured median over the baseline's.</p>\n",
                     checks.size(), all.size());
  out += "<table class=\"checks\"><tr><th>key</th>";
  for (auto* c : checks)
    out += fmt::format("<th class=\"num\">check {}<br><span class=\"meta\">{}<br>build "
                       "<span class=\"mono\">{}</span></span></th>",
                       c->id, e(c->recorded_at.substr(0, 16)), e(c->build_id.substr(0, 8)));
  out += "</tr>\n";
  for (auto& [kernel, shape] : keys) {
    out += fmt::format("<tr><td class=\"family\">{}{} {}</td>", marker_swatch(kernel), e(kernel),
                       e(shape.str()));
    for (auto* c : checks) {
      const auto it = std::find_if(c->keys.begin(), c->keys.end(), [&](auto& k) {
        return k.kernel == kernel && k.shape == shape;
      });
      if (it == c->keys.end()) {
        out += "<td class=\"num\"></td>";
        continue;
      }
      out += fmt::format("<td class=\"num\">{} {}</td>", verdict_badge(it->verdict),
                         it->ratio ? fmt::format("{:.3f}&times;", *it->ratio) : "");
    }
    out += "</tr>\n";
  }
  out += "</table>\n";

  auto interval = [](const std::optional<double>& m, const std::optional<double>& lo,
                     const std::optional<double>& hi) {
    if (!m) return std::string("-");
    if (lo && hi)
      return fmt::format("{:.4f} <span class=\"meta\">[{:.4f}, {:.4f}]</span>", *m, *lo, *hi);
    return fmt::format("{:.4f}", *m);
  };
  std::string rows;
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    for (auto& k : it->keys) {
      if (k.verdict == "SAME" || k.verdict == "FAST") continue;
      rows += fmt::format(
          "<tr><td class=\"num\">{}</td><td class=\"family\">{}{} {}</td><td class=\"config\">{}"
          "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          it->id, marker_swatch(k.kernel), e(k.kernel), e(k.shape.str()),
          e(k.config.value_or("-")),
          interval(k.baseline_median_ms, k.baseline_low_ms, k.baseline_high_ms),
          interval(k.current_median_ms, k.current_low_ms, k.current_high_ms),
          k.p_value ? fmt::format("{:.2g}", *k.p_value) : "-", verdict_badge(k.verdict),
          e(k.reason));
    }
  if (rows.empty()) return;
  out += "<p class=\"caption\">Every verdict other than SAME and FAST, newest first (medians in "
         "ms with the interval of the median; p from the Mann-Whitney test):</p>\n";
  out += "<table class=\"findings\"><tr><th class=\"num\">check</th><th>key</th><th>config</th>"
         "<th class=\"num\">baseline ms</th><th class=\"num\">now ms</th><th class=\"num\">p</th>"
         "<th>verdict</th><th>why</th></tr>\n" +
         rows + "</table>\n";
}

std::string protocol_text(const std::string& policy_json) {
  const auto j = nlohmann::json::parse(policy_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return e(policy_json);
  auto get = [&](const char* key) { return j.contains(key) ? j.at(key).dump() : "?"; };
  // A run stored before the flush's method was recorded flushed with a memset (TimingPolicy).
  std::string flush = stored_flush_protocol_of(j);
  flush = flush.empty() ? "?" : e(flush);
  return fmt::format(
      "&ge;{} samples and &ge;{} s, IQR &le;{}, give up at {} s / {} samples, L2 flush {}, "
      "tolerance {}, seed {}",
      get("samples"), get("min_time_s"), get("target_noise"), get("max_seconds_per_candidate"),
      get("max_samples"), flush, get("tolerance"), get("seed"));
}

void provenance(std::string& out, const DeviceView& v) {
  out += fmt::format("<details><summary>Provenance: {} run{} on this device</summary>\n",
                     v.runs.size(), v.runs.size() == 1 ? "" : "s");
  out += "<table class=\"provenance\"><tr><th class=\"num\">run</th><th>started (UTC)</th>"
         "<th>status</th><th>kernel</th><th>shape</th><th>tool</th><th>kernel build</th>"
         "<th>strategy</th><th class=\"num\">ref. clock MHz</th><th class=\"num\">SM clock "
         "MHz</th><th class=\"num\">candidates</th><th>protocol</th></tr>\n";
  for (auto& p : v.runs) {
    const auto& r = p.run;
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"mono\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td title=\"{}\">{}</td></tr>\n",
        r.id, e(r.started_at.substr(0, 19)), e(std::string(to_string(r.status))), e(r.key.kernel), e(r.key.shape.str()),
        e(r.tool_version), e(r.key.build_id), e(r.strategy.empty() ? "-" : r.strategy),
        r.reference_clock_mhz > 0 ? std::to_string(r.reference_clock_mhz) : "-",
        p.sm_clock_max_mhz > 0 ? fmt::format("{}-{}", p.sm_clock_min_mhz, p.sm_clock_max_mhz)
                               : "-",
        p.measurements, e(r.argv_json), protocol_text(r.policy_json));
  }
  out += "</table></details>\n";
}

}  // namespace

std::string render_html(const ReportData& data) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>occtune report: {}</title>\n",
                     data.devices.size() == 1 ? e(data.devices.front().device.name)
                                              : std::string("all devices"));
  out += fmt::format("<style>{}</style></head><body>\n", kStyle);
  out += "<h1>occtune tuning report</h1>\n";
  out += fmt::format(
      "<p class=\"meta\">database <span class=\"mono\">{}</span>; written {} by occtune {} "
      "(kernel build <span class=\"mono\">{}</span>)</p>\n",
      e(data.db_path), e(data.generated_at), e(data.tool_version), e(data.build_id));
  out += "<p>Each chart shows every candidate of the newest complete tuning run of each kernel "
         "family at one shape: its theoretical occupancy (from the CUDA Occupancy API) against "
         "its measured median time. The textbook method takes the occupancy API's answer; "
         "occtune measures every candidate and keeps the fastest correct one. Candidates that "
         "produced a wrong result, crashed, timed out or could not run are drawn hollow on a "
         "band above the plot. Families at the same occupancy are spread by at most 2.1 "
         "percentage points so that they stay visible. Hover over a point for its numbers.</p>\n";
  out += "<nav><ul>\n";
  for (auto& v : data.devices)
    for (auto& s : v.shapes)
      out += fmt::format("<li><a href=\"#{}\">{} {}</a></li>\n", e(anchor_of(v.device, s.shape)),
                         e(v.device.name), e(s.shape.str()));
  out += "</ul></nav>\n";

  for (auto& v : data.devices) {
    device_header(out, v.device);
    for (auto& s : v.shapes) {
      out += fmt::format("<section class=\"shape\" id=\"{}\" data-shape=\"{}\">\n",
                         e(anchor_of(v.device, s.shape)), e(s.shape.str()));
      out += "<h3>" + shape_title(s.shape) + "</h3>\n";
      shape_summary(out, s, v.device);
      out += scatter_chart(s) + "\n";
      std::vector<const KeyHistory*> keys;
      for (auto& h : v.history)
        if (h.shape == s.shape) keys.push_back(&h);
      if (!keys.empty()) {
        out += "<p class=\"caption\">History at this shape: the served winner of every "
               "complete tune run (filled) and every check's re-measurement of it (hollow), "
               "with the interval of the median; verdicts other than SAME are written above "
               "the point.</p>\n";
        out += history_chart(keys, s.shape) + "\n";
      }
      out += "</section>\n";
    }
    check_table(out, v.checks);
    provenance(out, v);
  }
  out += "<p class=\"meta\">Colours: Okabe-Ito, with a distinct marker shape per family, so the "
         "charts read in greyscale and with colour-blindness. Times are medians of CUDA-event "
         "timings with the L2 flushed before every sample; q1-q3 bars show the spread of the "
         "samples.</p>\n";
  out += "</body></html>\n";
  return out;
}

}  // namespace occtune::report
