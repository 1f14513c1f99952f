// The job a measuring command (tune, check) works on: the config file (--config, else
// OCCTUNE_CONFIG), with --kernel and --shape flags replacing its lists and --layout its layout
// (design.md section 3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/job_config.hpp"

namespace occtune::cli {

// Throws Error(kUsage) for an unknown kernel, a malformed shape, or no shape at all (the
// message says what `verb` needs). No kernel anywhere means tiled_dynamic. The problems of user
// kernel families become the job's shapes (cli/user_problem): --problem, else the file's
// [job] problem(s) unless --shape is given; the file's are refused as --problem is, with the
// file named.
JobConfig select_job(const std::string& config_flag, const std::vector<std::string>& kernels,
                     const std::vector<std::string>& problems,
                     const std::vector<std::string>& shapes, std::string_view verb,
                     const std::string& layout_flag = "");

// The layout spelt by --layout (nn, nt, tn, tt); Error(kUsage) naming the value otherwise.
Layout parse_layout_flag(const std::string& text);

}  // namespace occtune::cli
