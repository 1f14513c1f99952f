// What `occtune check` and `occtune compare` share on the command line: the gate's options, the
// threshold parser and writing the report in every requested form.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "autotuner/cli/context.hpp"
#include "autotuner/engine/gate.hpp"

namespace occtune::cli {

// --runners-up not given (any value a user can type, -1 included, is checked).
inline constexpr int kRunnersUpUnset = -2147483647 - 1;

struct GateCliOptions {
  std::string threshold;  // percent, "5" or "5%"; empty: env OCCTUNE_THRESHOLD, config, 5%
  int runners_up = kRunnersUpUnset;  // unset: config, else 2
  bool strict = false;
  bool allow_different_device = false;
  std::string format = "table";
  std::string junit;
  std::string markdown;
  std::string output;  // --output FILE: the table, JSON or CSV instead of stdout
};

void add_gate_options(CLI::App& cmd, GateCliOptions& o);

// Resolves flag > OCCTUNE_THRESHOLD > config > default into gate options; Error(kUsage) for a
// threshold that is not a percentage in (0, 100).
gate::GateOptions resolve_gate_options(const GateCliOptions& o, double config_threshold,
                                       int config_runners_up);
double parse_threshold(const std::string& text);  // "5", "5%", "2.5" -> 0.05, 0.05, 0.025

// Prints the table or JSON to stdout, writes --junit and --markdown, returns the exit code.
int emit_gate_report(const gate::GateReport& report, const GateCliOptions& o);

}  // namespace occtune::cli
