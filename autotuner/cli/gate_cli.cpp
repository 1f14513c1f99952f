// Shared command-line handling of the regression gate (gate_cli.hpp).
#include "autotuner/cli/gate_cli.hpp"
#include "autotuner/cli/shared_options.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "autotuner/cli/output_target.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/output/gate_output.hpp"

namespace occtune::cli {

void add_gate_options(CLI::App& cmd, GateCliOptions& o) {
  cmd.add_option("--threshold", o.threshold,
                 "median change in percent that can fail the gate (env OCCTUNE_THRESHOLD; "
                 "config [check].threshold; default 5)");
  cmd.add_option("--runners-up", o.runners_up,
                 "configurations after the cached winner judged for DRIFT (default 2)");
  cmd.add_flag("--strict", o.strict, "DRIFT (a runner-up now clearly faster) fails the gate too");
  cmd.add_flag("--allow-different-device", o.allow_different_device,
               "judge against baselines of another device model, driver or runtime instead of "
               "reporting them INCOMPATIBLE");
  add_format_option(cmd, o.format);
  cmd.add_option("--output", o.output, "write the table, JSON or CSV to this file instead of stdout");
  cmd.add_option("--junit", o.junit, "also write JUnit XML here (one test case per key)");
  cmd.add_option("--markdown", o.markdown, "also write a markdown summary here (for a CI comment)");
}

double parse_threshold(const std::string& text) {
  std::string number = text;
  if (!number.empty() && number.back() == '%') number.pop_back();
  double value = NAN;
  std::size_t used = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !(value > 0 && value < 100))
    fail(ExitCode::kUsage, fmt::format("threshold '{}' is not a percentage in (0, 100); pass e.g. "
                                       "--threshold 5 for 5%",
                                       text));
  return value / 100.0;
}

gate::GateOptions resolve_gate_options(const GateCliOptions& o, double config_threshold,
                                       int config_runners_up) {
  gate::GateOptions options;
  const std::string text = resolve(o.threshold, "OCCTUNE_THRESHOLD", "", "");
  options.policy.threshold = text.empty() ? config_threshold : parse_threshold(text);
  const bool given = o.runners_up != kRunnersUpUnset;
  if (given && (o.runners_up < 0 || o.runners_up > 64))
    fail(ExitCode::kUsage, fmt::format("--runners-up {} is out of range; use 0..64", o.runners_up));
  options.runners_up = given ? o.runners_up : config_runners_up;
  options.strict = o.strict;
  options.allow_different_device = o.allow_different_device;
  return options;
}

int emit_gate_report(const gate::GateReport& report, const GateCliOptions& o) {
  const Format format = resolve_format(o.format);
  // Files first: a CI step that uploads them must find them even if stdout is closed early.
  if (!o.junit.empty()) output::write_file_atomically(o.junit, output::gate_junit(report));
  if (!o.markdown.empty()) output::write_file_atomically(o.markdown, output::gate_markdown(report));
  OutputTarget target(o.output);
  if (format == Format::kJson)
    target.stream() << output::gate_json(report).dump(2) << '\n';
  else if (format == Format::kCsv)
    output::print_gate_csv(target.stream(), report);
  else
    output::print_gate_table(target.stream(), report);
  target.commit();
  return report.exit_code();
}

}  // namespace occtune::cli
