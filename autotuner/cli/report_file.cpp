// report_file.hpp: gather, render, write.
#include "autotuner/cli/report_file.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "autotuner/core/error.hpp"
#include "autotuner/output/gate_output.hpp"
#include "autotuner/report/html_page.hpp"
#include "autotuner/report/report_data.hpp"

namespace occtune::cli {

void check_report_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::absolute(fs::path(path)).parent_path();
  std::error_code ec;
  if (path.empty() || fs::is_directory(path, ec) || !fs::is_directory(parent, ec))
    fail(ExitCode::kUsage,
         fmt::format("--report '{}': {}; pass a file path in an existing directory", path,
                     path.empty() || fs::is_directory(path, ec) ? "is not a file path"
                                                                : "its directory does not exist"));
}

std::string report_path_for(const std::string& path, int gpu_index) {
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "-gpu" + std::to_string(gpu_index) +
                             p.extension().string()))
      .string();
}

std::string write_report(db::Store& store, const std::string& device_selector,
                         const std::string& path) {
  const report::ReportData data = report::gather(store, device_selector, OCCTUNE_VERSION);
  output::write_file_atomically(path, report::render_html(data));
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

}  // namespace occtune::cli
