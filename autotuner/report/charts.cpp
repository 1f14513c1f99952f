// charts.hpp: geometry of the scatter and history charts. Both are 1000 px wide in SVG units
// with the legend on the right, so they fit a 1280 px window at natural size and scale down.
#include "autotuner/report/charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace occtune::report {
namespace {

constexpr double kWidth = 1000;
constexpr double kLeft = 84;          // room for the y tick labels and the axis title
constexpr double kPlotRight = 770;    // the legend sits right of this
constexpr double kMarker = 11;

std::string ms_text(double ms) {
  if (ms >= 100) return fmt::format("{:.0f} ms", ms);
  if (ms >= 1) return fmt::format("{:.2f} ms", ms);
  return fmt::format("{:.3f} ms", ms);
}

std::string attr(const std::string& name, const std::string& value) {
  return fmt::format("{}=\"{}\"", name, escape(value));
}

// Families present, in a stable order (the fixed palette order, then by name).
std::vector<std::string> families_in(const std::vector<std::string>& names) {
  static const std::vector<std::string> order = {"tiled_dynamic", "tiled_static", "naive",
                                                 "coarsened",     "regblocked",   "pipelined",
                                                 "splitk"};
  std::vector<std::string> out;
  for (auto& f : order)
    if (std::find(names.begin(), names.end(), f) != names.end()) out.push_back(f);
  std::vector<std::string> rest;
  for (auto& f : names)
    if (std::find(order.begin(), order.end(), f) == order.end() &&
        std::find(rest.begin(), rest.end(), f) == rest.end())
      rest.push_back(f);
  std::sort(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

void y_axis(Svg& svg, const LogScale& y, double top, double bottom, const std::string& title) {
  for (double t : y.ticks()) {
    const double py = y(t);
    svg.line(kLeft, py, kPlotRight, py, paint("#d9d9d9", 1));
    svg.text(kLeft - 8, py + 4.5, tick_label(t), "tick", "end");
  }
  svg.line(kLeft, top, kLeft, bottom, paint("#333", 1.2));
  svg.text(20, (top + bottom) / 2, title, "axis-title", "middle", -90);
}

void legend_entry(Svg& svg, double y, const std::string& family, const std::string& label) {
  const FamilyStyle st = family_style(family);
  svg.marker(st.marker, kPlotRight + 30, y - 4, kMarker,
             paint("#000", 0.8, st.colour), family);
  svg.text(kPlotRight + 44, y, label, "legend");
}

// The legend's first block, right of the plot from `y` down; returns the y after it.
double family_legend(Svg& svg, double y, const std::vector<std::string>& families) {
  svg.text(kPlotRight + 22, y, "kernel family", "legend-title");
  y += 22;
  for (auto& f : families) {
    legend_entry(svg, y, f, f);
    y += 21;
  }
  return y;
}

// A family's offset along x in percentage points, so families at the same occupancy stay apart.
double family_offset(const std::vector<std::string>& families, const std::string& f) {
  const auto i = double(std::find(families.begin(), families.end(), f) - families.begin());
  return (i - (double(families.size()) - 1) / 2) * 0.7;
}

}  // namespace

FamilyStyle family_style(const std::string& family) {
  static const std::map<std::string, FamilyStyle> fixed = {
      {"tiled_dynamic", {"#D55E00", Marker::kCircle}},  // vermillion
      {"tiled_static", {"#E69F00", Marker::kSquare}},   // orange
      {"naive", {"#CC79A7", Marker::kTriangleDown}},    // reddish purple
      {"coarsened", {"#56B4E9", Marker::kDiamond}},     // sky blue
      {"regblocked", {"#0072B2", Marker::kTriangleUp}}, // blue
      {"pipelined", {"#009E73", Marker::kHexagon}},     // bluish green
      {"splitk", {"#F0E442", Marker::kStar}},           // yellow (black edge keeps it visible)
      {"skinny", {"#000000", Marker::kCross}},          // black, the palette's eighth colour
      {"streamk", {"#882255", Marker::kPentagon}},      // wine, past the eight-colour palette
      {"repacked", {"#44AA99", Marker::kTriangleRight}},  // teal (Tol's muted palette)
      {"tma", {"#332288", Marker::kTriangleLeft}},  // indigo (Tol's muted palette)
  };
  if (auto it = fixed.find(family); it != fixed.end()) return it->second;
  // Other families (a user's own): grey shades and the remaining shape, told apart by name.
  static const char* const greys[] = {"#999999", "#666666", "#BBBBBB", "#333333"};
  std::size_t h = 0;
  for (char c : family) h = h * 31 + static_cast<unsigned char>(c);
  return {greys[h % 4], Marker::kPlus};
}

std::string marker_swatch(const std::string& family, bool hollow) {
  const FamilyStyle st = family_style(family);
  Svg svg(16, 16, family, "swatch");
  svg.marker(st.marker, 8, 8, 11,
             hollow ? paint(st.colour, 2, "#fff")
                    : paint("#000", 0.8, st.colour),
             family);
  return svg.str();
}

std::string outcome_band(const std::string& outcome) {
  if (outcome == "wrong_result") return "wrong result";
  if (outcome == "crashed") return "crashed";
  if (outcome == "timeout") return "timeout";
  if (outcome == "compile_failed") return "compile failed";
  return "not run";
}

std::string scatter_chart(const ShapeView& s) {
  std::vector<std::string> names;
  for (auto& p : s.points) names.push_back(p.family);
  const auto families = families_in(names);

  // Bands for the outcomes present, in a fixed order.
  std::vector<std::string> bands;
  for (const char* b : {"wrong result", "crashed", "timeout", "compile failed", "not run"})
    if (std::any_of(s.points.begin(), s.points.end(),
                    [&](auto& p) { return !p.timed() && outcome_band(p.outcome) == b; }))
      bands.push_back(b);
  constexpr double kBandRow = 22;
  const double top = 24;
  const double plot_top = top + (bands.empty() ? 0 : double(bands.size()) * kBandRow + 18);
  const double plot_bottom = plot_top + 380;
  const double height = plot_bottom + 64;

  double lo = 1e300, hi = 0;
  for (auto& p : s.points)
    if (p.timed()) {
      lo = std::min(lo, p.q1_ms > 0 ? p.q1_ms : p.median_ms);
      hi = std::max(hi, std::max(p.q3_ms, p.median_ms));
    }
  if (s.cublas_ms > 0) lo = std::min(lo, s.cublas_ms), hi = std::max(hi, s.cublas_ms);
  if (hi <= 0) lo = 0.1, hi = 1;
  // Room below the fastest point for the winner's label.
  const LogScale y{lo / 1.6, hi * 1.3, plot_bottom, plot_top};
  const LinearScale x{-0.03, 1.03, kLeft, kPlotRight};

  Svg svg(kWidth, height,
          fmt::format("Occupancy against median time of every candidate at {}", s.shape.str()),
          "chart scatter");
  // Axes and grid.
  for (double t : LinearScale{0, 1, 0, 1}.ticks(10)) {
    const double px = x(t);
    svg.line(px, plot_top, px, plot_bottom, paint("#ececec", 1));
    svg.text(px, plot_bottom + 20, fmt::format("{:.0f}%", t * 100), "tick", "middle");
  }
  y_axis(svg, y, plot_top, plot_bottom, "median time per launch (ms, log scale)");
  svg.line(kLeft, plot_bottom, kPlotRight, plot_bottom, paint("#333", 1.2));
  svg.text((kLeft + kPlotRight) / 2, plot_bottom + 48,
           "theoretical occupancy (active warps / maximum warps per SM)", "axis-title", "middle");

  // The failure band.
  std::map<std::string, double> band_y;
  for (std::size_t i = 0; i < bands.size(); ++i) {
    const double by = top + kBandRow * (double(i) + 0.5);
    band_y[bands[i]] = by;
    svg.rect(kLeft, top + kBandRow * double(i), kPlotRight - kLeft, kBandRow,
             paint("none", 0, i % 2 ? "#f4f4f4" : "#ebebeb"));
    svg.text(kLeft - 8, by + 4.5, bands[i], "band-label", "end");
  }
  if (!bands.empty())
    svg.text(kLeft + 6, top - 8, "not timed (drawn hollow, at their occupancy)", "band-title");

  // cuBLAS.
  if (s.cublas_ms > 0) {
    const double py = y(s.cublas_ms);
    svg.line(kLeft, py, kPlotRight, py,
             paint("#000", 1.5, "none", "7 4", "cublas-line"));
    svg.text(kLeft + 6, py - 6, "cuBLAS " + ms_text(s.cublas_ms), "note");
  }

  // Interquartile bars first, markers over them.
  for (auto& p : s.points) {
    if (!p.timed() || p.q3_ms <= p.q1_ms) continue;
    const double px = x(p.occupancy + family_offset(families, p.family) / 100);
    svg.line(px, y(p.q1_ms), px, y(p.q3_ms),
             paint(family_style(p.family).colour, 1.6));
  }
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const Point& p = s.points[i];
    const FamilyStyle st = family_style(p.family);
    const double px = x(p.occupancy + family_offset(families, p.family) / 100);
    const bool timed = p.timed();
    const double py = timed ? y(p.median_ms) : band_y[outcome_band(p.outcome)];
    const std::string title =
        timed ? fmt::format("{} {}: {} threads, occupancy {:.1f}%, median {} (q1-q3 {:.4f}-{:.4f}, "
                            "n={}), run {}",
                            p.family, p.config, p.threads, p.occupancy * 100, ms_text(p.median_ms),
                            p.q1_ms, p.q3_ms, p.samples, p.run_id)
              : fmt::format("{} {}: {} threads, occupancy {:.1f}%, {}{}{}, run {}", p.family,
                            p.config, p.threads, p.occupancy * 100, p.outcome,
                            p.error.empty() ? "" : ": ", p.error, p.run_id);
    Style style = timed ? paint("#000", 0.8, st.colour)
                        : paint(st.colour, 2, "#fff");
    style.klass = "pt";
    style.extra = attr("data-family", p.family) + " " + attr("data-outcome", p.outcome) + " " +
                  attr("data-config", p.config);
    svg.marker(st.marker, px, py, kMarker, style, title);
  }

  // The two marks the chart is about, each with a label on a white halo.
  auto mark = [&](int index, const std::string& label, const std::string& klass, double radius,
                  const std::string& dash, double dy) {
    if (index < 0) return;
    const Point& p = s.points[size_t(index)];
    const double px = x(p.occupancy + family_offset(families, p.family) / 100);
    const double py = p.timed() ? y(p.median_ms) : band_y[outcome_band(p.outcome)];
    svg.marker(Marker::kCircle, px, py, radius * 2,
               paint("#000", 2.2, "none", dash, klass),
               label + ": " + p.family + " " + p.config);
    // Away from the right edge and from the point cloud: diagonally out, with a leader line.
    const bool left = px > (kLeft + kPlotRight) / 2;
    const double lx = left ? px - radius - 26 : px + radius + 26;
    svg.line(px + (left ? -radius : radius) * 0.75, py + (dy > 0 ? radius : -radius) * 0.6, lx,
             py + dy, paint("#000", 1));
    svg.text(lx + (left ? -3 : 3), py + dy + (dy > 0 ? 9 : 0), label, "mark-label",
             left ? "end" : "start");
  };
  if (s.textbook >= 0 && s.textbook == s.winner) {
    mark(s.winner, "winner = textbook pick", "winner-mark textbook-mark", 10, "", -22);
  } else {
    mark(s.winner, "measured winner", "winner-mark", 10, "", 22);
    mark(s.textbook, "textbook occupancy pick", "textbook-mark", 10, "4 3", -22);
  }

  double ly = family_legend(svg, plot_top + 4, families) + 10;
  svg.marker(Marker::kCircle, kPlotRight + 30, ly - 4, 20, paint("#000", 2.2),
             "measured winner");
  svg.text(kPlotRight + 48, ly, "measured winner", "legend");
  ly += 26;
  svg.marker(Marker::kCircle, kPlotRight + 30, ly - 4, 20,
             paint("#000", 2.2, "none", "4 3"), "textbook occupancy pick");
  svg.text(kPlotRight + 48, ly, "textbook pick", "legend");
  ly += 24;
  svg.line(kPlotRight + 20, ly - 4, kPlotRight + 40, ly - 4,
           paint("#000", 1.5, "none", "7 4"));
  svg.text(kPlotRight + 44, ly, "cuBLAS SGEMM", "legend");
  ly += 22;
  svg.line(kPlotRight + 30, ly - 11, kPlotRight + 30, ly + 3, paint("#555", 1.6));
  svg.text(kPlotRight + 44, ly, "q1-q3 of the samples", "legend");
  return svg.str();
}

namespace {

// A column of the history chart: one check, or consecutive tune runs (one `occtune tune`).
struct Slot {
  std::string kind;
  std::string first_when;
  std::int64_t check_id = 0;
};

std::string short_time(const std::string& iso) {
  // "2026-11-24T09:12:33.123Z" -> "11-24 09:12"
  return iso.size() >= 16 ? iso.substr(5, 5) + " " + iso.substr(11, 5) : iso;
}

// Minutes between two ISO 8601 UTC stamps of the same format (the store's).
double minutes_between(const std::string& a, const std::string& b) {
  auto minutes = [](const std::string& t) {
    if (t.size() < 16) return 0.0;
    const int day = std::stoi(t.substr(8, 2)), hour = std::stoi(t.substr(11, 2)),
              minute = std::stoi(t.substr(14, 2));
    const int month = std::stoi(t.substr(5, 2)), year = std::stoi(t.substr(0, 4));
    return ((double(year) * 372 + month * 31 + day) * 24 + hour) * 60 + minute;
  };
  return std::abs(minutes(b) - minutes(a));
}

}  // namespace

std::string history_chart(const std::vector<const KeyHistory*>& keys, const Shape& shape) {
  // Every event of every key, in time order, grouped into slots.
  struct Event {
    const KeyHistory* key;
    const HistoryPoint* point;
  };
  std::vector<Event> events;
  for (auto* k : keys)
    for (auto& p : k->points) events.push_back({k, &p});
  std::stable_sort(events.begin(), events.end(),
                   [](auto& a, auto& b) { return a.point->when < b.point->when; });
  std::vector<Slot> slots;
  std::vector<std::size_t> slot_of(events.size());
  std::string last_tune;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const HistoryPoint& p = *events[i].point;
    const bool join =
        !slots.empty() &&
        (p.kind == "check" ? slots.back().kind == "check" && slots.back().check_id == p.id
                           : slots.back().kind == "tune" && minutes_between(last_tune, p.when) <= 10);
    if (!join) slots.push_back({p.kind, p.when, p.kind == "check" ? p.id : 0});
    if (p.kind == "tune") last_tune = p.when;
    slot_of[i] = slots.size() - 1;
  }

  std::vector<std::string> names;
  for (auto* k : keys) names.push_back(k->family);
  const auto families = families_in(names);

  const double top = 20, plot_bottom = 250, height = 318;
  double lo = 1e300, hi = 0;
  for (auto& e : events) {
    const HistoryPoint& p = *e.point;
    if (p.median_ms <= 0) continue;
    lo = std::min({lo, p.median_ms, p.low_ms > 0 ? p.low_ms : p.median_ms});
    hi = std::max({hi, p.median_ms, p.high_ms});
  }
  if (hi <= 0) lo = 0.1, hi = 1;
  const LogScale y{lo / 1.25, hi * 1.25, plot_bottom, top};
  const double step = slots.size() > 1 ? (kPlotRight - kLeft - 60) / double(slots.size() - 1) : 0;
  auto slot_x = [&](std::size_t i) {
    return slots.size() > 1 ? kLeft + 30 + step * double(i) : (kLeft + kPlotRight) / 2;
  };

  Svg svg(kWidth, height, fmt::format("Median time of each key at {} over tune runs and checks",
                                      shape.str()),
          "chart history");
  y_axis(svg, y, top, plot_bottom, "median time (ms, log scale)");
  svg.line(kLeft, plot_bottom, kPlotRight, plot_bottom, paint("#333", 1.2));
  const std::size_t every = std::max<std::size_t>(1, (slots.size() + 9) / 10);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const double px = slot_x(i);
    svg.line(px, top, px, plot_bottom,
             paint(slots[i].kind == "check" ? "#f0f0f0" : "#e2e2e2", 1));
    if (i % every != 0 && i + 1 != slots.size()) continue;
    svg.text(px, plot_bottom + 18,
             slots[i].kind == "check" ? fmt::format("check {}", slots[i].check_id) : "tune",
             "tick", "middle");
    svg.text(px, plot_bottom + 34, short_time(slots[i].first_when), "tick-small", "middle");
  }
  svg.text((kLeft + kPlotRight) / 2, plot_bottom + 58, "tune runs and checks in time order (UTC)",
           "axis-title", "middle");

  for (auto& f : families) {
    const FamilyStyle st = family_style(f);
    const double dx = family_offset(families, f) * 3;
    std::vector<std::pair<double, double>> line;
    for (std::size_t i = 0; i < events.size(); ++i) {
      const HistoryPoint& p = *events[i].point;
      if (events[i].key->family != f || p.median_ms <= 0) continue;
      line.push_back({slot_x(slot_of[i]) + dx, y(p.median_ms)});
    }
    if (line.size() > 1) svg.polyline(line, paint(st.colour, 1.5));
    for (std::size_t i = 0; i < events.size(); ++i) {
      const HistoryPoint& p = *events[i].point;
      if (events[i].key->family != f || p.median_ms <= 0) continue;
      const double px = slot_x(slot_of[i]) + dx, py = y(p.median_ms);
      if (p.high_ms > p.low_ms && p.low_ms > 0)
        svg.line(px, y(p.low_ms), px, y(p.high_ms), paint(st.colour, 1.6));
      const bool check = p.kind == "check";
      Style style = check ? paint(st.colour, 2, "#fff")
                          : paint("#000", 0.8, st.colour);
      style.klass = check ? "hist-pt hist-check" : "hist-pt hist-tune";
      style.extra = attr("data-family", f) + " " + attr("data-verdict", p.verdict);
      svg.marker(st.marker, px, py, kMarker, style,
                 fmt::format("{} {} {}: {} median {} (interval {:.4f}-{:.4f}){}, build {}", f,
                             p.kind, p.id, p.config, ms_text(p.median_ms), p.low_ms, p.high_ms,
                             p.verdict.empty() ? "" : ", verdict " + p.verdict, p.build_id));
      if (check && p.verdict != "SAME")
        svg.text(px, py - 10, p.verdict, p.verdict == "SLOW" || p.verdict == "WRONG"
                                             ? "verdict-label bad"
                                             : "verdict-label",
                 "middle");
    }
  }
  // Checks whose key could not be judged have no median: a mark on the axis keeps them visible.
  for (std::size_t i = 0; i < events.size(); ++i) {
    const HistoryPoint& p = *events[i].point;
    if (p.median_ms > 0) continue;
    svg.text(slot_x(slot_of[i]) + family_offset(families, events[i].key->family) * 3,
             plot_bottom - 6, p.verdict.empty() ? "?" : p.verdict, "verdict-label bad", "middle");
  }

  double ly = family_legend(svg, top + 4, families) + 8;
  svg.marker(Marker::kCircle, kPlotRight + 30, ly - 4, kMarker,
             paint("#000", 0.8, "#777"), "tune run");
  svg.text(kPlotRight + 44, ly, "tune: the winner", "legend");
  ly += 21;
  svg.marker(Marker::kCircle, kPlotRight + 30, ly - 4, kMarker,
             paint("#777", 2, "#fff"), "check");
  svg.text(kPlotRight + 44, ly, "check: re-measured", "legend");
  ly += 21;
  svg.line(kPlotRight + 30, ly - 11, kPlotRight + 30, ly + 3, paint("#555", 1.6));
  svg.text(kPlotRight + 44, ly, "interval of the median", "legend");
  return svg.str();
}

}  // namespace occtune::report
