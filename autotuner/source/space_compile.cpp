// Compiles and annotates a source kernel's space (space_compile.hpp).
#include "autotuner/source/space_compile.hpp"

#include <fmt/format.h>

#include <chrono>
#include <regex>
#include <thread>

#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"

namespace occtune::source {

std::string normalise_arch(const std::string& text) {
  // sm_90a / sm_100f: the architecture-specific and family targets NVRTC also compiles for.
  static const std::regex sm("(?:sm_)?([1-9][0-9]{1,2}[af]?)");
  static const std::regex dotted("([1-9][0-9]?)\\.([0-9])");
  std::smatch m;
  if (std::regex_match(text, m, sm)) return "sm_" + m[1].str();
  if (std::regex_match(text, m, dotted)) return "sm_" + m[1].str() + m[2].str();
  fail(ExitCode::kUsage, fmt::format("'{}' is not a GPU architecture; write it as sm_90 (or 90, "
                                     "9.0; sm_90a for the architecture-specific target)",
                                     text));
}

std::vector<Configuration> select_configurations(const SourceKernel& kernel,
                                                 const std::optional<std::string>& where) {
  std::vector<Configuration> configs = enumerate_configurations(kernel);
  if (where) {
    std::set<std::string> names;
    for (auto& [dim, value] : kernel.problem) names.insert(dim);
    for (auto& p : kernel.parameters) names.insert(p.name);
    Expr filter = Expr::parse(*where, "--where");
    filter.check_names(names);
    std::vector<Configuration> kept;
    Bindings values = kernel.problem_bindings();
    for (auto& c : configs) {
      for (auto& [name, value] : c.params) values[name] = value;
      if (filter.eval(values) != 0) kept.push_back(c);
    }
    if (kept.empty())
      fail(ExitCode::kUsage, fmt::format("--where '{}' leaves none of the {} configurations of "
                                         "kernel '{}'",
                                         *where, configs.size(), kernel.name));
    configs = std::move(kept);
  }
  return configs;
}

SpaceCompile compile_space(const SourceKernel& kernel, const std::vector<Configuration>& configs,
                           const std::string& arch, SourceCompiler& compiler, int threads,
                           const DeviceInfo* device) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string source = read_source(kernel);
  std::vector<CompileRequest> requests;
  for (auto& c : configs) requests.push_back(configuration_request(kernel, source, c, arch));
  const bool has_reference = !kernel.reference.kernel.empty();
  if (has_reference) requests.push_back(reference_request(kernel, source, arch));

  SpaceCompile out;
  out.kernel = kernel.name;
  out.arch = arch;
  out.threads = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<CompileOutcome> outcomes = compiler.compile_all(requests, out.threads);
  if (has_reference) {
    out.reference = std::move(outcomes.back());
    outcomes.pop_back();
  }
  for (std::size_t i = 0; i < configs.size(); ++i) {
    CompiledConfiguration cc{configs[i], std::move(outcomes[i]), std::nullopt, 0};
    const CompiledProgram& p = cc.compile.program;
    if (device && p.status == CompileStatus::kOk) {
      const KernelResources& k = p.kernels.front();
      const LaunchGeometry& g = cc.config.launch;
      const int block_threads = static_cast<int>(g.threads());
      // A block beyond the device's limit gets 0 blocks, limited by warps, as in `plan`.
      cc.occupancy = OfflineOccupancy::compute(*device, k.registers, k.static_smem,
                                               device->max_threads_per_block, k.barriers,
                                               block_threads, std::size_t(g.smem));
      const int warps = (block_threads + device->warp_size - 1) / device->warp_size;
      const int max_warps = device->max_threads_per_sm / device->warp_size;
      cc.theoretical_occupancy =
          max_warps > 0 ? double(cc.occupancy->active_blocks_per_sm * warps) / max_warps : 0;
    }
    out.configs.push_back(std::move(cc));
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace occtune::source
