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

// An error message about a value that resolve() took from an environment variable, with the
// variable named when the message quotes the value ('...') but not the variable ("... (from
// OCCTUNE_DEVICE)"): otherwise a user who never typed the value cannot tell where it came from.
std::string name_env_source(const std::string& message);
// Records that `value` came from the environment variable `variable`, for name_env_source.
void note_env_source(const std::string& value, const char* variable);

}  // namespace occtune::cli
