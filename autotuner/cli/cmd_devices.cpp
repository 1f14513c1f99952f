// occtune devices: every visible GPU and the properties occtune plans with.
#include <fmt/format.h>

#include <iostream>
#include <vector>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {

void add_devices_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("devices", "List the visible GPUs and their properties");
  auto format = std::make_shared<std::string>("table");
  auto output_path = std::make_shared<std::string>();
  add_format_option(*cmd, *format);
  cmd->add_option("--output", *output_path,
                  "write the table, JSON or CSV to this file instead of stdout");
  cmd->callback([&action, format, output_path] {
    action = [format, output_path] {
      const Format f = resolve_format(*format);
      std::vector<DeviceInfo> devices;
      try {
        devices = cuda::probe_devices();
      } catch (const Error& e) {
        // A script asked for JSON: it gets a document saying why there are no devices (the
        // exit code still says it failed), not an empty stdout.
        if (f != Format::kJson) throw;
        OutputTarget target(*output_path);
        target.stream() << output::document("devices", {{"devices", nlohmann::json::array()},
                                                        {"error", e.what()}})
                               .dump(2)
                        << '\n';
        target.commit();
        std::cerr << "occtune: error: " << e.what() << '\n';
        return int(e.code());
      }
      OutputTarget target(*output_path);
      std::ostream& out = target.stream();
      if (f == Format::kJson) {
        nlohmann::json list = nlohmann::json::array();
        for (auto& d : devices) list.push_back(output::to_json(d));
        out << output::document("devices", {{"devices", list}}).dump(2) << '\n';
        target.commit();
        return 0;
      }
      if (f == Format::kCsv) {
        output::write_csv_record(
            out, {"schema_version", "index", "uuid", "name", "cc_major", "cc_minor", "sm_count",
                  "shared_mem_per_block", "shared_mem_per_block_optin", "shared_mem_per_sm",
                  "regs_per_sm", "max_threads_per_sm", "max_blocks_per_sm", "l2_bytes",
                  "global_mem_bytes", "clock_khz", "driver_version", "runtime_version"});
        for (auto& d : devices)
          output::write_csv_record(
              out, {std::to_string(output::kJsonSchemaVersion), std::to_string(d.index), d.uuid,
                    d.name, std::to_string(d.cc_major), std::to_string(d.cc_minor),
                    std::to_string(d.sm_count), std::to_string(d.shared_mem_per_block),
                    std::to_string(d.shared_mem_per_block_optin),
                    std::to_string(d.shared_mem_per_sm), std::to_string(d.regs_per_sm),
                    std::to_string(d.max_threads_per_sm), std::to_string(d.max_blocks_per_sm),
                    std::to_string(d.l2_bytes), std::to_string(d.global_mem_bytes),
                    std::to_string(d.clock_khz), std::to_string(d.driver_version),
                    std::to_string(d.runtime_version)});
        target.commit();
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
      t.print(out);
      target.commit();
      return 0;
    };
  });
}

}  // namespace occtune::cli
