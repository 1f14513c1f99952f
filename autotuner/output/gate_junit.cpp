// JUnit XML for CI test reporters: one <testcase> per key; SLOW and WRONG (and DRIFT with
// --strict) are <failure>s with the numbers, MISSING and INCOMPATIBLE <error>s (not judged),
// everything else passes with its reason in <system-out>. The XML is written by hand: it needs
// five entity escapes, not a library (Debian's XML libraries would be a new dependency for that).
#include <fmt/format.h>

#include "autotuner/core/user_family.hpp"
#include "autotuner/output/gate_output.hpp"

namespace occtune::output {
namespace {

std::string xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        // Other control characters are not allowed in XML 1.0 at all.
        out += c < 0x20 ? '?' : char(c);
    }
  }
  return out;
}

std::string side_text(const char* label, const std::optional<gate::Side>& s) {
  if (!s) return fmt::format("{}: none\n", label);
  return fmt::format(
      "{}: {} {} ({} threads), {} samples, median {:.4f} ms (q1 {:.4f}, q3 {:.4f}), "
      "outcome {}, build {}, {}{}\n",
      label, s->variant, s->config, s->threads, s->summary.count, s->summary.median, s->summary.q1,
      s->summary.q3, to_string(s->outcome), s->build_id, s->platform,
      s->run_id ? fmt::format(", run {}", s->run_id) : "");
}

// A runner-up is compared with the winner: FAST means it now beats the winner (DRIFT).
const char* runner_up_words(Verdict v) {
  switch (v) {
    case Verdict::kFast:
      return "clearly faster: DRIFT";
    case Verdict::kSlow:
      return "clearly slower";
    case Verdict::kSame:
      return "within the threshold";
    default:
      return "not separated";
  }
}

std::string details(const gate::KeyVerdict& k) {
  std::string text = fmt::format("{}: {}\n", to_string(k.verdict), k.reason);
  text += side_text("baseline", k.baseline);
  text += side_text("current", k.current);
  const auto& c = k.comparison;
  if (c.base_count && c.current_count)
    text += fmt::format(
        "ratio {:.4f}, median intervals [{:.4f}, {:.4f}] vs [{:.4f}, {:.4f}] ms, "
        "Mann-Whitney p = {:.2e}\n",
        c.ratio, c.base_interval.low, c.base_interval.high, c.current_interval.low,
        c.current_interval.high, c.p_value);
  if (k.first_comparison)
    text += fmt::format("first measurement: {} at {:.4f}x, then measured again\n",
                        to_string(k.first_comparison->verdict), k.first_comparison->ratio);
  for (auto& r : k.runners_up)
    text += fmt::format("runner-up {}: {:.4f} ms, {:.3f}x the winner's time now ({})\n",
                        r.current.config, r.vs_winner.current_median, r.vs_winner.ratio,
                        runner_up_words(r.vs_winner.verdict));
  for (auto& note : k.notes) text += "note: " + note + "\n";
  return text;
}

}  // namespace

std::string gate_junit(const gate::GateReport& report) {
  int failures = 0, errors = 0;
  for (auto& k : report.keys) {
    failures += is_failure(report, k.verdict);
    errors += is_unjudged(k.verdict);
  }
  const std::string suite = "occtune " + report.kind;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"{0}\" tests=\"{1}\" failures=\"{2}\" errors=\"{3}\">\n"
      "  <testsuite name=\"{0}\" tests=\"{1}\" failures=\"{2}\" errors=\"{3}\" "
      "skipped=\"0\">\n",
      xml(suite), report.keys.size(), failures, errors);
  out += "    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml(name), xml(value));
  };
  property("device", report.device);
  if (!report.build_id.empty()) property("kernel_build", report.build_id);
  property("threshold", fmt::format("{:g}%", report.options.policy.threshold * 100));
  property("rule", verdict_rule(report));
  property("exit_code", std::to_string(report.exit_code()));
  out += "    </properties>\n";
  for (auto& k : report.keys) {
    double seconds = 0;
    if (k.current)
      for (double ms : k.current->samples_ms) seconds += ms / 1000.0;
    out +=
        fmt::format("    <testcase classname=\"occtune.{}.{}\" name=\"{} {}\" time=\"{:.6f}\">\n",
                    xml(report.kind), xml(k.kernel), xml(problem_text(k.kernel, k.shape)),
                    xml(k.dtype), seconds);
    const std::string verdict(to_string(k.verdict));
    const std::string message = xml(verdict + ": " + k.reason);
    if (is_failure(report, k.verdict))
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", verdict,
                         message, xml(details(k)));
    else if (is_unjudged(k.verdict))
      out += fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", verdict, message,
                         xml(details(k)));
    else
      out += fmt::format("      <system-out>{}</system-out>\n", xml(details(k)));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace occtune::output
