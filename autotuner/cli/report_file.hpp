// Writing the HTML report from a store, shared by `occtune report` and `tune`/`bench --report`.
#pragma once

#include <string>

#include "db/store.hpp"

namespace occtune::cli {

// Before any GPU work: Error(kUsage) when the report could not be written there (its directory
// does not exist or is not a directory), so a long tune never ends on a typo.
void check_report_path(const std::string& path);

// The report file of one GPU when several were tuned at once: "dir/r.html" -> "dir/r-gpu2.html".
std::string report_path_for(const std::string& path, int gpu_index);

// Gathers the report of `device_selector` (empty: every device) and writes it atomically to
// `path`; returns the absolute path written.
std::string write_report(db::Store& store, const std::string& device_selector,
                         const std::string& path);

}  // namespace occtune::cli
