// occtune query: the cached best configuration for a kernel and shape on a device. With a UUID
// it reads only the database (no CUDA context); with an index it probes the GPU for the key.
// The exact key answers by default; --fallback walks the lookup chain (db/lookup.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/cli/job_selection.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/cli/source_jobs.hpp"
#include "autotuner/cli/user_problem.hpp"
#include "autotuner/core/device_selector.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/lookup_json.hpp"
#include "autotuner/output/problem_json.hpp"
#include "autotuner/output/text_table.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::cli {
namespace {

struct QueryOptions {
  std::string db;
  std::string device;
  std::string kernel;  // empty: the fastest configuration of any family
  std::string shape;
  std::string problem;  // a user kernel family's (--problem nx=..,ny=..)
  std::string config;   // a job file whose [[kernel]] tables (source kernels) are known
  std::string layout = "nn";
  bool explain = false;
  bool fallback = false;
  std::string format = "table";
  std::string output;
};

// The stored device a UUID selector names, by the prefix rules of `--device` everywhere.
DeviceInfo device_in_store(db::Store& store, const DeviceSelector& selector,
                           const std::string& db_path) {
  auto lower = [](std::string text) {
    for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string prefix = lower(selector.uuid_prefix);
  std::vector<std::string> uuids;
  for (const DeviceInfo& d : store.devices()) {
    if (lower(d.uuid).rfind(prefix, 0) == 0 &&
        std::find(uuids.begin(), uuids.end(), d.uuid) == uuids.end())
      uuids.push_back(d.uuid);
  }
  if (uuids.empty())
    fail(ExitCode::kNotFound, fmt::format("device {} has no entries in {}; run `occtune tune` "
                                          "on it first",
                                          selector.text, db_path));
  if (uuids.size() > 1) {
    std::string names;
    for (auto& u : uuids) names += (names.empty() ? "" : ", ") + u;
    fail(ExitCode::kUsage, fmt::format("device selector '{}' matches {} devices in {} ({}); give "
                                       "more of the UUID",
                                       selector.text, uuids.size(), db_path, names));
  }
  return *store.device_by_uuid(uuids.front());
}

std::string describe_difference(const db::CacheKey& want, const db::CacheKey& have) {
  std::vector<std::string> diffs;
  if (have.device_uuid != want.device_uuid) diffs.push_back("device " + have.device_uuid);
  if (have.build_id != want.build_id)
    diffs.push_back("kernel build " + have.build_id + " (this binary: " + want.build_id + ")");
  if (have.driver_version != want.driver_version)
    diffs.push_back(fmt::format("driver {} (now {})", have.driver_version, want.driver_version));
  if (have.runtime_version != want.runtime_version)
    diffs.push_back(fmt::format("runtime {} (now {})", have.runtime_version, want.runtime_version));
  if (have.device_name != want.device_name) diffs.push_back("device model " + have.device_name);
  std::string out;
  for (auto& d : diffs) out += (out.empty() ? "" : ", ") + d;
  return out;
}

// The family of a measured answer (a query for any kernel is answered by one family).
std::string best_kernel(const db::LookupResult& result) { return result.entry->run.key.kernel; }

void print_explanation(std::ostream& out, const db::LookupResult& result, const db::CacheKey& key,
                       const DeviceInfo& device, bool fallback) {
  out << fmt::format("lookup for {} {} {} on {} ({}), build {}, driver {}, runtime {}{}:\n",
                     key.kernel.empty() ? "any kernel" : key.kernel,
                     problem_text(key.kernel, key.shape), key.layout,
                     device.uuid, device.name, key.build_id,
                           device.driver_version, device.runtime_version,
                           fallback ? ", falling back along the chain" : ", exact key only");
  int number = 1;
  for (auto& s : result.steps) {
    std::string state(db::to_string(s.state));
    if (s.state == db::StepReport::State::kNotTried) state = "not tried";
    std::string name(db::to_string(s.step));
    for (char& c : name)
      if (c == '_') c = ' ';
    out << fmt::format("  {}. {}: {}", number++, name, state);
    if (!s.detail.empty() && s.state != db::StepReport::State::kNotTried)
      out << " - " << s.detail;
    out << '\n';
  }
  if (!fallback && !result.hit()) {
    for (auto& s : result.steps)
      if (s.step != db::LookupStep::kExact && s.state == db::StepReport::State::kHit) {
        out << "  pass --fallback to accept the first step that hit\n";
        break;
      }
  }
}

// One record: the answer and which step of the chain gave it; timing fields are empty for the
// heuristic (nothing was measured).
void print_query_csv(std::ostream& out, const db::LookupResult& result, const std::string& kernel,
                     Shape shape) {
  output::write_csv_record(out, {"schema_version", "kernel", "shape", "params", "threads",
                                 "dynamic_smem", "occupancy", "median_ms", "gflops",
                                 "ratio_to_cublas", "samples", "measured_at", "run_id",
                                 "answered_by", "measured", "problem"});
  auto g = [](double v) { return fmt::format("{:.9g}", v); };
  const std::string version = std::to_string(output::kJsonSchemaVersion);
  const std::string step = result.answered_by ? std::string(db::to_string(*result.answered_by)) : "";
  if (result.heuristic) {
    const Candidate& c = result.heuristic->candidate;
    output::write_csv_record(out, {version, kernel, shape.str(), c.variant ? c.variant->label() : "",
                                   std::to_string(c.threads), std::to_string(c.dynamic_smem),
                                   g(c.occupancy), "", "", "", "", "", "", step, "0",
                                   problem_text(kernel, shape)});
    return;
  }
  const db::BestEntry& best = *result.entry;
  const auto& b = best.best;
  output::write_csv_record(
      out, {version, kernel, shape.str(), b.params, std::to_string(b.threads),
            std::to_string(b.dynamic_smem), g(b.occupancy), g(b.summary.median), g(b.gflops),
            best.run.cublas.median > 0 ? g(best.ratio_to_cublas()) : "",
            std::to_string(b.summary.count), best.run.finished_at, std::to_string(best.run.id),
            step, "1", problem_text(best.run.key.kernel, shape)});
}

int run_query(const QueryOptions& o) {
  const Format format = resolve_format(o.format);
  std::vector<std::string> kernel_flags;
  if (!o.kernel.empty()) kernel_flags.push_back(o.kernel);
  std::vector<std::string> problems;
  if (!o.problem.empty()) problems.push_back(o.problem);
  const std::vector<std::string> shapes =
      o.shape.empty() ? std::vector<std::string>{} : std::vector{o.shape};
  if (!use_job_source_kernels(o.config, kernel_flags, problems, shapes).empty())
    kernel_flags.resize(1);  // query answers for one family
  const auto shape_flags = user_problem_shapes(kernel_flags, problems, shapes);
  if (shape_flags.empty()) fail(ExitCode::kUsage, "query needs --shape MxNxK");
  const Shape shape = parse_shape(shape_flags.front());
  const std::string kernel = kernel_flags.empty() ? "" : kernel_flags.front();
  const Layout layout = parse_layout_flag(o.layout);
  if (!o.kernel.empty()) validate_kernel_name(o.kernel);
  const std::string kernel_label = o.kernel.empty() ? "any kernel" : o.kernel;
  const std::string selector = resolve_device(o.device);
  // The selector is checked before any file is opened: a malformed one is a usage error
  // whether or not the database exists.
  const DeviceSelector parsed = parse_device_selector(selector);
  const std::string db_path = resolve_db(o.db);
  auto store = db::Store::open(db_path, db::OpenMode::kReadOnly);

  DeviceInfo device;
  if (parsed.kind == DeviceSelector::Kind::kUuid) {
    // A UUID (or a unique prefix, any case) names a device of the store: no GPU is needed.
    device = device_in_store(store, parsed, db_path);
  } else {
    device = cuda::select_device(selector);
  }
  const auto key =
      db::CacheKey::make(device, kernel, family_build_id(kernel, kernels::kernel_build_id()), shape,
                         "f32", layout_name(layout));
  const std::string layout_flag =
      layout == Layout::kNN ? "" : std::string(" --layout ") + layout_name(layout);
  db::LookupOptions options;
  options.fallback = o.fallback;
  options.probe_all = o.explain;  // show what every step would find, not only the first
  options.device = &device;
  const db::LookupResult result = db::lookup(store, key, options);
  OutputTarget target(o.output);
  std::ostream& out = target.stream();
  if (o.explain && format == Format::kTable) print_explanation(out, result, key, device, o.fallback);
  if (!result.hit()) {
    target.commit();  // the explanation, if asked for, says why
    std::string why;
    for (auto& near : store.near_keys(key))
      why += "\n  an entry exists with a different " + describe_difference(key, near);
    fail(ExitCode::kNotFound,
         fmt::format(
             "no cached configuration for {} {} (layout {}) on {} ({}) with kernel "
             "build {}; run `occtune tune {}{}{}` first{}{}",
             kernel_label, problems.empty() ? shape.str() : problems.front(), key.layout,
             device.uuid, device.name, key.build_id,
             o.kernel.empty() ? "" : "--kernel " + o.kernel + " ",
             problems.empty() ? "--shape " + shape.str() : "--problem " + problems.front(),
             layout_flag,
             o.fallback ? ""
                        : ", or pass --fallback to accept the same model, "
                          "architecture, nearest shape or the occupancy heuristic",
             why));
  }
  if (format == Format::kCsv) {
    print_query_csv(out, result, o.kernel, shape);
    target.commit();
    return 0;
  }
  if (format == Format::kJson) {
    // Measured answers keep the document `query` always printed; the chain fields sit beside it.
    nlohmann::json body = result.entry ? output::to_json(*result.entry) : nlohmann::json::object();
    nlohmann::json chain = output::to_json(result);
    chain.erase("entry");
    if (!o.explain) chain.erase("chain");
    body.update(chain);
    output::add_problem(body, result.entry ? best_kernel(result) : kernel, shape);
    out << output::document("query", body).dump(2) << '\n';
    target.commit();
    return 0;
  }
  // A user family's problem is written by its dimensions (nx=..,ny=..), a GEMM's as MxNxK.
  const std::string answer_kernel = result.entry ? best_kernel(result) : kernel;
  const char* problem_head = find_user_family(answer_kernel) ? "problem" : "shape";
  if (result.heuristic) {
    const Candidate& c = result.heuristic->candidate;
    output::TextTable t({"kernel", problem_head, "layout", "config", "threads", "smem",
                         "occupancy", "limiter", "waves", "answered by"});
    t.add_row({c.variant ? c.variant->family : kernel_label, problem_text(answer_kernel, shape),
               key.layout,
               c.variant ? c.variant->label() : "", std::to_string(c.threads),
               output::bytes(c.dynamic_smem), output::percent(c.occupancy), c.limiter,
               fmt::format("{:.2f}", c.waves), "heuristic (not measured)"});
    t.print(out);
    out << fmt::format("{} on {} ({}); nothing was measured for this key\n",
                             result.heuristic->method, device.uuid, device.name);
    target.commit();
    return 0;
  }
  const db::BestEntry& best = *result.entry;
  auto& b = best.best;
  output::TextTable t({"kernel", problem_head, "layout", "config", "threads", "smem",
                       "occupancy", "median ms", "GFLOP/s", "vs cuBLAS", "samples", "measured at",
                       "run"});
  t.add_row({best.run.key.kernel, problem_text(best.run.key.kernel, best.run.key.shape),
             key.layout, b.params,
             std::to_string(b.threads),
             output::bytes(size_t(b.dynamic_smem)), output::percent(b.occupancy),
             output::fixed(b.summary.median, 4), fmt::format("{:.0f}", b.gflops),
             fmt::format("{:.2f}x", best.ratio_to_cublas()), std::to_string(b.summary.count),
             best.run.finished_at, std::to_string(best.run.id)});
  t.print(out);
  const db::CacheKey& from = best.run.key;
  if (*result.answered_by == db::LookupStep::kNearestShape)
    out << fmt::format("answered by nearest_shape: measured at {} (distance {:.3f} from {})\n",
                       problem_text(from.kernel, from.shape), result.shape_distance,
                       problem_text(from.kernel, shape));
  else if (*result.answered_by != db::LookupStep::kExact)
    out << fmt::format("answered by {}: measured on {} ({}), driver {}, runtime {}\n",
                             db::to_string(*result.answered_by), from.device_uuid,
                             from.device_name, from.driver_version, from.runtime_version);
  out << fmt::format("device {} ({}), driver {}, runtime {}, kernel build {}\n",
                           device.uuid, device.name, device.driver_version,
                           device.runtime_version, key.build_id);
  target.commit();
  return 0;
}

}  // namespace

void add_query_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("query", "Show the cached best configuration");
  auto o = std::make_shared<QueryOptions>();
  add_db_option(*cmd, o->db);
  add_device_option(*cmd, o->device, "GPU index (probes the GPU) or UUID (reads only the database)");
  cmd->add_option("--kernel", o->kernel,
                  "kernel family (default: the fastest configuration of any family)");
  cmd->add_option("--shape", o->shape, "MxNxK");
  cmd->add_option("--problem", o->problem, "a user kernel family's problem, e.g. nx=4096,ny=4096");
  cmd->add_option("--config", o->config,
                  "a job file whose [[kernel]] tables (source kernels) are queried (env "
                  "OCCTUNE_CONFIG)");
  cmd->add_option("--layout", o->layout,
                  "operand layout nn|nt|tn|tt (op(A), op(B); t = stored transposed; default nn)");
  cmd->add_flag("--explain", o->explain,
                "show each step of the lookup chain (exact, same model, same architecture, "
                "nearest shape, heuristic): hit or miss, and why");
  cmd->add_flag("--fallback", o->fallback,
                "accept the first step of the chain that answers instead of the exact key only");
  add_format_option(*cmd, o->format);
  cmd->add_option("--output", o->output, "write the table, JSON or CSV to this file instead of stdout");
  cmd->callback([&action, o] { action = [o] { return run_query(*o); }; });
}

}  // namespace occtune::cli
