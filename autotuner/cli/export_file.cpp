#include "autotuner/cli/export_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "autotuner/core/error.hpp"

namespace occtune::cli {

std::string read_export_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(ExitCode::kUsage, fmt::format("export file '{}' does not exist or is not a file; pass a "
                                       "file written by `occtune export`",
                                       path));
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof())
    fail(ExitCode::kUsage, fmt::format("export file '{}' cannot be read", path));
  return text.str();
}

}  // namespace occtune::cli
