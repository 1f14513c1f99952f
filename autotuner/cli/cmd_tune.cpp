// occtune tune: plans every kernel family with the runtime Occupancy API, measures each
// candidate against cuBLAS, prints a table per shape and stores every measurement.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>

#include "autotuner/cli/backend_factory.hpp"
#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/tune_report.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/tuner.hpp"
#include "autotuner/output/json_output.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::cli {
namespace {

struct TuneOptions {
  std::string config;
  std::vector<std::string> kernels;
  std::vector<std::string> shapes;
  std::string device;
  std::string db;
  std::string format = "table";
  int samples = 0;
  int warmup = -1;
  int min_tile = 0;
  bool quiet = false;
  bool no_isolation = false;
};

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted = true; }

// Job settings: flag > OCCTUNE_* environment > config file > default (design.md section 3).
JobConfig resolve_job(const TuneOptions& o) {
  JobConfig job = load_job_config(resolve(o.config, "OCCTUNE_CONFIG", "", ""));
  if (!o.kernels.empty()) {
    for (auto& k : o.kernels) validate_kernel_name(k);
    job.kernels = o.kernels;
  }
  if (!o.shapes.empty()) {
    job.shapes.clear();
    for (auto& s : o.shapes) job.shapes.push_back(parse_shape(s));
  }
  if (job.kernels.empty()) job.kernels = {"tiled_dynamic"};
  if (job.shapes.empty())
    fail(ExitCode::kUsage, "no shapes to tune; pass --shape MxNxK or list [job].shapes in the config");
  if (o.samples > 0) job.policy.samples = o.samples;
  if (o.warmup >= 0) job.policy.warmup = o.warmup;
  if (o.min_tile > 0) job.min_tile = o.min_tile;
  return job;
}

// Progress on stderr: one live line on a terminal, plain lines otherwise, nothing with --quiet.
class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)) {}
  void step(int done, int total, const std::string& what) {
    if (quiet_) return;
    if (tty_)
      std::cerr << fmt::format("\r\033[K[{}/{}] {}", done, total, what) << std::flush;
    else
      std::cerr << fmt::format("[{}/{}] {}\n", done, total, what);
  }
  void finish() {
    if (!quiet_ && tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool quiet_, tty_;
};

int tune_command(const TuneOptions& o, const Context& ctx) {
  const Format format = parse_format(o.format);
  JobConfig job = resolve_job(o);
  const std::string db_path =
      resolve(o.db, "OCCTUNE_DB", job.db.value_or(""), db::Store::default_path().string());
  // Inputs and the store are checked before any GPU work, so bad input never costs a context.
  auto store = db::Store::open(db_path);
  auto backend = make_backend(
      {resolve(o.device, "OCCTUNE_DEVICE", job.device.value_or(""), ""), !o.no_isolation});
  const DeviceInfo& device = backend->device();

  TuneRequest request{job.kernels, job.shapes, job.min_tile, job.policy, ctx.argv,
                      OCCTUNE_VERSION, std::string(kernels::kernel_build_id())};
  if (format == Format::kTable)
    std::cout << fmt::format("occtune {} on GPU {} {} ({}), kernel build {}, db {}\n\n",
                             OCCTUNE_VERSION, device.index, device.name, device.uuid,
                             request.build_id, store.path().string());
  if (format == Format::kCsv) print_csv_header(std::cout);

  Progress progress(o.quiet);
  nlohmann::json shape_docs = nlohmann::json::array();
  TuneEvents events;
  events.on_measurement = [&](const Shape& shape, const std::string& kernel, const Measurement& m,
                              int done, int total) {
    progress.step(done, total,
                  fmt::format("{} {} {}: {}{}", shape.str(), kernel, m.candidate.variant->label(),
                              to_string(m.outcome),
                              m.outcome == Outcome::kOk
                                  ? fmt::format(" {:.4f} ms", m.timing.summary.median)
                                  : ""));
  };
  events.on_shape = [&](const ShapeResult& result) {
    progress.finish();
    if (format == Format::kTable) print_shape_table(std::cout, result);
    if (format == Format::kCsv) print_csv_rows(std::cout, device, result);
    if (format == Format::kJson) shape_docs.push_back(shape_json(result));
  };

  g_interrupted = false;
  auto previous = std::signal(SIGINT, on_sigint);
  TuneOutcome outcome = run_tune(*backend, store, request, events, g_interrupted);
  std::signal(SIGINT, previous);

  if (format == Format::kJson)
    std::cout << output::document("tune", {{"device", output::to_json(device)},
                                           {"build_id", request.build_id},
                                           {"policy", output::to_json(job.policy)},
                                           {"db", store.path().string()},
                                           {"backend", backend->description()},
                                           {"shapes", shape_docs}})
                     .dump(2)
              << '\n';
  if (outcome.context_lost)
    fail(ExitCode::kRuntime, "a candidate left the CUDA context unusable (recorded as 'crashed'); "
                             "the remaining candidates were not run. Rerun without that kernel, "
                             "or without --no-isolation");
  if (outcome.interrupted) {
    spdlog::warn("interrupted: the measurements so far are stored in {}", store.path().string());
    return int(ExitCode::kInterrupted);
  }
  return 0;
}

}  // namespace

void add_tune_command(CLI::App& app, Context& ctx, Action& action) {
  auto* cmd = app.add_subcommand("tune", "Measure every candidate of a job on the GPU and store "
                                         "the results");
  auto o = std::make_shared<TuneOptions>();
  cmd->add_option("--config", o->config, "TOML job file (default: built-in configs/default.toml; "
                                         "env OCCTUNE_CONFIG)");
  cmd->add_option("--kernel", o->kernels, "kernel family (repeatable); overrides the config");
  cmd->add_option("--shape", o->shapes, "MxNxK (repeatable); overrides the config");
  cmd->add_option("--device", o->device, "GPU index or UUID (env OCCTUNE_DEVICE; default 0)");
  cmd->add_option("--db", o->db, "database path (env OCCTUNE_DB; default "
                                 "$XDG_CACHE_HOME/occtune/occtune.db)");
  cmd->add_option("--format", o->format, "table, json or csv");
  cmd->add_option("--samples", o->samples, "timed samples per candidate");
  cmd->add_option("--warmup", o->warmup, "untimed launches before sampling");
  cmd->add_option("--min-tile", o->min_tile, "smallest tile width the occupancy walk goes to");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->add_flag("--no-isolation", o->no_isolation,
                "measure in this process instead of a worker (debugging)");
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return tune_command(*o, ctx); }; });
}

}  // namespace occtune::cli
