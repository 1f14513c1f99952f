// The gate's report as CSV (gate_output.hpp): raw numbers, empty fields where a side is absent.
#include <fmt/format.h>

#include "autotuner/core/user_family.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/gate_output.hpp"
#include "autotuner/output/json_output.hpp"

namespace occtune::output {

void print_gate_csv(std::ostream& out, const gate::GateReport& report) {
  write_csv_record(out, {"schema_version", "kind", "verdict", "kernel", "launched_kernel", "dtype",
                         "shape", "config", "base_median_ms", "current_median_ms", "base_count",
                         "current_count", "ratio", "p_value", "reason", "problem"});
  auto g = [](double v) { return fmt::format("{:.9g}", v); };
  for (auto& k : report.keys) {
    const auto& c = k.comparison;
    const bool timed = c.base_count > 0 && c.current_count > 0 && c.ratio > 0;
    write_csv_record(
        out, {std::to_string(kJsonSchemaVersion), report.kind, std::string(to_string(k.verdict)),
              k.kernel, k.launched_kernel.empty() ? k.kernel : k.launched_kernel, k.dtype,
              k.shape.str(), k.baseline ? k.baseline->config : "",
              c.base_count > 0 ? g(c.base_median) : "",
              c.current_count > 0 ? g(c.current_median) : "",
              k.baseline ? std::to_string(c.base_count) : "",
              k.current ? std::to_string(c.current_count) : "", timed ? g(c.ratio) : "",
              timed ? g(c.p_value) : "", k.reason, problem_text(k.kernel, k.shape)});
  }
}

}  // namespace occtune::output
