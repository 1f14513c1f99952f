#include "autotuner/cli/app.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/worker_mode.hpp"
#include "autotuner/core/error.hpp"
#include "occtune/version.hpp"

namespace occtune::cli {
namespace {

void setup_logging() {
  // Logs go to stderr; colour only on a terminal and never with NO_COLOR set.
  const bool color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  auto logger = color ? spdlog::stderr_color_st("occtune") : spdlog::stderr_logger_st("occtune");
  logger->set_pattern("occtune: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  if (const char* level = std::getenv("OCCTUNE_LOG_LEVEL"))
    spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

int run(int argc, char** argv) {
  setup_logging();
  if (argc > 1 && std::string(argv[1]) == kWorkerCommand) return run_worker(argc, argv);
  Context ctx;
  for (int i = 0; i < argc; ++i) ctx.argv.emplace_back(argv[i]);
  CLI::App app{"occtune: finds, stores and serves the fastest launch configuration of CUDA "
               "kernels on the GPU it runs on"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] {
    return fmt::format("occtune {}\nkernel build id: {}\nCUDA runtime: {}\ngit commit: {}",
                       version(), kernel_build_id(), cuda_runtime_version(), git_commit());
  });
  Action action;
  add_devices_command(app, ctx, action);
  add_plan_command(app, ctx, action);
  add_tune_command(app, ctx, action);
  add_query_command(app, ctx, action);
  add_bench_command(app, ctx, action);
  add_db_command(app, ctx, action);
  add_serve_command(app, ctx, action);
  add_check_command(app, ctx, action);
  add_compare_command(app, ctx, action);
  add_export_command(app, ctx, action);
  add_import_command(app, ctx, action);
  add_report_command(app, ctx, action);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (auto* sub : app.get_subcommands({})) {
      known |= sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "occtune: error: unknown command '" << argv[1] << "'; commands: " << names
                << " (run `occtune --help`)\n";
      return int(ExitCode::kUsage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "occtune: error: " << e.what() << "; run `occtune --help` for usage\n";
    return int(ExitCode::kUsage);
  }
  try {
    return action ? action() : int(ExitCode::kUsage);
  } catch (const Error& e) {
    std::cerr << "occtune: error: " << e.what() << '\n';
    return int(e.code());
  } catch (const std::exception& e) {
    // Anything not mapped on purpose is a runtime failure, never a crash.
    std::cerr << "occtune: error: " << e.what() << '\n';
    return int(ExitCode::kRuntime);
  }
}

}  // namespace occtune::cli
