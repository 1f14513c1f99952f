// Reading an export file named on the command line, with the errors of design.md.
#pragma once

#include <string>

namespace occtune::cli {

// The whole file; Error(kUsage) naming the path when it is missing or unreadable.
std::string read_export_file(const std::string& path);

}  // namespace occtune::cli
