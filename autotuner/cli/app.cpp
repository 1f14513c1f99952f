#include "autotuner/cli/app.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>
#include <string>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/worker_mode.hpp"
#include "autotuner/core/error.hpp"
#include "occtune/version.hpp"

namespace occtune::cli {
namespace {

// A message (or a value quoted in one) longer than this is cut in the middle, so a 100,000-byte
// argument cannot flood the terminal while the fix at the end of the message stays readable.
constexpr std::size_t kMaxShown = 600;

std::string cut(const std::string& text) {
  constexpr std::size_t head = kMaxShown / 2, tail = kMaxShown / 6;
  if (text.size() <= kMaxShown) return text;
  return fmt::format("{}...({} bytes cut)...{}", text.substr(0, head), text.size() - head - tail,
                     text.substr(text.size() - tail));
}

// OCCTUNE_LOG_LEVEL is a level name in any case; an unknown or empty one is an error naming
// the variable (spdlog would silently turn every log, warnings included, off).
void setup_logging() {
  // Logs go to stderr; colour only on a terminal and never with NO_COLOR set.
  const bool color = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  auto logger = color ? spdlog::stderr_color_st("occtune") : spdlog::stderr_logger_st("occtune");
  logger->set_pattern("occtune: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  const char* value = std::getenv("OCCTUNE_LOG_LEVEL");
  if (!value) return;
  std::string name(value);
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (name == "warning") name = "warn";
  if (name == "error") name = "err";
  const auto level = spdlog::level::from_str(name);
  if (level == spdlog::level::off && name != "off")
    fail(ExitCode::kUsage,
         fmt::format("OCCTUNE_LOG_LEVEL='{}' is not a log level; set it to one of trace, debug, "
                     "info, warning, error, critical, off (any case), or unset it",
                     cut(value)));
  spdlog::set_level(level);
}

// CLI11's own words ("Could not convert", "At Most 1 required but received 2") say neither the
// value nor the fix: the common cases are said again in occtune's words.
std::string explain(const CLI::ParseError& e) {
  const std::string what = e.what();
  const std::string name = e.get_name();
  std::smatch m;
  if (name == "ArgumentMismatch" &&
      std::regex_search(what, m,
                        std::regex(R"(^(\S+): At Most (\d+) required but received (\d+))")))
    return fmt::format("{} was given {} times; give it once", m[1].str(), m[3].str());
  if (name == "ConversionError" &&
      std::regex_search(what, m, std::regex(R"(Could not convert: (\S+) = (.*)$)")))
    return fmt::format("{} '{}' is not a number; write it in digits (see --help)", m[1].str(),
                       cut(m[2].str()));
  if (name == "ValidationError" &&
      std::regex_search(what, m, std::regex(R"(^(\S+): Value (.*) not in range (\S+) to (\S+))")))
    return fmt::format("{} '{}' is not a number in {}..{}; write it in digits within that range",
                       m[1].str(), cut(m[2].str()), m[3].str(), m[4].str());
  if (name == "RequiredError" && what.find("subcommand is required") != std::string::npos)
    return "a command is missing; run `occtune --help` for the commands";
  return what + "; run `occtune --help` for usage";
}

// Every option given with an empty value, or an integer option given other than in decimal
// digits (CLI11 reads "0x50" as 80), is refused before anything runs.
void check_values(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->count() == 0 || opt->get_expected_max() == 0) continue;  // flags take no value
      const bool integer = opt->get_type_name() == "INT" || opt->get_type_name() == "UINT";
      for (const std::string& value : opt->results()) {
        if (value.empty())
          fail(ExitCode::kUsage, fmt::format("{} '' is empty; give it a value or leave the "
                                             "option out",
                                             opt->get_name()));
        const std::size_t digits = value[0] == '-' ? 1 : 0;
        if (integer && (value.size() == digits ||
                        value.find_first_not_of("0123456789", digits) != std::string::npos))
          fail(ExitCode::kUsage, fmt::format("{} '{}' is not a decimal integer; write it in "
                                             "digits, e.g. 8470",
                                             opt->get_name(), cut(value)));
      }
    }
    check_values(*sub);
  }
}

// An unknown command word, at the top or under a command with commands of its own ("db").
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* level = &app;
  std::string path = "occtune";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const auto subs = level->get_subcommands({});
    if (subs.empty()) return std::nullopt;
    CLI::App* next = nullptr;
    std::string names;
    for (auto* sub : subs) {
      if (sub->get_name() == argv[i]) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!next)
      return fmt::format("unknown command '{}'; {} commands: {} (run `{} --help`)", cut(argv[i]),
                         path, names, path);
    level = next;
    path += " " + next->get_name();
  }
  return std::nullopt;
}

}  // namespace

int run(int argc, char** argv) {
  try {
    setup_logging();
  } catch (const Error& e) {
    std::cerr << "occtune: error: " << e.what() << '\n';
    return int(e.code());
  }
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
  add_compile_command(app, ctx, action);
  if (auto unknown = unknown_command(app, argc, argv)) {
    std::cerr << "occtune: error: " << *unknown << '\n';
    return int(ExitCode::kUsage);
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
    std::cerr << "occtune: error: " << cut(explain(e)) << '\n';
    return int(ExitCode::kUsage);
  }
  try {
    check_values(app);
    return action ? action() : int(ExitCode::kUsage);
  } catch (const Error& e) {
    std::cerr << "occtune: error: " << cut(name_env_source(e.what())) << '\n';
    return int(e.code());
  } catch (const std::exception& e) {
    // Anything not mapped on purpose is a runtime failure, never a crash.
    std::cerr << "occtune: error: " << cut(name_env_source(e.what())) << '\n';
    return int(ExitCode::kRuntime);
  }
}

}  // namespace occtune::cli
