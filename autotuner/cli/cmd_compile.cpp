// occtune compile: validates a job's [[kernel]] source kernels, enumerates their configurations,
// compiles them with NVRTC for one architecture (from --arch, a device profile or a GPU; no GPU
// needed) through the compiled-kernel cache, and prints registers, compile time and cache hits,
// with the occupancy twin's annotation when a profile or device gives the limits.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/output_target.hpp"
#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/cuda/device_probe.hpp"
#include "autotuner/output/csv.hpp"
#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"
#include "autotuner/source/nvrtc_library.hpp"
#include "autotuner/source/space_compile.hpp"

namespace occtune::cli {
namespace {

using source::CompiledConfiguration;
using source::CompileStatus;
using source::SpaceCompile;

struct CompileOptions {
  std::string job;
  std::vector<std::string> kernels;
  std::string arch;
  std::string profile;
  std::string device;
  std::string where;
  int jobs = 0;
  std::string cache_dir;
  bool no_cache = false;
  std::string format = "table";
  std::string output;
};

std::string grid_text(const std::array<std::int64_t, 3>& v, std::size_t dims) {
  std::string out = std::to_string(v[0]);
  for (std::size_t i = 1; i < dims; ++i) out += "x" + std::to_string(v[i]);
  return out;
}

std::string cache_text(const source::CompileOutcome& o, bool cached) {
  return !cached ? "off" : o.cache_hit ? "hit" : "miss";
}

void print_table(std::ostream& out, const SpaceCompile& s, const source::SourceKernel& k,
                 bool device, bool cached) {
  out << fmt::format("{} ({}) for {}\n", s.kernel, k.source.string(), s.arch);
  output::TextTable t({"config", "status", "regs", "static smem", "smem", "block", "grid",
                       "blocks/SM", "occupancy", "limiter", "compile s", "cache"});
  for (auto& c : s.configs) {
    const auto& p = c.compile.program;
    const bool ok = p.status == CompileStatus::kOk;
    const auto& r = ok ? p.kernels.front() : source::KernelResources{};
    const bool occ = device && c.occupancy;
    t.add_row({c.config.label(), std::string(source::to_string(p.status)),
               ok ? std::to_string(r.registers) : "-", ok ? output::bytes(r.static_smem) : "-",
               output::bytes(std::size_t(c.config.launch.smem)),
               grid_text(c.config.launch.block, k.launch.block.size()),
               grid_text(c.config.launch.grid, k.launch.grid.size()),
               occ ? std::to_string(c.occupancy->active_blocks_per_sm) : "-",
               occ ? output::percent(c.theoretical_occupancy) : "-",
               occ ? c.occupancy->limiter : "-", output::fixed(p.compile_seconds, 3),
               cache_text(c.compile, cached)});
  }
  t.print(out);
  if (s.reference) {
    const auto& p = s.reference->program;
    out << fmt::format("reference {}: {}{}\n", k.reference.kernel, source::to_string(p.status),
                       p.status == CompileStatus::kOk
                           ? fmt::format(", {} registers", p.kernels.front().registers)
                           : "");
  }
}

nlohmann::json to_json(const CompiledConfiguration& c, bool cached) {
  const auto& p = c.compile.program;
  nlohmann::json params = nlohmann::json::object();
  for (auto& [name, value] : c.config.params) params[name] = value;
  nlohmann::json j = {
      {"config", c.config.label()},
      {"params", params},
      {"name_expression", c.config.name_expression},
      {"defines", c.config.defines},
      {"block", c.config.launch.block},
      {"grid", c.config.launch.grid},
      {"dynamic_smem", c.config.launch.smem},
      {"status", source::to_string(p.status)},
      {"compile_seconds", p.compile_seconds},
      {"wall_seconds", c.compile.wall_seconds},
      {"cache", cache_text(c.compile, cached)},
      {"cache_key", c.compile.key},
  };
  if (p.status == CompileStatus::kOk) {
    const auto& r = p.kernels.front();
    j["lowered_name"] = r.lowered_name;
    j["registers"] = r.registers;
    j["static_smem"] = r.static_smem;
    j["barriers"] = r.barriers;
    j["spill_stores"] = r.spill_stores;
    j["spill_loads"] = r.spill_loads;
  } else {
    j["log"] = p.log_head;
  }
  if (c.occupancy) {
    j["active_blocks_per_sm"] = c.occupancy->active_blocks_per_sm;
    j["occupancy"] = c.theoretical_occupancy;
    j["limiter"] = c.occupancy->limiter;
  }
  return j;
}

void print_csv(std::ostream& out, const SpaceCompile& s, bool cached) {
  for (auto& c : s.configs) {
    const auto& p = c.compile.program;
    const bool ok = p.status == CompileStatus::kOk;
    const auto& b = c.config.launch.block;
    const auto& g = c.config.launch.grid;
    output::write_csv_record(
        out, {std::to_string(output::kJsonSchemaVersion), s.kernel, s.arch, c.config.label(),
              std::string(source::to_string(p.status)),
              ok ? std::to_string(p.kernels.front().registers) : "",
              ok ? std::to_string(p.kernels.front().static_smem) : "",
              std::to_string(c.config.launch.smem), fmt::format("{}x{}x{}", b[0], b[1], b[2]),
              fmt::format("{}x{}x{}", g[0], g[1], g[2]),
              c.occupancy ? std::to_string(c.occupancy->active_blocks_per_sm) : "",
              c.occupancy ? fmt::format("{}", c.theoretical_occupancy) : "",
              c.occupancy ? c.occupancy->limiter : "", fmt::format("{}", p.compile_seconds),
              cache_text(c.compile, cached)});
  }
}

int run_compile(const CompileOptions& o) {
  const Format format = resolve_format(o.format);
  // --arch and --profile win over OCCTUNE_DEVICE, as in plan: an exported device should not
  // break offline compiling.
  const std::string device_selector =
      o.arch.empty() && o.profile.empty() ? resolve_device(o.device) : o.device;
  const int chosen =
      int(!o.arch.empty()) + int(!o.profile.empty()) + int(!device_selector.empty());
  if (chosen != 1)
    fail(ExitCode::kUsage,
         "compile needs exactly one of --arch sm_XY, --profile NAME|FILE "
         "(offline, with occupancy) or --device N (a GPU's architecture)");
  const source::SourceJob job = source::load_source_job(o.job);
  std::vector<const source::SourceKernel*> kernels;
  for (auto& k : job.kernels)
    if (o.kernels.empty() ||
        std::find(o.kernels.begin(), o.kernels.end(), k.name) != o.kernels.end())
      kernels.push_back(&k);
  for (auto& name : o.kernels) {
    if (std::none_of(job.kernels.begin(), job.kernels.end(),
                     [&](auto& k) { return k.name == name; })) {
      std::string known;
      for (auto& k : job.kernels) known += (known.empty() ? "" : ", ") + k.name;
      fail(ExitCode::kUsage, fmt::format("--kernel '{}' is not a [[kernel]] of {}; its kernels: {}",
                                         name, o.job, known));
    }
  }

  std::optional<DeviceInfo> device;
  std::string arch;
  if (!o.profile.empty()) {
    device = load_device_profile(o.profile);
  } else if (!device_selector.empty()) {
    device = cuda::select_device(device_selector);
  }
  arch = device ? device->arch() : source::normalise_arch(o.arch);

  std::optional<source::KernelCache> cache;
  if (!o.no_cache)
    cache.emplace(resolve(o.cache_dir, "OCCTUNE_KERNEL_CACHE", "",
                          source::KernelCache::default_dir().string()));
  source::SourceCompiler compiler(cache);
  // Every kernel is validated and enumerated before anything compiles.
  const auto where = o.where.empty() ? std::nullopt : std::optional<std::string>(o.where);
  std::vector<std::vector<source::Configuration>> selected;
  for (auto* k : kernels) {
    selected.push_back(source::select_configurations(*k, where));
    source::read_source(*k);  // readable now, not after another kernel compiled
  }
  std::vector<SpaceCompile> spaces;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    spaces.push_back(source::compile_space(*kernels[i], selected[i], arch, compiler, o.jobs,
                                           device ? &*device : nullptr));

  OutputTarget target(o.output);
  std::ostream& out = target.stream();
  nlohmann::json docs = nlohmann::json::array();
  if (format == Format::kCsv)
    output::write_csv_record(
        out, {"schema_version", "kernel", "arch", "config", "status", "registers", "static_smem",
              "dynamic_smem", "block", "grid", "active_blocks_per_sm", "occupancy", "limiter",
              "compile_seconds", "cache"});
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    const SpaceCompile& s = spaces[i];
    int failed = 0, hits = 0;
    double compile_sum = 0;
    for (auto& c : s.configs) {
      failed += c.compile.program.status != CompileStatus::kOk;
      hits += c.compile.cache_hit;
      if (!c.compile.cache_hit) compile_sum += c.compile.program.compile_seconds;
      if (!c.compile.cache_note.empty()) spdlog::warn("kernel cache: {}", c.compile.cache_note);
      if (c.compile.program.status != CompileStatus::kOk)
        spdlog::warn("{} {}: compile_failed: {}", s.kernel, c.config.label(),
                     source::log_head(c.compile.program.log_head, 3));
    }
    const std::string summary = fmt::format(
        "{} configurations: {} compiled, {} from the cache, {} compile_failed; {:.2f} s wall on "
        "{} threads ({:.2f} s of NVRTC time)",
        s.configs.size(), int(s.configs.size()) - hits - failed, hits, failed, s.wall_seconds,
        s.threads, compile_sum);
    if (format == Format::kTable) {
      print_table(out, s, *kernels[i], device.has_value(), cache.has_value());
      out << summary << "\n\n";
    } else if (format == Format::kCsv) {
      print_csv(out, s, cache.has_value());
    } else {
      nlohmann::json configs = nlohmann::json::array();
      for (auto& c : s.configs) configs.push_back(to_json(c, cache.has_value()));
      nlohmann::json doc = {{"kernel", s.kernel},        {"source", kernels[i]->source.string()},
                            {"configurations", configs}, {"compile_failed", failed},
                            {"cache_hits", hits},        {"wall_seconds", s.wall_seconds},
                            {"threads", s.threads}};
      if (s.reference) {
        const auto& p = s.reference->program;
        doc["reference"] = {{"kernel", kernels[i]->reference.kernel},
                            {"status", source::to_string(p.status)}};
        if (p.status != CompileStatus::kOk) doc["reference"]["log"] = p.log_head;
      }
      docs.push_back(doc);
    }
  }
  if (format == Format::kJson) {
    nlohmann::json body = {{"arch", arch},
                           {"nvrtc", source::nvrtc().version_text},
                           {"cache_dir", cache ? cache->dir().string() : ""},
                           {"nvrtc_compilations", compiler.nvrtc_compilations()},
                           {"kernels", docs}};
    if (device) body["device"] = output::to_json(*device);
    out << output::document("compile", body).dump(2) << '\n';
  } else if (format == Format::kTable) {
    out << fmt::format("NVRTC {} ran {} compilations; kernel cache: {}\n",
                       source::nvrtc().version_text, compiler.nvrtc_compilations(),
                       cache ? cache->dir().string() : "off (--no-cache)");
  }
  target.commit();

  // A source whose reference or every configuration fails to compile is bad input: the table
  // (above) shows each configuration's outcome, the error says what to fix.
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    const SpaceCompile& s = spaces[i];
    if (s.reference && s.reference->program.status != CompileStatus::kOk)
      fail(ExitCode::kUsage, fmt::format("the reference kernel '{}' of '{}' does not compile for "
                                         "{}: {}",
                                         kernels[i]->reference.kernel, s.kernel, s.arch,
                                         source::log_head(s.reference->program.log_head, 3)));
    if (std::none_of(s.configs.begin(), s.configs.end(),
                     [](auto& c) { return c.compile.program.status == CompileStatus::kOk; }))
      fail(ExitCode::kUsage,
           fmt::format("no configuration of '{}' compiles for {}; the first "
                       "log: {}",
                       s.kernel, s.arch,
                       source::log_head(s.configs[0].compile.program.log_head, 3)));
  }
  return 0;
}

}  // namespace

void add_compile_command(CLI::App& app, Context&, Action& action) {
  auto* cmd =
      app.add_subcommand("compile",
                         "Compile a job's source kernels ([[kernel]]) with NVRTC, cached, and show "
                         "registers, compile time and, with --profile or --device, occupancy");
  auto o = std::make_shared<CompileOptions>();
  cmd->add_option("--job", o->job, "job file with [[kernel]] tables")->required();
  cmd->add_option("--kernel", o->kernels, "compile only this [[kernel]] (repeatable)");
  cmd->add_option("--arch", o->arch, "architecture to compile for, e.g. sm_90");
  cmd->add_option("--profile", o->profile,
                  "device profile (h100, a100, ... or a TOML file): its architecture and limits");
  add_device_option(*cmd, o->device, "GPU index or UUID: its architecture and limits");
  cmd->add_option("--where", o->where,
                  "only the configurations where this expression holds, e.g. \"BX == 32\"");
  cmd->add_option("--jobs", o->jobs, "compiler threads (default: one per CPU core)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--cache-dir", o->cache_dir,
                  "compiled-kernel cache (default $OCCTUNE_KERNEL_CACHE, else "
                  "$XDG_CACHE_HOME/occtune/kernels)");
  cmd->add_flag("--no-cache", o->no_cache, "compile everything, read and write no cache");
  add_format_option(*cmd, o->format);
  cmd->add_option("--output", o->output,
                  "write the table, JSON or CSV to this file instead of stdout");
  cmd->callback([&action, o] { action = [o] { return run_compile(*o); }; });
}

}  // namespace occtune::cli
