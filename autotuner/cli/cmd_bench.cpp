// occtune bench: runs the tuner (the same engine and protocol as `occtune tune`) on a list of
// shapes (the defaults, --shape, or a --suite file), then re-measures each shape's winner
// against cuBLAS SGEMM interleaved (A/B/A/B) and re-verifies it; prints the ratio, TFLOP/s,
// clocks and geometric mean: the benchmark of docs/PERFORMANCE.md. A throwaway database unless
// --db. The headline ratio never comes from the samples that picked the winner (issue #18): a
// single cuBLAS set once caught cuBLAS 20% slow on the H100 and turned a 0.92x row into 1.11x.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "autotuner/cli/backend_factory.hpp"
#include "autotuner/cli/bench_rows.hpp"
#include "autotuner/cli/bench_suite.hpp"
#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/job_selection.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/cli/report_file.hpp"
#include "autotuner/cli/tune_report.hpp"
#include "autotuner/core/cost_model.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/engine/tuner.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::cli {
namespace {

// Square, rectangular, skinny in M and in N, small K, small output with long K, odd sizes.
const char* const kDefaultShapes[] = {"1024x1024x1024", "2048x2048x2048", "4096x4096x4096",
                                      "8192x8192x8192", "4096x1024x2048", "3001x1000x4097",
                                      "1000x1000x1000", "4096x64x4096",   "64x4096x4096",
                                      "4096x4096x64",   "256x256x16384",  "17x4097x1023"};
// Stream-K (issue #18) is raced everywhere: wave quantisation hits squares and odd sizes alike.
// tma runs where the device is sm_90 and the operands suit TMA; elsewhere its candidates are
// rejected before launch with the reason (kernels/applicability.hpp) and it shows as "-".
const char* const kDefaultKernels[] = {"coarsened", "regblocked", "pipelined", "splitk",
                                       "streamk",   "tma"};
// Families that join the default ones only on the shapes they are built for (issue #18), each
// in a second engine run whose results join those shapes'. The small-M/N family elsewhere reads
// the large operand once per 16 rows; the repacked family on a shape whose K and leading
// dimensions are multiples of 4 copies nothing and is its inner variant again (a duplicate
// that would only slow the races down).
bool skinny_shape(Shape s, Layout) { return s.m <= 16 || s.n <= 16; }
struct ShapeFamily {
  const char* name;
  bool (*fits)(Shape, Layout);
};
// repacked: where it copies, the cost model's predicate (core/cost_model.hpp).
const ShapeFamily kShapeFamilies[] = {{"skinny", skinny_shape}, {"repacked", repacking_copies}};

struct BenchOptions {
  std::vector<std::string> shapes;
  std::string suite;  // --suite FILE
  std::vector<std::string> kernels;
  std::string layout = "nn";
  std::string config;
  std::string device;
  std::string db;
  std::string format = "table";
  bool quiet = false;
  bool no_isolation = false;
  std::string report;  // --report FILE
  std::string output;  // --output FILE
};

std::atomic<bool> g_interrupted{false};
extern "C" void on_bench_sigint(int) { g_interrupted = true; }

double ratio(const ShapeResult& r, const Measurement* m) {
  return m && m->timing.summary.median > 0 ? r.cublas_ms() / m->timing.summary.median : 0.0;
}

int bench_command(const BenchOptions& o, const Context& ctx) {
  const Format format = resolve_format(o.format);
  JobConfig job = load_job_config(resolve_config(o.config));
  job.kernels.clear();
  for (auto& k : o.kernels) validate_kernel_name(k);
  if (o.kernels.empty())
    for (auto* k : kDefaultKernels) job.kernels.emplace_back(k);
  else
    job.kernels = o.kernels;
  job.layout = parse_layout_flag(o.layout);
  job.shapes.clear();
  std::map<std::string, std::string> categories;  // shape -> category, from the suite file
  if (!o.suite.empty())
    for (auto& s : load_bench_suite(o.suite)) {
      job.shapes.push_back(s.shape);
      categories[s.shape.str()] = s.category;
    }
  for (auto& s : o.shapes) job.shapes.push_back(parse_shape(s));
  if (o.shapes.empty() && o.suite.empty())
    for (auto* s : kDefaultShapes) job.shapes.push_back(parse_shape(s));

  if (!o.report.empty()) check_report_path(o.report);
  // A throwaway store unless one is given: the bench measures afresh every time.
  namespace fs = std::filesystem;
  const bool throwaway = o.db.empty();
  const fs::path db_path =
      throwaway ? fs::temp_directory_path() /
                      fmt::format("occtune-bench-{}-{}.db", getpid(),
                                  std::chrono::steady_clock::now().time_since_epoch().count())
                : fs::path(o.db);
  const BackendOptions backend_options =
      resolve_backend_options(resolve_device(o.device, job.device),
                              !o.no_isolation, 0, job.candidate_timeout_s);
  std::optional<db::Store> store;
  store.emplace(db::Store::open(db_path.string()));
  struct Cleanup {
    bool on;
    fs::path path;
    std::optional<db::Store>* store;
    ~Cleanup() {
      if (!on) return;
      store->reset();
      std::error_code ec;
      for (auto suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix, ec);
    }
  } cleanup{throwaway, db_path, &store};

  auto backend = make_backend(backend_options);
  const DeviceInfo& device = backend->device();
  TuneRequest request;
  request.kernels = job.kernels;
  request.shapes = job.shapes;
  request.layout = job.layout;
  request.policy = job.policy;
  request.search = job.search;
  request.force = true;
  request.reference_after = true;
  request.reference_clock_mhz = backend->throttle_reference_clock_mhz();
  request.argv = ctx.argv;
  request.tool_version = OCCTUNE_VERSION;
  request.build_id = std::string(kernels::kernel_build_id());

  TuneEvents events;
  if (!o.quiet)
    events.on_shape = [](const ShapeResult& r) {
      const ShapeBest b = best_of(r);
      std::cerr << fmt::format("occtune bench: {} done: {} {:.3f}x cuBLAS\n", r.shape.str(),
                               b.kernel ? b.kernel->kernel : "no result", ratio(r, b.m));
    };
  g_interrupted = false;
  auto previous = std::signal(SIGINT, on_bench_sigint);
  TuneOutcome outcome = run_tune(*backend, *store, request, events, g_interrupted);
  if (o.kernels.empty()) {
    // The default families ran on every shape; each shape family runs on its own shapes and
    // joins their results.
    for (const ShapeFamily& family : kShapeFamilies) {
      TuneRequest more_request = request;
      more_request.kernels = {family.name};
      more_request.shapes.clear();
      for (auto& shape : request.shapes)
        if (family.fits(shape, request.layout)) more_request.shapes.push_back(shape);
      job.kernels.emplace_back(family.name);
      if (more_request.shapes.empty() || outcome.interrupted || outcome.context_lost) continue;
      TuneOutcome more = run_tune(*backend, *store, more_request, TuneEvents{}, g_interrupted);
      for (auto& r : more.shapes)
        for (auto& target : outcome.shapes)
          if (target.shape.str() == r.shape.str() && !r.kernels.empty()) {
            target.kernels.push_back(std::move(r.kernels.front()));
            if (events.on_shape) events.on_shape(target);
          }
      outcome.interrupted = outcome.interrupted || more.interrupted;
      outcome.context_lost = outcome.context_lost || more.context_lost;
    }
  }

  // The headline: each winner against cuBLAS again, interleaved, then re-verified.
  std::vector<BenchRow> rows;
  if (!outcome.context_lost)
    rows = confirm_winners(*backend, outcome.shapes, categories, job.layout, job.policy,
                           g_interrupted, o.quiet);
  std::signal(SIGINT, previous);
  const BenchHeader header{device,     request.build_id, job.layout,
                           job.policy, job.kernels,      outcome.interrupted || g_interrupted};

  OutputTarget target(o.output);
  std::ostream& out = target.stream();
  if (format == Format::kCsv)
    print_bench_csv(out, header, rows);
  else if (format == Format::kJson)
    out << bench_json(header, rows).dump(2) << '\n';
  else
    print_bench_table(out, header, rows);
  // Written before the throwaway store is removed; the path goes where it cannot break JSON.
  if (!o.report.empty() && !outcome.shapes.empty()) {
    const std::string path = write_report(*store, device.uuid, o.report);
    (format == Format::kTable ? out : std::cerr) << "report: " << path << '\n';
  }
  target.commit();
  if (outcome.context_lost)
    fail(ExitCode::kRuntime,
         "a candidate left the CUDA context unusable; the bench stopped. "
         "Rerun without --no-isolation");
  if (header.interrupted) return int(ExitCode::kInterrupted);
  std::string failed;
  for (auto& row : rows)
    if (row.failed()) failed += (failed.empty() ? "" : ", ") + row.result->shape.str();
  if (!failed.empty())
    fail(ExitCode::kRegression,
         fmt::format("the winner of {} failed when re-measured or re-verified after its timed "
                     "launches (see the table); it is not a valid result",
                     failed));
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Context& ctx, Action& action) {
  auto* cmd = app.add_subcommand(
      "bench", "Tune the kernel families on a list of shapes and compare the best with cuBLAS");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("--shape", o->shapes,
                  "MxNxK (repeatable); default: 12 shapes from 1024^3 to 8192^3, skinny, small "
                  "K, long K and odd sizes");
  cmd->add_option("--suite", o->suite,
                  "file of shapes, one `MxNxK [category]` per line (e.g. configs/bench/suite.txt); "
                  "--shape adds to it");
  cmd->add_option("--kernel", o->kernels,
                  "kernel family (repeatable); default: coarsened, regblocked, pipelined, splitk, "
                  "streamk, plus skinny on shapes with M or N <= 16 and repacked on shapes whose K or a "
                  "leading dimension is not a multiple of 4");
  cmd->add_option("--layout", o->layout,
                  "operand layout nn|nt|tn|tt (op(A), op(B); t = stored transposed; default nn)");
  add_config_option(*cmd, o->config,
                    "its [measure] and [search] settings are used; default: the built-in "
                    "configs/default.toml");
  add_device_option(*cmd, o->device, "GPU index or UUID (default 0)");
  // The bench measures afresh: OCCTUNE_DB, the user's cache, is deliberately not its default.
  cmd->add_option("--db", o->db,
                  "keep the measurements in this database (default: a temporary one, removed "
                  "afterwards; OCCTUNE_DB is not used)");
  add_format_option(*cmd, o->format);
  cmd->add_option("--output", o->output, "write the table, JSON or CSV to this file instead of stdout");
  cmd->add_option("--report", o->report,
                  "also write the HTML report of the bench's results here and print its path");
  cmd->add_flag("--quiet", o->quiet, "no progress on stderr");
  cmd->add_flag("--no-isolation", o->no_isolation,
                "measure in this process instead of a worker (debugging)");
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return bench_command(*o, ctx); }; });
}

}  // namespace occtune::cli
