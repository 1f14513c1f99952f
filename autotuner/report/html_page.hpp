// The report page: one self-contained HTML document (inline CSS and SVG, no script, nothing
// fetched) built from the gathered data.
#pragma once

#include <string>

#include "autotuner/report/report_data.hpp"

namespace occtune::report {

std::string render_html(const ReportData& data);

}  // namespace occtune::report
