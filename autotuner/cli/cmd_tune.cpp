// occtune tune: plans every kernel family with the runtime Occupancy API, verifies each
// candidate against cuBLAS, races them under the search strategy, prints a table per shape
// (with the tie band) and stores every measurement with its provenance.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "autotuner/cli/backend_factory.hpp"
#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/job_selection.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/cli/report_file.hpp"
#include "autotuner/cli/tune_report.hpp"
#include "autotuner/cli/source_jobs.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/multi_tune.hpp"
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
  std::vector<std::string> problems;  // user kernel families (--problem nx=..,ny=..)
  std::string layout;  // "" = the config's (default nn)
  std::string device;
  std::string spread = "shapes";
  std::string db;
  std::string format = "table";
  int min_tile = 0;
  bool quiet = false;
  bool no_isolation = false;
  double candidate_timeout = 0;  // 0: not given (env, config or the default decide)
  bool force = false;
  std::string report;  // --report FILE
  std::string output;  // --output FILE
  bool wide = false;
  // Protocol and search flags: each applied over the config only when given.
  std::vector<std::function<void(JobConfig&)>> overrides;
};

// The flag that sets each TimingPolicy / SearchSettings field, for error messages.
const std::map<std::string_view, std::string_view> kFlagOf = {
    {"warmup", "--warmup"},
    {"samples", "--samples"},
    {"min_time_s", "--min-seconds"},
    {"target_noise", "--target-noise"},
    {"max_seconds_per_candidate", "--max-seconds"},
    {"max_samples", "--max-samples"},
    {"batch", "--batch"},
    {"tolerance", "--tolerance"},
    {"settle_ms", "--settle-ms"},
    {"settle_timeout_ms", "--settle-timeout-ms"},
    {"throttle_ratio", "--throttle-ratio"},
    {"throttle_retries", "--throttle-retries"},
    {"strategy", "--strategy"},
    {"screen_samples", "--screen-samples"},
    {"drop_factor", "--drop-factor"},
    {"finalists", "--finalists"},
    {"confirm_samples", "--confirm-samples"},
    {"tie_level", "--tie-level"},
    {"time_budget_s", "--time-budget"},
    {"max_candidates", "--max-candidates"},
    {"prune", "--prune"},
    {"prune_factor", "--prune-factor"},
    {"prune_keep", "--prune-keep"},
    {"abandon_factor", "--abandon-factor"},
    {"behind_factor", "--behind-factor"},
};

std::atomic<bool> g_interrupted{false};
// The first Ctrl-C stops after the candidate in flight, with everything measured committed; a
// second one ends the process at once (committed measurements stay).
extern "C" void on_sigint(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);
}

// Job settings: flag > OCCTUNE_* environment > config file > default (design.md section 3).
JobConfig resolve_job(const TuneOptions& o) {
  std::vector<std::string> kernel_flags = o.kernels;
  std::vector<std::string> problems = o.problems;
  use_job_source_kernels(o.config, kernel_flags, problems, o.shapes);
  JobConfig job = select_job(o.config, kernel_flags, problems, o.shapes, "tune", o.layout);
  if (o.min_tile > 0) job.min_tile = o.min_tile;
  for (auto& apply : o.overrides) apply(job);
  validate_protocol(job.policy, job.search, [](std::string_view field) {
    auto it = kFlagOf.find(field);
    return it == kFlagOf.end() ? std::string(field) : std::string(it->second);
  });
  return job;
}

// Adds a flag whose value replaces a job setting when the flag is given.
template <class T>
CLI::Option* setting(CLI::App* cmd, const std::shared_ptr<TuneOptions>& o, const std::string& name,
                     const std::string& help, std::function<void(JobConfig&, const T&)> apply) {
  auto value = std::make_shared<T>();
  CLI::Option* option = cmd->add_option(name, *value, help);
  o->overrides.push_back([option, value, apply](JobConfig& job) {
    if (option->count() > 0) apply(job, *value);
  });
  return option;
}

std::string seconds(double s) {
  if (s < 0) return "?";
  if (s < 10) return fmt::format("{:.1f} s", s);
  if (s < 120) return fmt::format("{:.0f} s", s);
  return fmt::format("{:.0f} min", s / 60);
}

// Progress on stderr: one live line on a terminal (at most ten updates a second), plain lines
// otherwise (one per phase of each race), nothing with --quiet.
class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO)) {}
  void update(const TuneProgress& p) {
    if (quiet_) return;
    const std::string line = fmt::format(
        "[{}/{}] {} {} {}{}, {} elapsed{}", p.done, p.total, p.shape.str(), p.kernel, p.phase,
        p.best.empty() ? "" : fmt::format(": best {} {:.4f} ms", p.best, p.best_ms),
        seconds(p.elapsed_s), p.eta_s >= 0 ? ", ETA " + seconds(p.eta_s) : "");
    if (tty_) {
      const auto now = std::chrono::steady_clock::now();
      if (p.phase != "done" && now - last_ < std::chrono::milliseconds(100)) return;
      last_ = now;
      std::cerr << "\r\033[K" << line << std::flush;
      return;
    }
    const std::string key = p.shape.str() + p.kernel + p.phase;
    if (key == last_key_) return;
    last_key_ = key;
    std::cerr << line << '\n';
  }
  void finish() {
    if (!quiet_ && tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point last_{};
  std::string last_key_;
};

// The protocol line every table output starts with, after the device line(s).
std::string protocol_line(const JobConfig& job, int reference_clock_mhz) {
  // Issue #18: halving's abandon rule, when on, is part of how the table's rows were measured.
  const std::string abandon =
      job.search.abandons()
          ? fmt::format(" (abandoning at {}x the shape's best from {} sample{}{})",
                        job.search.abandon_factor, kAbandonMinSamples,
                        kAbandonMinSamples == 1 ? "" : "s",
                        job.search.behind_factor > 1
                            ? fmt::format(", at {}x after {}", job.search.behind_factor,
                                          kBehindMinSamples)
                            : "")
          : "";
  return fmt::format(
      "strategy {}{}, protocol: >= {} samples and {} s, relative IQR <= {}, "
      "give up at {} s or {} samples; L2 flush {}; throttled below {:.0f}% "
      "of {} MHz\n\n",
      job.search.strategy, abandon, job.policy.samples, job.policy.min_time_s,
      job.policy.target_noise, job.policy.max_seconds_per_candidate, job.policy.max_samples,
      job.policy.flush_l2 ? "on (" + job.policy.flush_method + ")" : std::string("off"),
      job.policy.throttle_ratio * 100, reference_clock_mhz);
}

std::string gpu_name(const DeviceInfo& d) {
  return fmt::format("GPU {} {} ({})", d.index, d.name, d.uuid);
}

// Creates the missing directories above a new store's path, outermost first, and returns
// them; the errors name the database path, as opening it would.
std::vector<std::filesystem::path> make_parent_directories(const std::string& db_path) {
  namespace fs = std::filesystem;
  std::vector<fs::path> missing;
  for (fs::path dir = fs::path(db_path).parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    std::error_code ec;
    const auto status = fs::status(dir, ec);
    if (status.type() != fs::file_type::not_found) {
      if (!fs::is_directory(status))
        fail(ExitCode::kRuntime,
             fmt::format("cannot open database '{}': '{}' is not a directory; pass --db with a "
                         "writable file path or set OCCTUNE_DB",
                         db_path, dir.string()));
      break;
    }
    missing.push_back(dir);
  }
  std::vector<fs::path> made;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    std::error_code ec;
    if (!fs::create_directory(*it, ec) && ec) {
      for (auto back = made.rbegin(); back != made.rend(); ++back) fs::remove(*back, ec);
      fail(ExitCode::kRuntime,
           fmt::format("cannot open database '{}': cannot create directory '{}': {}; pass --db "
                       "with a writable file path or set OCCTUNE_DB",
                       db_path, it->string(), ec.message()));
    }
    made.push_back(*it);
  }
  return made;
}

int tune_command(const TuneOptions& o, const Context& ctx) {
  const Format format = resolve_format(o.format);
  JobConfig job = resolve_job(o);
  const std::string db_path = resolve_db(o.db, job.db);
  // Inputs and the store are checked before any GPU work, so bad input never costs a context.
  const Spread spread = parse_spread(o.spread);
  const auto selectors =
      parse_device_list(resolve_device(o.device, job.device));
  const BackendOptions backend_options =
      resolve_backend_options(selectors[0] == "all" ? "" : selectors[0], !o.no_isolation,
                              o.candidate_timeout, job.candidate_timeout_s);
  if (!o.report.empty()) check_report_path(o.report);
  // An existing store is checked before any GPU work too; a new one is created only once the
  // GPUs are there, so a tune that fails for lack of one leaves no empty store behind. Its missing
  // directories are made first (a path that cannot be a store fails here, before the GPU) and
  // removed again if the GPUs cannot be used.
  std::optional<db::Store> opened;
  std::vector<std::filesystem::path> made;
  if (std::error_code ec; std::filesystem::exists(db_path, ec))
    opened.emplace(db::Store::open(db_path));
  else
    made = make_parent_directories(db_path);
  std::vector<std::unique_ptr<MeasurementBackend>> backends;
  try {
    backends = make_backends(backend_options, selectors);
  } catch (...) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) {
      std::error_code ec;
      std::filesystem::remove(*it, ec);  // only removes a directory that is still empty
    }
    throw;
  }
  if (!opened) opened.emplace(db::Store::open(db_path));
  db::Store& store = *opened;
  std::vector<MeasurementBackend*> devices;
  for (auto& b : backends) devices.push_back(b.get());
  const bool several = devices.size() > 1;
  const DeviceInfo& first = devices[0]->device();

  TuneRequest request;
  request.kernels = job.kernels;
  request.shapes = job.shapes;
  request.layout = job.layout;
  request.min_tile = job.min_tile;
  request.policy = job.policy;
  request.search = job.search;
  request.force = o.force;
  request.reference_clock_mhz = devices[0]->throttle_reference_clock_mhz();
  request.argv = ctx.argv;
  request.tool_version = OCCTUNE_VERSION;
  request.build_id = std::string(kernels::kernel_build_id());
  const auto assigned = assign_shapes(
      [&] {
        std::vector<DeviceInfo> infos;
        for (auto* d : devices) infos.push_back(d->device());
        return infos;
      }(),
      request.shapes, spread);
  OutputTarget target(o.output);
  std::ostream& out = target.stream();
  if (format == Format::kTable) {
    if (!several) {
      out << fmt::format("occtune {} on GPU {} {} ({}), kernel build {}, layout {}, db {}\n",
                         OCCTUNE_VERSION, first.index, first.name, first.uuid, request.build_id,
                         layout_name(request.layout), store.path().string())
          << protocol_line(job, request.reference_clock_mhz);
    } else {
      out << fmt::format(
          "occtune {} on {} GPUs at once, kernel build {}, layout {}, db {}, spread {}\n",
          OCCTUNE_VERSION, devices.size(), request.build_id, layout_name(request.layout),
          store.path().string(), o.spread);
      for (std::size_t d = 0; d < devices.size(); ++d)
        out << fmt::format("  {}: {} shape{}, throttle reference {} MHz\n",
                           gpu_name(devices[d]->device()), assigned[d].size(),
                           assigned[d].size() == 1 ? "" : "s",
                           devices[d]->throttle_reference_clock_mhz());
      out << protocol_line(job, request.reference_clock_mhz);
    }
  }
  if (format == Format::kCsv) print_csv_header(out);

  Progress progress(o.quiet);
  std::vector<nlohmann::json> shape_docs(devices.size(), nlohmann::json::array());
  MultiTuneEvents events;
  events.on_progress = [&](std::size_t d, const TuneProgress& p) {
    TuneProgress shown = p;
    if (several) shown.kernel = fmt::format("{} on GPU {}", p.kernel, devices[d]->device().index);
    progress.update(shown);
  };
  events.on_shape = [&](std::size_t d, const ShapeResult& result) {
    progress.finish();
    if (format == Format::kTable) {
      if (several) out << gpu_name(devices[d]->device()) << ":\n";
      print_shape_table(out, result, devices[d]->device(), o.wide);
    }
    if (format == Format::kCsv) print_csv_rows(out, devices[d]->device(), result);
    if (format == Format::kJson) shape_docs[d].push_back(shape_json(result, devices[d]->device()));
  };

  g_interrupted = false;
  auto previous = std::signal(SIGINT, on_sigint);
  const auto started = std::chrono::steady_clock::now();
  const std::vector<DeviceTune> results =
      run_tune_on_devices(devices, db::Store::connections_to(store.path()), request, spread,
                          events, g_interrupted);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::signal(SIGINT, previous);
  progress.finish();
  // One GPU fails as a tune always has: with its own error, before any summary.
  if (!several && !results[0].error.empty()) throw Error(results[0].error_code, results[0].error);

  auto device_doc = [&](std::size_t d) {
    const DeviceTune& r = results[d];
    const int clock = devices[d]->throttle_reference_clock_mhz();
    nlohmann::json doc = {{"device", output::to_json(devices[d]->device())},
                          {"build_id", request.build_id},
                          {"layout", layout_name(request.layout)},
                          {"policy", output::to_json(job.policy)},
                          {"search", search_json(job.search)},
                          {"force", o.force},
                          {"reference_clock_mhz", clock},
                          {"db", store.path().string()},
                          {"backend", devices[d]->description()},
                          {"tuning_wall_s", r.outcome.wall_s},
                          {"budget_exhausted", r.outcome.budget_exhausted},
                          {"shapes", shape_docs[d]}};
    if (several) doc["error"] = r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error);
    return doc;
  };
  if (format == Format::kTable) {
    if (!several) {
      const auto& outcome = results[0].outcome;
      out << fmt::format(
          "tuning wall time: {:.3f} s ({} shape{}; planning, buffers, "
          "reference and every race; process start excluded)\n\n",
          outcome.wall_s, outcome.shapes.size(), outcome.shapes.size() == 1 ? "" : "s");
      if (!outcome.shapes.empty()) print_summary(out, outcome.shapes);
    } else {
      for (std::size_t d = 0; d < devices.size(); ++d)
        out << fmt::format("{}: {} shape{} in {:.3f} s{}\n", gpu_name(devices[d]->device()),
                                 results[d].outcome.shapes.size(),
                                 results[d].outcome.shapes.size() == 1 ? "" : "s",
                                 results[d].outcome.wall_s,
                                 results[d].error.empty() ? "" : "; stopped: " + results[d].error);
      out << fmt::format("tuning wall time: {:.3f} s on {} GPUs at once\n\n", wall_s,
                         devices.size());
      for (std::size_t d = 0; d < devices.size(); ++d)
        if (!results[d].outcome.shapes.empty()) {
          out << gpu_name(devices[d]->device()) << ":\n";
          print_summary(out, results[d].outcome.shapes);
        }
    }
  }
  if (format == Format::kJson) {
    if (!several) {
      out << output::document("tune", device_doc(0)).dump(2) << '\n';
    } else {
      nlohmann::json per_device = nlohmann::json::array();
      for (std::size_t d = 0; d < devices.size(); ++d) per_device.push_back(device_doc(d));
      out << output::document(
                       "tune_devices",
                       {{"spread", o.spread}, {"tuning_wall_s", wall_s}, {"devices", per_device}})
                       .dump(2)
                << '\n';
    }
  }

  // The report covers what the store holds for each device tuned, this run included; its path
  // goes to stdout with a table and to stderr with a machine format, so stdout stays parseable.
  if (!o.report.empty()) {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      if (results[d].outcome.shapes.empty()) continue;
      const std::string path =
          write_report(store, devices[d]->device().uuid,
                       several ? report_path_for(o.report, devices[d]->device().index) : o.report);
      (format == Format::kTable ? out : std::cerr) << "report: " << path << '\n';
    }
  }
  target.commit();
  if (target.to_file()) spdlog::info("wrote {}", o.output);

  bool interrupted = false, budget_exhausted = false;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    const DeviceTune& r = results[d];
    if (!r.error.empty()) {
      fail(r.error_code, fmt::format("the tune on {} stopped: {}{}", gpu_name(devices[d]->device()),
                                     r.error, "; the other GPUs' results are stored"));
    }
    if (r.outcome.context_lost)
      fail(ExitCode::kRuntime,
           "a candidate left the CUDA context unusable (recorded as 'crashed'); "
           "the remaining candidates were not run. Rerun without that kernel, "
           "or without --no-isolation");
    interrupted |= r.outcome.interrupted;
    budget_exhausted |= r.outcome.budget_exhausted;
  }
  if (interrupted) {
    spdlog::warn(
        "interrupted: the measurements so far are stored in {}; rerun the same command "
        "to measure only what is missing",
        store.path().string());
    return int(ExitCode::kInterrupted);
  }
  if (budget_exhausted)
    spdlog::warn(
        "the time budget ran out ({} s): some candidates were measured partly or not at "
        "all (see the search column)",
        job.search.time_budget_s);
  return 0;
}

}  // namespace

void add_tune_command(CLI::App& app, Context& ctx, Action& action) {
  auto* cmd = app.add_subcommand("tune",
                                 "Measure every candidate of a job on the GPU and store "
                                 "the results");
  auto o = std::make_shared<TuneOptions>();
  add_config_option(*cmd, o->config);
  add_job_key_options(*cmd, o->kernels, o->shapes, o->problems);
  cmd->add_option("--layout", o->layout,
                  "operand layout nn|nt|tn|tt (op(A), op(B); t = stored transposed); overrides "
                  "the config (default nn)");
  add_device_option(*cmd, o->device,
                    "GPU index or UUID, a list of them (0,2,3) or 'all' (default 0); several GPUs "
                    "are measured at once, one worker each");
  cmd->add_option("--spread", o->spread,
                  "with several GPUs: 'shapes' (default; GPUs of one model split the shapes) or "
                  "'none' (every GPU tunes every shape)");
  add_db_option(*cmd, o->db);
  add_format_option(*cmd, o->format);
  cmd->add_option("--output", o->output,
                  "write the table, JSON or CSV to this file instead of stdout (atomically, when "
                  "the tune ends)");
  cmd->add_flag("--wide", o->wide,
                "table: every column (smem, limiter, waves, quartiles, count, noise, error)");
  cmd->add_option("--min-tile", o->min_tile, "smallest tile width the occupancy walk goes to")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->add_flag("--no-isolation", o->no_isolation,
                "measure in this process instead of a worker (debugging)");
  cmd->add_option("--candidate-timeout", o->candidate_timeout,
                  "seconds one launch of a candidate may run in the worker before it is recorded "
                  "as timeout and the worker replaced (env OCCTUNE_CANDIDATE_TIMEOUT; default 10)")
      ->check(CLI::Range(0.001, kMaxCandidateTimeoutS));
  cmd->add_option("--report", o->report,
                  "also write the HTML report of this device's results here and print its path");
  cmd->add_flag("--force", o->force,
                "measure again candidates the database already has under the same key and "
                "protocol");

  // [measure]: the protocol.
  using J = JobConfig;
  const auto at_least = [](int n) { return CLI::Range(n, 1000000); };
  setting<int>(cmd, o, "--samples", "minimum timed samples of a finalist (and the reference)",
               [](J& j, const int& v) { j.policy.samples = v; })
      ->check(at_least(1));
  setting<int>(cmd, o, "--warmup", "untimed launches before a candidate's first batch",
               [](J& j, const int& v) { j.policy.warmup = v; })
      ->check(at_least(0));
  setting<double>(cmd, o, "--min-seconds", "minimum seconds of timed execution of a finalist",
                  [](J& j, const double& v) { j.policy.min_time_s = v; });
  setting<double>(cmd, o, "--target-noise",
                  "stop sampling once the relative IQR is at most this (e.g. 0.02)",
                  [](J& j, const double& v) { j.policy.target_noise = v; });
  setting<double>(cmd, o, "--max-seconds",
                  "give up on a candidate after this many seconds of timed execution",
                  [](J& j, const double& v) { j.policy.max_seconds_per_candidate = v; });
  setting<int>(cmd, o, "--max-samples", "give up on a candidate after this many samples",
               [](J& j, const int& v) { j.policy.max_samples = v; })
      ->check(at_least(1));
  setting<int>(cmd, o, "--batch", "samples per interleaved turn", [](J& j, const int& v) {
    j.policy.batch = v;
  })->check(at_least(1));
  setting<bool>(cmd, o, "--flush-l2", "flush L2 before every sample (true or false)",
                [](J& j, const bool& v) { j.policy.flush_l2 = v; });
  setting<double>(cmd, o, "--tolerance", "relative Frobenius error accepted against cuBLAS",
                  [](J& j, const double& v) { j.policy.tolerance = v; });
  setting<unsigned long long>(cmd, o, "--seed", "input generator seed",
                              [](J& j, const unsigned long long& v) { j.policy.seed = v; })
      ->check(CLI::NonNegativeNumber);  // CLI11 would wrap "-1" into an unsigned value
  setting<int>(cmd, o, "--settle-ms",
               "warm-up of at least this long per shape, until clocks settle",
               [](J& j, const int& v) { j.policy.settle_ms = v; })
      ->check(at_least(0));
  setting<int>(cmd, o, "--settle-timeout-ms", "longest warm-up waiting for clocks to settle",
               [](J& j, const int& v) { j.policy.settle_timeout_ms = v; })
      ->check(at_least(0));
  setting<double>(cmd, o, "--throttle-ratio",
                  "a batch below this fraction of the default SM clock is retaken (0: off)",
                  [](J& j, const double& v) { j.policy.throttle_ratio = v; });
  setting<int>(cmd, o, "--throttle-retries", "retakes of throttled batches per candidate",
               [](J& j, const int& v) { j.policy.throttle_retries = v; })
      ->check(at_least(0));
  // [search]: the strategy and budgets.
  setting<std::string>(cmd, o, "--strategy", "halving (default), exhaustive or occupancy",
                       [](J& j, const std::string& v) { j.search.strategy = v; });
  setting<int>(cmd, o, "--screen-samples", "halving: samples per candidate in the first round",
               [](J& j, const int& v) { j.search.screen_samples = v; })
      ->check(at_least(1));
  setting<double>(cmd, o, "--drop-factor",
                  "halving: drop candidates slower than this x the best (0: never)",
                  [](J& j, const double& v) { j.search.drop_factor = v; });
  setting<int>(cmd, o, "--finalists", "halving: candidates measured to the full stopping rule",
               [](J& j, const int& v) { j.search.finalists = v; })
      ->check(at_least(1));
  setting<int>(cmd, o, "--confirm-samples",
               "extra samples per tied candidate before deciding (0: --samples)",
               [](J& j, const int& v) { j.search.confirm_samples = v; })
      ->check(at_least(0));
  setting<double>(cmd, o, "--tie-level", "coverage of the median intervals that define a tie",
                  [](J& j, const double& v) { j.search.tie_level = v; });
  setting<double>(cmd, o, "--time-budget", "seconds for the whole tune, shared across shapes",
                  [](J& j, const double& v) { j.search.time_budget_s = v; });
  setting<int>(cmd, o, "--max-candidates", "at most this many candidates per shape and kernel",
               [](J& j, const int& v) { j.search.max_candidates = v; })
      ->check(at_least(0));
  // Issue #18: the cost model prunes before halving measures (exhaustive and occupancy never).
  setting<std::string>(cmd, o, "--prune",
                       "cost (default): halving measures only candidates the cost model "
                       "estimates within --prune-factor of the best; none: all",
                       [](J& j, const std::string& v) { j.search.prune = v; });
  setting<double>(cmd, o, "--prune-factor", "cost pruning: keep estimates within this x the best",
                  [](J& j, const double& v) { j.search.prune_factor = v; });
  setting<int>(cmd, o, "--prune-keep", "cost pruning: candidates kept per family regardless",
               [](J& j, const int& v) { j.search.prune_keep = v; });
  setting<double>(cmd, o, "--abandon-factor",
                  "halving: abandon a candidate whose fastest sample, from its first, is this x "
                  "the shape's best median so far (0: never)",
                  [](J& j, const double& v) { j.search.abandon_factor = v; });
  setting<double>(cmd, o, "--behind-factor",
                  "halving: also abandon one whose fastest of 3 samples is this x the shape's "
                  "best median so far (0: off)",
                  [](J& j, const double& v) { j.search.behind_factor = v; });
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return tune_command(*o, ctx); }; });
}

}  // namespace occtune::cli
