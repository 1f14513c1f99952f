// occtune tune: plans every kernel family with the runtime Occupancy API, measures each
// candidate against cuBLAS, prints a table per shape and stores every measurement.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/tune_report.hpp"
#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/cuda/runtime_occupancy.hpp"
#include "autotuner/cuda/shape_bench.hpp"
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

class Progress {
 public:
  Progress(bool quiet, int total) : quiet_(quiet), tty_(isatty(STDERR_FILENO)), total_(total) {}
  void step(const std::string& what) {
    ++done_;
    if (quiet_) return;
    if (tty_)
      std::cerr << fmt::format("\r\033[K[{}/{}] {}", done_, total_, what) << std::flush;
    else
      std::cerr << fmt::format("[{}/{}] {}\n", done_, total_, what);
  }
  void finish() {
    if (!quiet_ && tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool quiet_, tty_;
  int total_, done_ = 0;
};

int run_tune(const TuneOptions& o, const Context& ctx) {
  const Format format = parse_format(o.format);
  JobConfig job = resolve_job(o);
  const std::string db_path =
      resolve(o.db, "OCCTUNE_DB", job.db.value_or(""), db::Store::default_path().string());
  // Inputs and the store are checked before any GPU work, so bad input never costs a context.
  auto store = db::Store::open(db_path);
  DeviceInfo device = cuda::select_device(resolve(o.device, "OCCTUNE_DEVICE",
                                                  job.device.value_or(""), ""));
  const std::string build_id(kernels::kernel_build_id());
  cuda::RuntimeOccupancy oracle(device);

  std::vector<std::vector<Plan>> plans;
  int total = 0;
  for (auto& shape : job.shapes) {
    plans.emplace_back();
    for (auto& name : job.kernels) {
      plans.back().push_back(plan_family(*kernels::find_family(name), device, shape, oracle,
                                         job.min_tile));
      total += int(plans.back().back().candidates.size());
    }
  }
  if (format == Format::kTable)
    std::cout << fmt::format("occtune {} on GPU {} {} ({}), kernel build {}, db {}\n\n",
                             OCCTUNE_VERSION, device.index, device.name, device.uuid, build_id,
                             store.path().string());

  auto previous = std::signal(SIGINT, on_sigint);
  Progress progress(o.quiet, total);
  nlohmann::json shape_docs = nlohmann::json::array();
  if (format == Format::kCsv) print_csv_header(std::cout);
  bool context_lost = false;
  for (size_t si = 0; si < job.shapes.size() && !g_interrupted && !context_lost; ++si) {
    const Shape shape = job.shapes[si];
    cuda::ShapeBench bench(device, shape, job.policy);
    ShapeResult result{shape, bench.reference(), {}};
    for (auto& plan : plans[si]) {
      if (g_interrupted || context_lost) break;
      KernelResult kr;
      kr.kernel = plan.family;
      kr.run_id = store.begin_run({device, plan.family, build_id, "f32", shape, OCCTUNE_VERSION,
                                   ctx.argv, job.policy});
      store.set_reference(kr.run_id, result.cublas);
      for (auto& candidate : plan.candidates) {
        if (g_interrupted) break;
        Measurement m = bench.measure(candidate);
        store.add_measurement(kr.run_id, m);  // committed at once: an interrupt loses nothing
        progress.step(fmt::format("{} {} {}: {}{}", shape.str(), plan.family,
                                  candidate.variant->label(), to_string(m.outcome),
                                  m.outcome == Outcome::kOk
                                      ? fmt::format(" {:.4f} ms", m.timing.summary.median)
                                      : ""));
        kr.measurements.push_back(std::move(m));
      }
      context_lost = bench.context_lost();
      const auto status = g_interrupted  ? db::RunStatus::kInterrupted
                          : context_lost ? db::RunStatus::kFailed
                                         : db::RunStatus::kComplete;
      store.finish_run(kr.run_id, status);
      kr.winner = pick_winner(kr.measurements);
      if (kr.winner < 0 && status == db::RunStatus::kComplete)
        spdlog::warn("{} at {}: no candidate passed; nothing is cached for this key", plan.family,
                     shape.str());
      result.kernels.push_back(std::move(kr));
    }
    progress.finish();
    if (format == Format::kTable) print_shape_table(std::cout, result);
    if (format == Format::kCsv) print_csv_rows(std::cout, device, result);
    if (format == Format::kJson) shape_docs.push_back(shape_json(result));
  }
  std::signal(SIGINT, previous);
  if (format == Format::kJson)
    std::cout << output::document("tune", {{"device", output::to_json(device)},
                                           {"build_id", build_id},
                                           {"policy", output::to_json(job.policy)},
                                           {"db", store.path().string()},
                                           {"shapes", shape_docs}})
                     .dump(2)
              << '\n';
  if (context_lost)
    fail(ExitCode::kRuntime, "a candidate left the CUDA context unusable (recorded as 'crashed'); "
                             "the remaining candidates were not run. Rerun without that kernel "
                             "or see the stored error with `occtune query --explain`");
  if (g_interrupted) {
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
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return run_tune(*o, ctx); }; });
}

}  // namespace occtune::cli
