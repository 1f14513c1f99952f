// occtune query: the cached best configuration for a kernel and shape on a device. With a UUID
// it reads only the database (no CUDA context); with an index it probes the GPU for the key.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"

namespace occtune::cli {
namespace {

struct QueryOptions {
  std::string db;
  std::string device;
  std::string kernel = "tiled_dynamic";
  std::string shape;
  bool explain = false;
  std::string format = "table";
};

bool looks_like_uuid(const std::string& s) { return s.rfind("GPU-", 0) == 0; }

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

int run_query(const QueryOptions& o) {
  const Format format = parse_format(o.format, false);
  if (o.shape.empty()) fail(ExitCode::kUsage, "query needs --shape MxNxK");
  const Shape shape = parse_shape(o.shape);
  validate_kernel_name(o.kernel);
  const std::string selector = resolve(o.device, "OCCTUNE_DEVICE", "", "");
  const std::string db_path = resolve(o.db, "OCCTUNE_DB", "", db::Store::default_path().string());
  auto store = db::Store::open(db_path, db::OpenMode::kReadOnly);

  DeviceInfo device;
  if (looks_like_uuid(selector)) {
    auto known = store.device_by_uuid(selector);
    if (!known)
      fail(ExitCode::kNotFound, fmt::format("device {} has no entries in {}; run `occtune tune` "
                                            "on it first", selector, db_path));
    device = *known;
  } else {
    device = cuda::select_device(selector);
  }
  const auto key = db::CacheKey::make(device, o.kernel, std::string(kernels::kernel_build_id()),
                                      shape);
  auto best = store.best(key);
  if (o.explain && format == Format::kTable) {
    std::cout << fmt::format("lookup for {} {} on {} ({}), build {}, driver {}, runtime {}:\n",
                             o.kernel, shape.str(), device.uuid, device.name, key.build_id,
                             device.driver_version, device.runtime_version);
    std::cout << "  1. exact key: " << (best ? "hit" : "miss") << '\n';
  }
  if (!best) {
    std::string why;
    for (auto& near : store.near_keys(key))
      why += "\n  an entry exists with a different " + describe_difference(key, near);
    fail(ExitCode::kNotFound,
         fmt::format("no cached configuration for {} {} on {} ({}) with kernel build {}; run "
                     "`occtune tune --kernel {} --shape {}` first{}",
                     o.kernel, shape.str(), device.uuid, device.name, key.build_id, o.kernel,
                     shape.str(), why));
  }
  if (format == Format::kJson) {
    std::cout << output::document("query", output::to_json(*best)).dump(2) << '\n';
    return 0;
  }
  auto& b = best->best;
  output::TextTable t({"kernel", "shape", "config", "threads", "smem", "occupancy", "median ms",
                       "GFLOP/s", "vs cuBLAS", "samples", "measured at", "run"});
  t.add_row({o.kernel, shape.str(), b.params, std::to_string(b.threads),
             output::bytes(size_t(b.dynamic_smem)), output::percent(b.occupancy),
             output::fixed(b.summary.median, 4), fmt::format("{:.0f}", b.gflops),
             fmt::format("{:.2f}x", best->ratio_to_cublas()), std::to_string(b.summary.count),
             best->run.finished_at, std::to_string(best->run.id)});
  t.print(std::cout);
  std::cout << fmt::format("device {} ({}), driver {}, runtime {}, kernel build {}\n",
                           device.uuid, device.name, device.driver_version,
                           device.runtime_version, key.build_id);
  return 0;
}

}  // namespace

void add_query_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("query", "Show the cached best configuration");
  auto o = std::make_shared<QueryOptions>();
  cmd->add_option("--db", o->db, "database path (env OCCTUNE_DB)");
  cmd->add_option("--device", o->device,
                  "GPU index (probes the GPU) or UUID (reads only the database)");
  cmd->add_option("--kernel", o->kernel, "kernel family (default tiled_dynamic)");
  cmd->add_option("--shape", o->shape, "MxNxK");
  cmd->add_flag("--explain", o->explain, "show how the lookup went");
  cmd->add_option("--format", o->format, "table or json");
  cmd->callback([&action, o] { action = [o] { return run_query(*o); }; });
}

}  // namespace occtune::cli
