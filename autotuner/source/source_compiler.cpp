// Requests, the cache in front of NVRTC, and the compile pool (source_compiler.hpp).
#include "autotuner/source/source_compiler.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "autotuner/core/error.hpp"
#include "autotuner/source/nvrtc_library.hpp"

namespace occtune::source {
namespace {

CompileRequest base_request(const SourceKernel& k, const std::string& source_text,
                            const std::string& arch) {
  CompileRequest r;
  r.source_text = source_text;
  r.source_name = k.source.string();
  r.arch = arch;
  r.options.push_back("-I" + k.source.parent_path().string());
  r.options.insert(r.options.end(), k.options.begin(), k.options.end());
  return r;
}

}  // namespace

std::string read_source(const SourceKernel& k) {
  std::ifstream in(k.source, std::ios::binary);
  if (!in)
    fail(ExitCode::kUsage,
         fmt::format("kernel '{}': cannot read the source {}", k.name, k.source.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

CompileRequest configuration_request(const SourceKernel& k, const std::string& source_text,
                                     const Configuration& c, const std::string& arch) {
  CompileRequest r = base_request(k, source_text, arch);
  r.options.insert(r.options.end(), c.defines.begin(), c.defines.end());
  r.name_expressions.push_back(c.name_expression);
  return r;
}

CompileRequest reference_request(const SourceKernel& k, const std::string& source_text,
                                 const std::string& arch) {
  CompileRequest r = base_request(k, source_text, arch);
  // Lets a source whose top level needs the parameters give the reference its own values.
  r.options.push_back("-DOCCTUNE_REFERENCE=1");
  if (!k.reference.kernel.empty()) r.name_expressions.push_back(k.reference.kernel);
  return r;
}

SourceCompiler::SourceCompiler(std::optional<KernelCache> cache) : cache_(std::move(cache)) {}

CompileOutcome SourceCompiler::compile(const CompileRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  CompileOutcome out;
  const std::string version = nvrtc().version_text;
  if (cache_) {
    out.key = cache_key(request,
                        quoted_includes(request.source_text, request.source_name, request.options),
                        version);
    KernelCache::Lookup hit = cache_->load(out.key, version);
    out.cache_note = hit.rejected;
    if (hit.program && hit.program->kernels.size() == request.name_expressions.size()) {
      out.program = std::move(*hit.program);
      out.cache_hit = true;
      out.wall_seconds = elapsed();
      return out;
    }
  }
  ++compilations_;
  out.program = compile_program(request);
  if (cache_) {
    if (auto error = cache_->store(out.key, version, out.program))
      out.cache_note += (out.cache_note.empty() ? "" : "; ") + *error;
  }
  out.wall_seconds = elapsed();
  return out;
}

std::vector<CompileOutcome> SourceCompiler::compile_all(const std::vector<CompileRequest>& requests,
                                                        int threads) {
  std::vector<CompileOutcome> out(requests.size());
  if (requests.empty()) return out;
  nvrtc();  // load once, up front, so a missing library is one clear error
  std::size_t workers =
      threads > 0 ? std::size_t(threads) : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, requests.size());
  // NVRTC allows concurrent compilations of distinct programs; each thread takes the next
  // request, so a slow configuration does not hold up a fixed share of the others.
  std::atomic<std::size_t> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next++) < requests.size();) {
      try {
        out[i] = compile(requests[i]);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        next = requests.size();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
  return out;
}

}  // namespace occtune::source
