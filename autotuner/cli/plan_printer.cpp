#include "autotuner/cli/plan_printer.hpp"

#include <fmt/format.h>

#include "autotuner/core/outcome.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {
namespace {

// A source kernel's configuration that did not compile is a candidate whose rejection is
// "compile_failed: <log>" (core/user_plan.cpp); every other rejection is a limit it exceeds.
bool compile_failed(const Candidate& c) {
  const std::string prefix = std::string(to_string(Outcome::kCompileFailed)) + ": ";
  return c.rejection.rfind(prefix, 0) == 0;
}

std::string status_of(const Candidate& c) {
  if (c.rejection.empty()) return "ok";
  return compile_failed(c) ? std::string(to_string(Outcome::kCompileFailed)) : "exceeds_limits";
}

}  // namespace

void print_plan(std::ostream& out, const Plan& plan, const DeviceInfo& device, Shape shape) {
  // A user kernel family's problem is shown by its dimensions (occtune/kernel.hpp).
  const UserFamily* user = find_user_family(plan.family);
  out << fmt::format("{} on {} ({}), {} {}\noccupancy from: {}{}\n", plan.family, device.name,
                     device.uuid.empty() ? device.source : device.uuid, user ? "problem" : "shape",
                     user ? to_dims(*user, shape).str() : shape.str(), plan.oracle,
                     !user || !device.uuid.empty()
                         ? ""
                         : "; this family: the registers of " +
                               user_resources_origin(*user, device.compute_capability()));
  output::TextTable t({"step", "limit", "suggested", "config", "threads", "smem", "regs",
                       "blocks/SM", "occupancy", "limiter", "grid", "waves", "status"},
                      {true, true, true, false, true, true, true, true, true, false, false, true,
                       false});
  for (auto& c : plan.candidates) {
    t.add_row({c.step ? std::to_string(c.step) : "-",
               c.block_limit ? std::to_string(c.block_limit) : "-",
               c.suggested_block ? std::to_string(c.suggested_block) : "-", c.variant->label(),
               std::to_string(c.threads), output::bytes(c.dynamic_smem),
               std::to_string(c.registers), std::to_string(c.active_blocks_per_sm),
               output::percent(c.occupancy), c.limiter, fmt::format("{}x{}", c.grid_x, c.grid_y),
               output::fixed(c.waves, 2),
               c.rejection.empty() || compile_failed(c) ? status_of(c)
                                                        : status_of(c) + ": " + c.rejection});
  }
  t.print(out);
  // The compiler's log below the table, where its lines do not break the columns.
  for (auto& c : plan.candidates)
    if (compile_failed(c)) out << c.variant->label() << ": " << c.rejection << '\n';
  for (auto& note : plan.notes) out << "note: " << note << '\n';
  out << '\n';
}

void print_plan_csv_header(std::ostream& out) {
  output::write_csv_record(
      out, {"schema_version", "shape", "kernel", "step", "block_limit", "suggested_block",
            "params", "threads", "dynamic_smem", "registers", "active_blocks_per_sm",
            "occupancy", "limiter", "grid_x", "grid_y", "waves", "status", "rejection", "problem"});
}

void print_plan_csv(std::ostream& out, const Plan& plan, Shape shape) {
  // Absent values (no textbook step, no limit) are empty fields, not 0.
  auto opt = [](int v) { return v ? std::to_string(v) : std::string(); };
  for (auto& c : plan.candidates)
    output::write_csv_record(
        out, {std::to_string(output::kJsonSchemaVersion), shape.str(), plan.family, opt(c.step),
              opt(c.block_limit), opt(c.suggested_block), c.variant->label(),
              std::to_string(c.threads), std::to_string(c.dynamic_smem),
              std::to_string(c.registers), std::to_string(c.active_blocks_per_sm),
              fmt::format("{:.9g}", c.occupancy), c.limiter, std::to_string(c.grid_x),
              std::to_string(c.grid_y), fmt::format("{:.9g}", c.waves),
              status_of(c), c.rejection,
              problem_text(plan.family, shape)});
}

}  // namespace occtune::cli
