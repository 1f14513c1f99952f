#include "autotuner/cli/bench_suite.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autotuner/core/error.hpp"

namespace occtune::cli {

std::vector<SuiteShape> parse_bench_suite(std::string_view text, const std::string& origin) {
  std::vector<SuiteShape> out;
  std::vector<int> lines;  // where each shape came from, for the repeat message
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string shape_text, category, extra;
    if (!(words >> shape_text)) continue;
    words >> category;
    if (words >> extra)
      fail(ExitCode::kUsage,
           fmt::format("suite {} line {}: '{}' after the category '{}'; write `MxNxK "
                       "[category]`, one shape per line",
                       origin, number, extra, category));
    for (char c : category)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        fail(ExitCode::kUsage,
             fmt::format("suite {} line {}: category '{}' may hold only letters, digits, '_' "
                         "and '-'",
                         origin, number, category));
    Shape shape;
    try {
      shape = parse_shape(shape_text);
    } catch (const Error& e) {
      fail(ExitCode::kUsage, fmt::format("suite {} line {}: {}", origin, number, e.what()));
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].shape.m == shape.m && out[i].shape.n == shape.n && out[i].shape.k == shape.k)
        fail(ExitCode::kUsage, fmt::format("suite {} line {}: shape {} repeats line {}; list "
                                           "each shape once",
                                           origin, number, shape.str(), lines[i]));
    out.push_back({shape, category});
    lines.push_back(number);
  }
  if (out.empty())
    fail(ExitCode::kUsage,
         fmt::format("suite {} lists no shape; write one `MxNxK [category]` per line", origin));
  return out;
}

std::vector<SuiteShape> load_bench_suite(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail(ExitCode::kUsage, fmt::format("suite file '{}' does not exist or is not a file; pass "
                                       "--suite with a shape list such as "
                                       "configs/bench/suite.txt",
                                       path));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) fail(ExitCode::kUsage, fmt::format("suite file '{}' cannot be read", path));
  return parse_bench_suite(text.str(), path);
}

}  // namespace occtune::cli
