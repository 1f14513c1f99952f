// Registration of each subcommand on the CLI11 app. Each returns the action to run after
// parsing succeeded (so errors are mapped in one place, in app.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "autotuner/cli/context.hpp"

namespace occtune::cli {

using Action = std::function<int()>;

void add_devices_command(CLI::App& app, Context& ctx, Action& action);
void add_plan_command(CLI::App& app, Context& ctx, Action& action);
void add_tune_command(CLI::App& app, Context& ctx, Action& action);
void add_query_command(CLI::App& app, Context& ctx, Action& action);
void add_bench_command(CLI::App& app, Context& ctx, Action& action);
void add_db_command(CLI::App& app, Context& ctx, Action& action);
void add_serve_command(CLI::App& app, Context& ctx, Action& action);
void add_check_command(CLI::App& app, Context& ctx, Action& action);
void add_compare_command(CLI::App& app, Context& ctx, Action& action);
void add_export_command(CLI::App& app, Context& ctx, Action& action);
void add_import_command(CLI::App& app, Context& ctx, Action& action);
void add_report_command(CLI::App& app, Context& ctx, Action& action);
void add_compile_command(CLI::App& app, Context& ctx, Action& action);

}  // namespace occtune::cli
