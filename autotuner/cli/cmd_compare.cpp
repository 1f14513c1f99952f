// occtune compare BASE.json NEW.json: the regression gate without a GPU. Judges the runs of one
// export (e.g. tuned on a GPU runner for this change) against another (the baseline) with the
// same verdicts and exit codes as `occtune check`.
#include <fmt/format.h>

#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/export_file.hpp"
#include "autotuner/cli/gate_cli.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/gate.hpp"
#include "db/exchange.hpp"

namespace occtune::cli {
namespace {

struct CompareOptions {
  std::string base;
  std::string current;
  GateCliOptions gate;
};

int run_compare(const CompareOptions& o) {
  resolve_format(o.gate.format);
  const gate::GateOptions options =
      resolve_gate_options(o.gate, CheckSettings{}.threshold, CheckSettings{}.runners_up);
  const auto base = db::read_export(read_export_file(o.base), o.base);
  const auto current = db::read_export(read_export_file(o.current), o.current);
  if (current.empty())
    fail(ExitCode::kNotFound, fmt::format("'{}' holds no runs; export a store that has been tuned "
                                          "(`occtune tune`, then `occtune export`)",
                                          o.current));
  return emit_gate_report(gate::compare_runs(base, current, options), o.gate);
}

}  // namespace

void add_compare_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand(
      "compare",
      "Regression gate without a GPU: judge the runs of NEW.json against BASE.json "
      "(exports); exit 1 on SLOW or WRONG");
  auto o = std::make_shared<CompareOptions>();
  cmd->add_option("BASE", o->base, "baseline export (occtune export)")->required();
  cmd->add_option("NEW", o->current, "export to judge")->required();
  add_gate_options(*cmd, o->gate);
  cmd->callback([&action, o] { action = [o] { return run_compare(*o); }; });
}

}  // namespace occtune::cli
