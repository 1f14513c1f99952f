// The report's two charts, as inline SVG: per shape, theoretical occupancy against measured time
// of every candidate (failed outcomes on a band of their own), and the history of each key
// across tune runs and checks. Families differ by colour (Okabe-Ito) and by marker shape, so
// the charts read in greyscale and with colour-blindness.
#pragma once

#include <string>
#include <vector>

#include "autotuner/report/report_data.hpp"
#include "autotuner/report/svg.hpp"

namespace occtune::report {

struct FamilyStyle {
  std::string colour;
  Marker marker = Marker::kCircle;
};
// Fixed for the built-in families, so a family looks the same in every report.
FamilyStyle family_style(const std::string& family);
// A small inline SVG of a family's marker, for tables and the legend text.
std::string marker_swatch(const std::string& family, bool hollow = false);

// The outcome band a failed candidate is drawn on: "wrong result", "crashed", "timeout" or
// "not run" (refused before or at launch).
std::string outcome_band(const std::string& outcome);

std::string scatter_chart(const ShapeView& shape);
std::string history_chart(const std::vector<const KeyHistory*>& keys, const Shape& shape);

}  // namespace occtune::report
