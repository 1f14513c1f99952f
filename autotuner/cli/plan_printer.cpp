#include "autotuner/cli/plan_printer.hpp"

#include <fmt/format.h>

#include "autotuner/output/format.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {

void print_plan(std::ostream& out, const Plan& plan, const DeviceInfo& device, Shape shape) {
  out << fmt::format("{} on {} ({}), shape {}\noccupancy from: {}\n", plan.family, device.name,
                     device.uuid.empty() ? device.source : device.uuid, shape.str(), plan.oracle);
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
               output::fixed(c.waves, 2), c.rejection.empty() ? "ok" : "exceeds_limits: " + c.rejection});
  }
  t.print(out);
  for (auto& note : plan.notes) out << "note: " << note << '\n';
  out << '\n';
}

}  // namespace occtune::cli
