// occtune check: the regression gate on a GPU. For each key of a job it measures the cached
// winner and its nearest runners-up again, re-verifies them against cuBLAS and judges them
// against the stored baseline (docs/ci.md). Reads runs and measurements only; what it judged is
// appended to the check history (schema 4), which the cache never serves from.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <memory>

#include "autotuner/cli/backend_factory.hpp"
#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/source_jobs.hpp"
#include "autotuner/cli/gate_cli.hpp"
#include "autotuner/cli/job_selection.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/check_record.hpp"
#include "autotuner/engine/regression_check.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"
#include "kernels/registry.hpp"

namespace occtune::cli {
namespace {

struct CheckOptions {
  std::string config;
  std::vector<std::string> kernels;
  std::vector<std::string> shapes;
  std::vector<std::string> problems;  // user kernel families (--problem nx=..,ny=..)
  std::string layout;  // "" = the config's (default nn)
  std::string device;
  std::string db;
  int samples = 0;
  std::vector<std::string> overrides;
  bool quiet = false;
  bool no_isolation = false;
  GateCliOptions gate;
};

// "tiled_dynamic=tiled_dynamic_slow": measure the second family's variant with the cached
// winner's parameters in place of the first (how the gate is shown to fail on a real GPU).
std::map<std::string, std::string> parse_overrides(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      fail(ExitCode::kUsage, fmt::format("--kernel-override '{}' is not FAMILY=FAMILY; pass e.g. "
                                         "tiled_dynamic=tiled_dynamic_slow",
                                         item));
    const std::string from = item.substr(0, eq), to = item.substr(eq + 1);
    validate_kernel_name(from);
    if (!kernels::find_family(to))
      fail(ExitCode::kUsage,
           fmt::format("--kernel-override: unknown kernel '{}'; known kernels: {} (the test-only "
                       "slowed kernels are registered with OCCTUNE_TEST_KERNELS=1)",
                       to, kernels::family_names()));
    out[from] = to;
  }
  return out;
}

// Appends the check to the history through a second, read-write connection opened only now (the
// GPU work is done): the check itself stays a reader, so it works on a read-only store, where
// the history is skipped with a warning and the verdict and exit code stay the same.
void record_history(const std::string& db_path, const gate::GateReport& report,
                    const DeviceInfo& device, const Context& ctx) {
  try {
    auto writer = db::Store::open(db_path);
    writer.record_check(gate::check_record(report, device, OCCTUNE_VERSION, ctx.argv));
  } catch (const Error& e) {
    spdlog::warn("the check history was not recorded ({}); the verdicts above stand", e.what());
  }
}

int run_check_command(const CheckOptions& o, const Context& ctx) {
  resolve_format(o.gate.format);  // bad input fails before any GPU work
  std::vector<std::string> kernel_flags = o.kernels;
  std::vector<std::string> problems = o.problems;
  use_job_source_kernels(o.config, kernel_flags, problems, o.shapes);
  JobConfig job = select_job(o.config, kernel_flags, problems, o.shapes, "check", o.layout);
  if (o.samples < 0 || o.samples > 100000)
    fail(ExitCode::kUsage, fmt::format("--samples {} is out of range; use 1..100000", o.samples));
  if (o.samples > 0) job.policy.samples = o.samples;

  gate::CheckRequest request;
  request.kernels = job.kernels;
  request.shapes = job.shapes;
  request.layout = job.layout;
  request.min_tile = job.min_tile;
  request.policy = job.policy;
  request.gate = resolve_gate_options(o.gate, job.check.threshold, job.check.runners_up);
  request.build_id = std::string(kernels::kernel_build_id());
  request.kernel_override = parse_overrides(o.overrides);

  const std::string db_path = resolve_db(o.db, job.db);
  auto store = db::Store::open(db_path, db::OpenMode::kReadOnly);
  BackendOptions backend_options;
  backend_options.device_selector = resolve_device(o.device, job.device);
  backend_options.isolation = !o.no_isolation;
  auto backend = make_backend(backend_options);

  const bool tty = isatty(STDERR_FILENO);
  gate::CheckEvents events;
  events.on_progress = [&](const std::string& what) {
    if (o.quiet) return;
    if (tty)
      std::cerr << "\r\033[K" << what << std::flush;
    else
      std::cerr << what << '\n';
  };
  events.on_key = [&](const gate::KeyVerdict&) {
    if (!o.quiet && tty) std::cerr << "\r\033[K" << std::flush;
  };
  const gate::GateReport report = gate::run_check(*backend, store, request, events);
  const int code = emit_gate_report(report, o.gate);
  record_history(db_path, report, backend->device(), ctx);
  return code;
}

}  // namespace

void add_check_command(CLI::App& app, Context& ctx, Action& action) {
  auto* cmd = app.add_subcommand(
      "check",
      "Regression gate on the GPU: measure the cached winners again and judge them "
      "against the stored baselines (exit 1 on SLOW or WRONG)");
  auto o = std::make_shared<CheckOptions>();
  add_config_option(*cmd, o->config);
  add_job_key_options(*cmd, o->kernels, o->shapes, o->problems);
  cmd->add_option("--layout", o->layout,
                  "operand layout nn|nt|tn|tt of the checked keys; overrides the config "
                  "(default nn)");
  add_device_option(*cmd, o->device, "GPU index or UUID (default 0)");
  add_db_option(*cmd, o->db, "the database with the baselines");
  cmd->add_option("--samples", o->samples,
                  "timed samples per configuration (default: the job's [measure].samples)");
  cmd->add_option("--kernel-override", o->overrides,
                  "FAMILY=FAMILY: launch the second family's variant with the cached winner's "
                  "parameters (testing the gate, e.g. tiled_dynamic=tiled_dynamic_slow)");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->add_flag("--no-isolation", o->no_isolation,
                "measure in this process instead of a worker (debugging)");
  add_gate_options(*cmd, o->gate);
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return run_check_command(*o, ctx); }; });
}

}  // namespace occtune::cli
