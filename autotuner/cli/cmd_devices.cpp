// occtune devices: every visible GPU and the properties occtune plans with.
#include <fmt/format.h>

#include <iostream>
#include <vector>

#include "autotuner/cli/commands.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {

void add_devices_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("devices", "List the visible GPUs and their properties");
  auto format = std::make_shared<std::string>("table");
  cmd->add_option("--format", *format, "table or json");
  cmd->callback([&action, format] {
    action = [format] {
      const Format f = parse_format(*format, false);
      std::vector<DeviceInfo> devices;
      try {
        devices = cuda::probe_devices();
      } catch (const Error& e) {
        // A script asked for JSON: it gets a document saying why there are no devices (the
        // exit code still says it failed), not an empty stdout.
        if (f != Format::kJson) throw;
        std::cout << output::document("devices",
                                      {{"devices", nlohmann::json::array()}, {"error", e.what()}})
                         .dump(2)
                  << '\n';
        std::cerr << "occtune: error: " << e.what() << '\n';
        return int(e.code());
      }
      if (f == Format::kJson) {
        nlohmann::json list = nlohmann::json::array();
        for (auto& d : devices) list.push_back(output::to_json(d));
        std::cout << output::document("devices", {{"devices", list}}).dump(2) << '\n';
        return 0;
      }
      output::TextTable t({"#", "uuid", "name", "cc", "SMs", "smem/block", "opt-in", "smem/SM",
                           "regs/SM", "thr/SM", "blk/SM", "L2", "memory", "clock", "driver",
                           "runtime"});
      for (auto& d : devices) {
        t.add_row({std::to_string(d.index), d.uuid, d.name,
                   fmt::format("{}.{}", d.cc_major, d.cc_minor), std::to_string(d.sm_count),
                   output::bytes(d.shared_mem_per_block),
                   output::bytes(d.shared_mem_per_block_optin),
                   output::bytes(d.shared_mem_per_sm), std::to_string(d.regs_per_sm),
                   std::to_string(d.max_threads_per_sm), std::to_string(d.max_blocks_per_sm),
                   output::bytes(d.l2_bytes), output::bytes(d.global_mem_bytes),
                   fmt::format("{} MHz", d.clock_khz / 1000),
                   fmt::format("{}.{}", d.driver_version / 1000, (d.driver_version % 1000) / 10),
                   fmt::format("{}.{}", d.runtime_version / 1000,
                               (d.runtime_version % 1000) / 10)});
      }
      t.print(std::cout);
      return 0;
    };
  });
}

}  // namespace occtune::cli
