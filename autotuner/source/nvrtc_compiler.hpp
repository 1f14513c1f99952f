// Compiles one CUDA program with NVRTC to a CUBIN for one architecture and reads each kernel's
// resources (registers, static shared memory, barriers, spills) from ptxas's report. A program
// that does not compile is an outcome (compile_failed, with the first lines of the log), never
// an exception: one bad configuration must not stop the others.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace occtune::source {

struct CompileRequest {
  std::string source_text;
  std::string source_name;                    // shown in NVRTC's messages (the file's path)
  std::vector<std::string> name_expressions;  // kernels to lower (nvrtcAddNameExpression)
  std::vector<std::string> options;           // -I, -D, the user's options; not the architecture
  std::string arch;                           // "sm_90"
};

// What ptxas reported for one entry function.
struct KernelResources {
  std::string name_expression;
  std::string lowered_name;  // the mangled symbol to look up in the CUBIN
  int registers = 0;
  int barriers = 0;
  int static_smem = 0;  // bytes
  int stack_bytes = 0;
  int spill_stores = 0;
  int spill_loads = 0;
};

enum class CompileStatus { kOk, kCompileFailed };
std::string_view to_string(CompileStatus status);  // "ok", "compile_failed"

struct CompiledProgram {
  CompileStatus status = CompileStatus::kOk;
  std::string log_head;                  // compile_failed: the first lines of NVRTC's log
  std::string cubin;                     // ok: the CUBIN's bytes
  std::vector<KernelResources> kernels;  // ok: one per name expression, in request order
  double compile_seconds = 0;            // NVRTC's time for this program
};

// The options occtune adds to every compilation (architecture, ptxas report), for the cache key.
std::vector<std::string> nvrtc_options(const CompileRequest& request);

// Throws Error(kRuntime) only when NVRTC itself cannot be loaded or fails outside compilation
// (out of memory); everything the source can cause is a compile_failed outcome.
CompiledProgram compile_program(const CompileRequest& request);

// The resources ptxas reported for `lowered_name` in an NVRTC log compiled with
// --ptxas-options=-v; false when the log has no "Used N registers" line for it.
bool parse_ptxas_report(std::string_view log, std::string_view lowered_name, KernelResources& out);

// The first `max_lines` lines of a log (at most 4000 bytes), for compile_failed records.
std::string log_head(std::string_view log, int max_lines = 20);

}  // namespace occtune::source
