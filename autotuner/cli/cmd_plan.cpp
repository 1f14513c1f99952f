// occtune plan: the candidate set the occupancy method generates, for a real device (runtime
// Occupancy API) or offline for a device profile (cuda_occupancy.h, no GPU needed).

#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/cli/plan_printer.hpp"
#include "autotuner/cli/source_jobs.hpp"
#include "autotuner/cli/user_problem.hpp"
#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/problem_json.hpp"

namespace occtune::cli {
namespace {

struct PlanOptions {
  std::string device;
  std::string profile;
  std::vector<std::string> kernels;
  std::vector<std::string> shapes;
  std::vector<std::string> problems;  // user kernel families (--problem nx=..,ny=..)
  std::string config;                 // a job file whose [[kernel]] tables are planned
  int min_tile = 0;
  std::string format = "table";
  std::string output;
};

int run_plan(const PlanOptions& o) {
  const Format format = resolve_format(o.format);
  if (!o.device.empty() && !o.profile.empty())
    fail(ExitCode::kUsage, "plan needs exactly one of --device N (a GPU) or --profile NAME|FILE "
                           "(offline, e.g. --profile h100), not both");
  // --profile wins over OCCTUNE_DEVICE: an exported device should not break offline planning.
  const std::string device_selector = o.profile.empty() ? resolve_device(o.device) : "";
  if (device_selector.empty() && o.profile.empty())
    fail(ExitCode::kUsage, "plan needs exactly one of --device N (a GPU) or --profile NAME|FILE "
                           "(offline, e.g. --profile h100)");
  DeviceInfo device;
  if (!o.profile.empty()) device = load_device_profile(o.profile);
  std::vector<std::string> kernel_names = o.kernels;
  std::vector<std::string> problems = o.problems;
  // Offline, a job's source kernels compile for the profile's architecture (no GPU needed) and
  // the twin takes their registers from that code; on a GPU they compile for it.
  use_job_source_kernels(o.config, kernel_names, problems, o.shapes,
                         o.profile.empty() ? std::string() : device.arch());
  for (auto& k : kernel_names) validate_kernel_name(k);
  const auto shape_flags = user_problem_shapes(kernel_names, problems, o.shapes);
  if (kernel_names.empty()) kernel_names.push_back("tiled_dynamic");
  std::vector<Shape> shapes;
  for (auto& s : shape_flags) shapes.push_back(parse_shape(s));
  if (shapes.empty()) shapes.push_back(Shape{4096, 4096, 4096});

  std::unique_ptr<OccupancyOracle> oracle;
  if (!o.profile.empty()) {
    oracle = std::make_unique<OfflineOccupancy>(device);
  } else {
    device = cuda::select_device(device_selector);
    oracle = std::make_unique<cuda::RuntimeOccupancy>(device);
  }
  OutputTarget target(o.output);
  std::ostream& out = target.stream();
  if (format == Format::kCsv) print_plan_csv_header(out);
  nlohmann::json plans = nlohmann::json::array();
  for (auto& shape : shapes) {
    for (auto& name : kernel_names) {
      Plan plan = plan_family(*kernels::find_family(name), device, shape, *oracle, o.min_tile);
      // A source kernel's plan compiled it: stderr says what that took, as tune's does.
      if (plan.compile_seconds > 0)
        for (const auto& note : plan.notes) spdlog::info("compiled {}", note);
      if (format == Format::kJson) {
        auto j = output::to_json(plan);
        j["shape"] = shape.str();
        output::add_problem(j, name, shape);
        // Planned offline, a user family says where its registers come from, as the table's
        // header does: its compiled code, or its declaration and why.
        if (const UserFamily* user = find_user_family(name); user && device.uuid.empty())
          j["registers_from"] = user_resources_origin(*user, device.compute_capability());
        plans.push_back(j);
      } else if (format == Format::kCsv) {
        print_plan_csv(out, plan, shape);
      } else {
        print_plan(out, plan, device, shape);
      }
    }
  }
  if (format == Format::kJson)
    out << output::document("plan", {{"device", output::to_json(device)}, {"plans", plans}})
                     .dump(2)
              << '\n';
  target.commit();
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("plan", "Show the occupancy-API candidate set for a GPU or, "
                                         "offline, for a device profile");
  auto o = std::make_shared<PlanOptions>();
  add_device_option(*cmd, o->device, "GPU index or UUID (uses the runtime Occupancy API)");
  cmd->add_option("--profile", o->profile,
                  "device profile name (h100, h200, a100, l4, t4, rtx4090) or TOML file");
  cmd->add_option("--kernel", o->kernels, "kernel family (repeatable); default tiled_dynamic");
  cmd->add_option("--shape", o->shapes, "MxNxK (repeatable); default 4096x4096x4096");
  cmd->add_option("--problem", o->problems,
                  "a user kernel family's problem, e.g. nx=4096,ny=4096 (repeatable)");
  cmd->add_option("--config", o->config,
                  "a job file: its [[kernel]] tables (source kernels) are planned (env "
                  "OCCTUNE_CONFIG)");
  cmd->add_option("--min-tile", o->min_tile, "smallest tile width to generate")
      ->check(CLI::Range(1, 1024));
  add_format_option(*cmd, o->format);
  cmd->add_option("--output", o->output, "write the table, JSON or CSV to this file instead of stdout");
  cmd->callback([&action, o] { action = [o] { return run_plan(*o); }; });
}

}  // namespace occtune::cli
