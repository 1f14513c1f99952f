// The gate's stdout table and the wording shared by its other forms.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/gate_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::output {

bool is_failure(const gate::GateReport& report, Verdict verdict) {
  return verdict == Verdict::kSlow || verdict == Verdict::kWrong ||
         (verdict == Verdict::kDrift && report.options.strict);
}

bool is_unjudged(Verdict verdict) {
  return verdict == Verdict::kMissing || verdict == Verdict::kIncompatible;
}

std::string verdict_counts(const gate::GateReport& report) {
  std::string out;
  for (auto& [verdict, n] : report.counts())  // std::map: severity order of the enum
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, to_string(verdict));
  return out.empty() ? "no keys" : out;
}

std::string verdict_rule(const gate::GateReport& report) {
  const VerdictPolicy& p = report.options.policy;
  return fmt::format(
      "SLOW needs the median to grow by more than {:g}% and the two sample sets to be clearly "
      "separated ({:g}% distribution-free median intervals apart, or Mann-Whitney p < {:g} with "
      "at least {} samples each){}; otherwise AMBIGUOUS. DRIFT: a runner-up now beats the cached "
      "winner by the same rule{}.",
      p.threshold * 100, p.interval_level * 100, p.rank_alpha, p.rank_min_samples,
      report.kind == "check" ? "; a suspected SLOW is measured again and counts only if confirmed"
                             : "",
      report.options.strict ? " (fails: --strict)" : " (reported, fails only with --strict)");
}

void print_gate_table(std::ostream& out, const gate::GateReport& report) {
  out << fmt::format("occtune {} on {}{}; threshold {:g}%\n\n", report.kind, report.device,
                     report.build_id.empty() ? "" : ", kernel build " + report.build_id,
                     report.options.policy.threshold * 100);
  TextTable t(
      {"verdict", "kernel", "shape", "config", "base ms", "now ms", "ratio", "p", "n", "why"},
      {false, false, false, false, true, true, true, true, true, false});
  for (auto& k : report.keys) {
    const auto& c = k.comparison;
    const bool timed = c.base_count > 0 && c.current_count > 0 && c.ratio > 0;
    std::string kernel = k.kernel;
    if (k.launched_kernel != k.kernel && !k.launched_kernel.empty())
      kernel += " (as " + k.launched_kernel + ")";
    t.add_row({std::string(to_string(k.verdict)), kernel, problem_text(k.kernel, k.shape),
               k.baseline ? k.baseline->config : "-", timed ? fixed(c.base_median, 4) : "-",
               timed ? fixed(c.current_median, 4) : "-",
               timed ? fmt::format("{:.3f}x", c.ratio) : "-",
               timed ? fmt::format("{:.1e}", c.p_value) : "-",
               timed ? fmt::format("{}/{}", c.base_count, c.current_count) : "-", k.reason});
  }
  t.print(out);
  for (auto& k : report.keys)
    for (auto& note : k.notes)
      out << fmt::format("note: {} {}: {}\n", k.kernel, problem_text(k.kernel, k.shape), note);
  for (auto& note : report.notes) out << "note: " << note << '\n';
  out << fmt::format("\n{} key{}: {}; exit {}\n", report.keys.size(),
                     report.keys.size() == 1 ? "" : "s", verdict_counts(report),
                     report.exit_code());
}

void write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temp =
      target.parent_path() / fmt::format(".{}.tmp{}", target.filename().string(), ::getpid());
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << text;
    file.flush();
    if (!file) {
      const std::string why = std::strerror(errno);
      std::error_code ignored;
      fs::remove(temp, ignored);
      fail(ExitCode::kRuntime,
           fmt::format("cannot write '{}': {}; pass a writable path", path, why));
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(temp, ec);
    fail(ExitCode::kRuntime, fmt::format("cannot write '{}': {}; pass a writable path", path, why));
  }
}

}  // namespace occtune::output
