// svg.hpp: the SVG primitives, scales and marker geometry of the report's charts.
#include "autotuner/report/svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace occtune::report {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double value) {
  if (!std::isfinite(value)) return "0";
  std::string s = fmt::format("{:.2f}", value);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

double LinearScale::operator()(double v) const {
  return d1 == d0 ? r0 : r0 + (v - d0) / (d1 - d0) * (r1 - r0);
}

std::vector<double> LinearScale::ticks(int approximate_count) const {
  const double span = std::abs(d1 - d0);
  if (span <= 0 || approximate_count < 1) return {d0};
  const double raw = span / approximate_count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (raw <= f * power) {
      step = f * power;
      break;
    }
  std::vector<double> out;
  const double lo = std::min(d0, d1), hi = std::max(d0, d1);
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return out;
}

double LogScale::operator()(double v) const {
  const double a = std::log10(d0), b = std::log10(d1);
  const double x = std::log10(std::max(v, 1e-300));
  return b == a ? r0 : r0 + (x - a) / (b - a) * (r1 - r0);
}

std::vector<double> LogScale::ticks() const {
  const double lo = std::min(d0, d1), hi = std::max(d0, d1);
  const int first = int(std::floor(std::log10(lo))), last = int(std::ceil(std::log10(hi)));
  const bool decades_only = last - first > 3;
  std::vector<double> out;
  for (int e = first; e <= last; ++e)
    for (double f : {1.0, 2.0, 5.0}) {
      if (decades_only && f != 1.0) continue;
      const double v = f * std::pow(10.0, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  return out;
}

std::string tick_label(double value) {
  if (value == 0) return "0";
  const double a = std::abs(value);
  if (a >= 1e5 || a < 1e-3) return fmt::format("{:.0e}", value);
  std::string s = fmt::format("{:.4f}", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

Svg::Svg(double width, double height, std::string label, std::string klass)
    : width_(width), height_(height), label_(std::move(label)), klass_(std::move(klass)) {}

std::string Svg::attributes(const Style& s) {
  std::string out = fmt::format(" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"", s.fill,
                                s.stroke, num(s.stroke_width));
  if (!s.dash.empty()) out += fmt::format(" stroke-dasharray=\"{}\"", s.dash);
  if (!s.klass.empty()) out += fmt::format(" class=\"{}\"", escape(s.klass));
  if (!s.extra.empty()) out += " " + s.extra;
  return out;
}

void Svg::line(double x1, double y1, double x2, double y2, const Style& style) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>", num(x1), num(y1),
                       num(x2), num(y2), attributes(style));
}

void Svg::rect(double x, double y, double w, double h, const Style& style) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}/>", num(x), num(y),
                       num(w), num(h), attributes(style));
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const Style& style) {
  std::string list;
  for (auto& [x, y] : points) list += fmt::format("{}{},{}", list.empty() ? "" : " ", num(x), num(y));
  body_ += fmt::format("<polyline points=\"{}\"{}/>", list, attributes(style));
}

void Svg::text(double x, double y, std::string_view content, const std::string& klass,
               const std::string& anchor, double rotate) {
  std::string extra;
  if (!klass.empty()) extra += fmt::format(" class=\"{}\"", escape(klass));
  if (anchor != "start") extra += fmt::format(" text-anchor=\"{}\"", anchor);
  if (rotate != 0) extra += fmt::format(" transform=\"rotate({} {} {})\"", num(rotate), num(x), num(y));
  body_ += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>", num(x), num(y), extra,
                       escape(content));
}

namespace {

std::string polygon_points(double x, double y, double r, int corners, double start_deg,
                           double inner = 0) {
  std::string out;
  const int n = inner > 0 ? corners * 2 : corners;
  for (int i = 0; i < n; ++i) {
    const double radius = (inner > 0 && i % 2 == 1) ? inner : r;
    const double a = (start_deg + 360.0 * i / n) * M_PI / 180.0;
    out += fmt::format("{}{},{}", out.empty() ? "" : " ", num(x + radius * std::cos(a)),
                       num(y + radius * std::sin(a)));
  }
  return out;
}

}  // namespace

void Svg::marker(Marker shape, double x, double y, double size, const Style& style,
                 std::string_view title) {
  const double r = size / 2;
  const std::string tip = fmt::format("<title>{}</title>", escape(title));
  const std::string a = attributes(style);
  switch (shape) {
    case Marker::kCircle:
      body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"{}>{}</circle>", num(x), num(y),
                           num(r), a, tip);
      return;
    case Marker::kSquare:
      body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}>{}</rect>",
                           num(x - r * 0.9), num(y - r * 0.9), num(r * 1.8), num(r * 1.8), a, tip);
      return;
    case Marker::kTriangleUp:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y + r * 0.15, r * 1.15, 3, -90), a, tip);
      return;
    case Marker::kTriangleDown:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y - r * 0.15, r * 1.15, 3, 90), a, tip);
      return;
    case Marker::kDiamond:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y, r * 1.2, 4, -90), a, tip);
      return;
    case Marker::kHexagon:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y, r * 1.05, 6, 0), a, tip);
      return;
    case Marker::kStar:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y, r * 1.35, 5, -90, r * 0.6), a, tip);
      return;
    case Marker::kPentagon:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x, y + r * 0.1, r * 1.15, 5, -90), a, tip);
      return;
    case Marker::kTriangleRight:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x - r * 0.15, y, r * 1.15, 3, 0), a, tip);
      return;
    case Marker::kTriangleLeft:
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>",
                           polygon_points(x + r * 0.15, y, r * 1.15, 3, 180), a, tip);
      return;
    case Marker::kPlus:
    case Marker::kCross: {
      // A plus; the cross is the same outline turned by 45 degrees.
      const double t = r * 0.38;  // half the bar thickness
      const double xs[] = {-t, t, t, r, r, t, t, -t, -t, -r, -r, -t};
      const double ys[] = {-r, -r, -t, -t, t, t, r, r, t, t, -t, -t};
      const double turn = shape == Marker::kCross ? M_PI / 4 : 0;
      std::string points;
      for (int i = 0; i < 12; ++i) {
        const double px = xs[i] * std::cos(turn) - ys[i] * std::sin(turn);
        const double py = xs[i] * std::sin(turn) + ys[i] * std::cos(turn);
        points += fmt::format("{}{},{}", i ? " " : "", num(x + px), num(y + py));
      }
      body_ += fmt::format("<polygon points=\"{}\"{}>{}</polygon>", points, a, tip);
      return;
    }
  }
}

std::string Svg::str() const {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" class=\"{}\" role=\"img\" aria-label=\"{}\">{}</svg>",
      num(width_), num(height_), num(width_), num(height_), escape(klass_), escape(label_), body_);
}

}  // namespace occtune::report
