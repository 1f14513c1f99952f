// A minimal SVG writer for the HTML report: escaping, scales with readable ticks, and the marker
// shapes that tell kernel families apart without colour. Charts are written as text, so the
// report needs no script and no network to be viewed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace occtune::report {

// Escapes &, <, >, " and ' for text and attribute values alike.
std::string escape(std::string_view text);

// Numbers in SVG coordinates: short, locale-free.
std::string num(double value);

struct LinearScale {
  double d0 = 0, d1 = 1;  // domain
  double r0 = 0, r1 = 1;  // range (pixels)
  double operator()(double v) const;
  std::vector<double> ticks(int approximate_count) const;  // multiples of 1, 2 or 5 x 10^k
};

// Base-10 logarithmic scale; ticks at 1, 2 and 5 x 10^k (or only powers of ten when the domain
// spans more than three decades).
struct LogScale {
  double d0 = 1, d1 = 10;
  double r0 = 0, r1 = 1;
  double operator()(double v) const;
  std::vector<double> ticks() const;
};

// "0.25", "12", "1e-05": tick labels without trailing zeros.
std::string tick_label(double value);

enum class Marker { kCircle, kSquare, kTriangleUp, kDiamond, kTriangleDown, kHexagon, kStar, kCross, kPentagon, kTriangleRight, kTriangleLeft, kPlus };

struct Style {
  std::string fill = "none";
  std::string stroke = "#000";
  double stroke_width = 1;
  std::string dash;     // stroke-dasharray, empty for solid
  std::string klass;    // class attribute
  std::string extra;    // further attributes, written as given (already escaped)
};

// stroke first: most elements are lines.
inline Style paint(std::string stroke, double width, std::string fill = "none",
                   std::string dash = "", std::string klass = "") {
  Style s;
  s.stroke = std::move(stroke);
  s.stroke_width = width;
  s.fill = std::move(fill);
  s.dash = std::move(dash);
  s.klass = std::move(klass);
  return s;
}

class Svg {
 public:
  Svg(double width, double height, std::string label, std::string klass = "");
  void line(double x1, double y1, double x2, double y2, const Style& style);
  void rect(double x, double y, double w, double h, const Style& style);
  void polyline(const std::vector<std::pair<double, double>>& points, const Style& style);
  // anchor: "start", "middle" or "end"; rotate: degrees about (x, y).
  void text(double x, double y, std::string_view content, const std::string& klass = "",
            const std::string& anchor = "start", double rotate = 0);
  // A marker of `size` (about its diameter in pixels), with a tooltip.
  void marker(Marker shape, double x, double y, double size, const Style& style,
              std::string_view title);
  void raw(std::string_view element) { body_ += element; }
  std::string str() const;

 private:
  static std::string attributes(const Style& style);
  double width_, height_;
  std::string label_;
  std::string klass_;
  std::string body_;
};

}  // namespace occtune::report
