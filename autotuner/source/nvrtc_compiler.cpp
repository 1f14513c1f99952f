// NVRTC compilation of one program (nvrtc_compiler.hpp).
//
// Register counts come from ptxas's report in the program log (--ptxas-options=-v), not from
// the CUBIN: the report is ptxas's documented verbose output, names each entry function by the
// same mangled name nvrtcGetLoweredName returns, also gives barriers, static shared memory and
// spills, and is the same report the build-time kernel manifest reads for the built-in
// kernels (docs/architecture.md, "Build-time manifest"), so a source kernel and a built-in one
// are annotated from the same numbers. The CUBIN keeps the register count in the top byte of
// its .text section's sh_info, which NVIDIA does not document.
#include "autotuner/source/nvrtc_compiler.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <regex>

#include "autotuner/core/error.hpp"
#include "autotuner/source/nvrtc_library.hpp"

namespace occtune::source {
namespace {

std::string program_log(const NvrtcApi& api, nvrtcProgram program) {
  std::size_t size = 0;
  if (api.program_log_size(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (api.program_log(program, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

CompiledProgram failed(std::string why, double seconds) {
  CompiledProgram out;
  out.status = CompileStatus::kCompileFailed;
  out.log_head = std::move(why);
  out.compile_seconds = seconds;
  return out;
}

}  // namespace

std::string_view to_string(CompileStatus status) {
  return status == CompileStatus::kOk ? "ok" : "compile_failed";
}

std::vector<std::string> nvrtc_options(const CompileRequest& request) {
  std::vector<std::string> out{"--gpu-architecture=" + request.arch, "--ptxas-options=-v"};
  out.insert(out.end(), request.options.begin(), request.options.end());
  return out;
}

std::string log_head(std::string_view log, int max_lines) {
  std::string out;
  int lines = 0;
  std::size_t start = 0;
  while (start < log.size() && lines < max_lines && out.size() < 4000) {
    std::size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    out.append(log.substr(start, end - start)).push_back('\n');
    start = end + 1;
    ++lines;
  }
  if (out.size() > 4000) out.resize(4000);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool parse_ptxas_report(std::string_view log, std::string_view lowered_name, KernelResources& out) {
  static const std::regex compiling(R"(Compiling entry function '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::string entry, props;  // the function the following lines are about
  bool found = false;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    const std::string line(log.substr(start, end - start));
    start = end + 1;
    std::smatch m;
    if (std::regex_search(line, m, compiling)) {
      entry = m[1].str();
    } else if (std::regex_search(line, m, properties)) {
      props = m[1].str();
    } else if (std::regex_search(line, m, frame)) {
      if (props == lowered_name) {
        out.stack_bytes = std::stoi(m[1].str());
        out.spill_stores = std::stoi(m[2].str());
        out.spill_loads = std::stoi(m[3].str());
      }
    } else if (std::regex_search(line, m, used) && entry == lowered_name) {
      out.registers = std::stoi(m[1].str());
      found = true;
      if (std::regex_search(line, m, barriers)) out.barriers = std::stoi(m[1].str());
      if (std::regex_search(line, m, smem)) out.static_smem = std::stoi(m[1].str());
    }
  }
  return found;
}

CompiledProgram compile_program(const CompileRequest& request) {
  const NvrtcApi& api = nvrtc();
  auto check = [&](nvrtcResult r, const char* what) {
    if (r != NVRTC_SUCCESS)
      fail(ExitCode::kRuntime, fmt::format("NVRTC {} failed for {}: {}", what, request.source_name,
                                           api.error_string(r)));
  };
  nvrtcProgram program = nullptr;
  check(api.create_program(&program, request.source_text.c_str(), request.source_name.c_str(), 0,
                           nullptr, nullptr),
        "nvrtcCreateProgram");
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(
      &program, [](nvrtcProgram* p) { nvrtc().destroy_program(p); });
  for (auto& name : request.name_expressions)
    check(api.add_name_expression(program, name.c_str()), "nvrtcAddNameExpression");

  const std::vector<std::string> options = nvrtc_options(request);
  std::vector<const char*> argv;
  for (auto& o : options) argv.push_back(o.c_str());
  const auto t0 = std::chrono::steady_clock::now();
  const nvrtcResult result =
      api.compile_program(program, static_cast<int>(argv.size()), argv.data());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string log = program_log(api, program);
  if (result == NVRTC_ERROR_OUT_OF_MEMORY) check(result, "nvrtcCompileProgram");
  if (result != NVRTC_SUCCESS)
    return failed(log.empty() ? std::string(api.error_string(result)) : log_head(log), seconds);

  CompiledProgram out;
  out.compile_seconds = seconds;
  for (auto& name : request.name_expressions) {
    const char* lowered = nullptr;
    // A name expression that names no kernel compiles, but has no lowered name.
    if (api.lowered_name(program, name.c_str(), &lowered) != NVRTC_SUCCESS || !lowered)
      return failed(fmt::format("'{}' names no __global__ function of {}; check the kernel "
                                "name or name expression",
                                name, request.source_name),
                    seconds);
    KernelResources k;
    k.name_expression = name;
    k.lowered_name = lowered;
    if (!parse_ptxas_report(log, k.lowered_name, k))
      return failed(fmt::format("ptxas reported no register count for {} ({}); the log was: {}",
                                name, k.lowered_name, log_head(log, 8)),
                    seconds);
    out.kernels.push_back(std::move(k));
  }
  std::size_t size = 0;
  check(api.cubin_size(program, &size), "nvrtcGetCUBINSize");
  if (size == 0)
    return failed(fmt::format("NVRTC produced no CUBIN for {} (an option asked for another kind "
                              "of output?)",
                              request.source_name),
                  seconds);
  out.cubin.resize(size);
  check(api.cubin(program, out.cubin.data()), "nvrtcGetCUBIN");
  return out;
}

}  // namespace occtune::source
