// report_file.hpp: gather, render, write.
#include "autotuner/cli/report_file.hpp"

#include <filesystem>

#include "autotuner/output/gate_output.hpp"
#include "autotuner/report/html_page.hpp"
#include "autotuner/report/report_data.hpp"

namespace occtune::cli {

std::string write_report(db::Store& store, const std::string& device_selector,
                         const std::string& path) {
  const report::ReportData data = report::gather(store, device_selector, OCCTUNE_VERSION);
  output::write_file_atomically(path, report::render_html(data));
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

}  // namespace occtune::cli
