// A markdown summary of the gate for a CI comment or job summary: the outcome first, then one row
// per key with the verdict and ratio, then the rule that produced them.
#include <fmt/format.h>

#include "autotuner/core/user_family.hpp"
#include "autotuner/output/gate_output.hpp"

namespace occtune::output {
namespace {

std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string outcome_line(const gate::GateReport& report) {
  switch (report.exit_code()) {
    case 0:
      return "passed";
    case 1:
      return "**failed**: a regression";
    default:
      return "**not judged**: keys without a comparable baseline";
  }
}

}  // namespace

std::string gate_markdown(const gate::GateReport& report) {
  std::string out = fmt::format("### occtune {}: {} (exit {})\n\n", report.kind,
                                outcome_line(report), report.exit_code());
  out += fmt::format("{} key{}: {}. Threshold {:g}%, on {}{}.\n\n", report.keys.size(),
                     report.keys.size() == 1 ? "" : "s", verdict_counts(report),
                     report.options.policy.threshold * 100, cell(report.device),
                     report.build_id.empty() ? "" : ", kernel build `" + report.build_id + "`");
  out += "| verdict | kernel | shape | config | baseline ms | current ms | ratio | why |\n";
  out += "|---|---|---|---|---:|---:|---:|---|\n";
  for (auto& k : report.keys) {
    const auto& c = k.comparison;
    const bool timed = c.base_count > 0 && c.current_count > 0 && c.ratio > 0;
    const std::string verdict(to_string(k.verdict));
    std::string kernel = k.kernel;
    if (!k.launched_kernel.empty() && k.launched_kernel != k.kernel)
      kernel += " (as " + k.launched_kernel + ")";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       is_failure(report, k.verdict) ? "**" + verdict + "**" : verdict,
                       cell(kernel), cell(problem_text(k.kernel, k.shape)),
                       cell(k.baseline ? k.baseline->config : "-"),
                       timed ? fmt::format("{:.4f}", c.base_median) : "-",
                       timed ? fmt::format("{:.4f}", c.current_median) : "-",
                       timed ? fmt::format("{:.3f}x", c.ratio) : "-", cell(k.reason));
  }
  std::string notes;
  for (auto& k : report.keys)
    for (auto& note : k.notes)
      notes += fmt::format("- {} {}: {}\n", k.kernel, problem_text(k.kernel, k.shape), cell(note));
  for (auto& note : report.notes) notes += "- " + cell(note) + "\n";
  if (!notes.empty()) {
    out += "\nNotes:\n\n";
    out += notes;
  }
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
  out += '\n';
  out += verdict_rule(report);
  out += '\n';
  return out;
}

}  // namespace occtune::output
