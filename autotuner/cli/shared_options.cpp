// Declarations and resolution of the shared options of autotuner/cli/shared_options.hpp.
#include "autotuner/cli/shared_options.hpp"

#include <fmt/format.h>

#include "db/store_path.hpp"

namespace occtune::cli {

void add_db_option(CLI::App& cmd, std::string& target, std::string_view note) {
  cmd.add_option("--db", target,
                 note.empty() ? std::string("database path (env OCCTUNE_DB; default "
                                            "$XDG_CACHE_HOME/occtune/occtune.db)")
                              : fmt::format("database path (env OCCTUNE_DB; {})", note));
}

std::string resolve_db(const std::string& flag, const std::optional<std::string>& job_db) {
  const db::StorePath where = db::resolve_store_path(flag, job_db.value_or(""));
  const std::string path = where.path.string();
  if (std::string_view(where.source) == "OCCTUNE_DB") note_env_source(path, "OCCTUNE_DB");
  return path;
}

void add_format_option(CLI::App& cmd, std::string& target, FormatSet formats) {
  cmd.add_option("--format", target,
                 formats == FormatSet::kTableJsonCsv ? "table, json or csv" : "table or json");
}

Format resolve_format(const std::string& flag, FormatSet formats) {
  return parse_format(flag, formats == FormatSet::kTableJsonCsv);
}

void add_device_option(CLI::App& cmd, std::string& target, std::string_view accepts) {
  cmd.add_option("--device", target, fmt::format("{} (env OCCTUNE_DEVICE)", accepts));
}

std::string resolve_device(const std::string& flag, const std::optional<std::string>& job_device) {
  return resolve(flag, "OCCTUNE_DEVICE", job_device.value_or(""), "");
}

void add_config_option(CLI::App& cmd, std::string& target, std::string_view note) {
  cmd.add_option("--config", target,
                 note.empty() ? std::string("TOML job file (env OCCTUNE_CONFIG; default: the "
                                            "built-in configs/default.toml)")
                              : fmt::format("TOML job file (env OCCTUNE_CONFIG; {})", note));
}

std::string resolve_config(const std::string& flag) {
  return resolve(flag, "OCCTUNE_CONFIG", "", "");
}

void add_job_key_options(CLI::App& cmd, std::vector<std::string>& kernels,
                         std::vector<std::string>& shapes, std::vector<std::string>& problems) {
  cmd.add_option("--kernel", kernels, "kernel family (repeatable); overrides the config");
  cmd.add_option("--shape", shapes, "MxNxK (repeatable); overrides the config");
  cmd.add_option("--problem", problems,
                 "a user kernel family's problem, e.g. nx=4096,ny=4096 (repeatable)");
}

}  // namespace occtune::cli
