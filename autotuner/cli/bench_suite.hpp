// The shape list of `occtune bench --suite FILE` (issue #18): one shape per line, `MxNxK`
// optionally followed by a one-word category; `#` starts a comment. The committed suite is
// configs/bench/suite.txt, written by scripts/gen-bench-suite.py.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "autotuner/core/shape.hpp"

namespace occtune::cli {

struct SuiteShape {
  Shape shape;
  std::string category;  // empty when the line names none
};

// Throws Error(kUsage) naming the file and line for a malformed shape or category, a repeated
// shape, or a file with no shape; `origin` names the text in messages.
std::vector<SuiteShape> parse_bench_suite(std::string_view text, const std::string& origin);
// Reads and parses FILE; Error(kUsage) when it does not exist or cannot be read.
std::vector<SuiteShape> load_bench_suite(const std::string& path);

}  // namespace occtune::cli
