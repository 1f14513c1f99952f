// The options several subcommands share (--db, --format, --device, --config, a job's keys),
// declared and resolved here only: one help text, one environment variable and one resolution
// rule each (design.md section 3: flag > OCCTUNE_<NAME> > job file > default). A command adds a
// note for what the option means to it (bench's temporary database, query's UUID without CUDA).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotuner/cli/context.hpp"

namespace occtune::cli {

// --db PATH (env OCCTUNE_DB). `note` replaces the default help's tail when a command means
// something else by it (bench: "default: a temporary database").
void add_db_option(CLI::App& cmd, std::string& target, std::string_view note = {});
// The database path: --db > OCCTUNE_DB > the job file's db > the default path.
std::string resolve_db(const std::string& flag, const std::optional<std::string>& job_db = {});

enum class FormatSet { kTableJsonCsv, kTableJson };
// --format table|json[|csv]
void add_format_option(CLI::App& cmd, std::string& target,
                       FormatSet formats = FormatSet::kTableJsonCsv);
Format resolve_format(const std::string& flag, FormatSet formats = FormatSet::kTableJsonCsv);

// --device (env OCCTUNE_DEVICE); `accepts` says what this command takes ("GPU index or UUID").
void add_device_option(CLI::App& cmd, std::string& target, std::string_view accepts);
// The device selector text: --device > OCCTUNE_DEVICE > the job file's device > "" (the
// command's default, GPU 0 for the measuring commands).
std::string resolve_device(const std::string& flag,
                           const std::optional<std::string>& job_device = {});

// --config FILE (env OCCTUNE_CONFIG), the TOML job file; the default is the built-in
// configs/default.toml.
void add_config_option(CLI::App& cmd, std::string& target, std::string_view note = {});
std::string resolve_config(const std::string& flag);

// --kernel, --shape and --problem of the commands that measure a job's keys (tune, check):
// each repeatable, each replacing the job file's list.
void add_job_key_options(CLI::App& cmd, std::vector<std::string>& kernels,
                         std::vector<std::string>& shapes, std::vector<std::string>& problems);

}  // namespace occtune::cli
