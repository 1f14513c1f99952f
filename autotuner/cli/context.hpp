// What every subcommand shares: the raw argv (stored as provenance), output format, logging.
#pragma once

#include <string>
#include <vector>

namespace occtune::cli {

enum class Format { kTable, kJson, kCsv };

struct Context {
  std::vector<std::string> argv;
  bool quiet = false;
};

Format parse_format(const std::string& text, bool csv_allowed = true);
// Resolution rule of design.md: flag > OCCTUNE_<NAME> environment variable > config > default.
std::string resolve(const std::string& flag, const char* env_name, const std::string& config,
                    const std::string& fallback);
std::string env_or(const char* name, const std::string& fallback);

}  // namespace occtune::cli
