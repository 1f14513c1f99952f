// make_source_family and the job-file registration (autotuner/cuda/source_family.hpp). The CUDA
// runtime here is libocctune's own: cudaLibraryLoadData loads each CUBIN into it, so the hooks
// compiled in this file (occtune/launch.cuh) answer for the real kernel (its registers too).
#include "autotuner/cuda/source_family.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "autotuner/core/error.hpp"
#include "autotuner/cuda/cuda_check.cuh"
#include "autotuner/source/configurations.hpp"
#include "autotuner/source/kernel_cache.hpp"
#include "autotuner/source/nvrtc_library.hpp"
#include "autotuner/source/space_compile.hpp"
#include "occtune/launch.cuh"

namespace occtune::cuda {
namespace {

using source::SourceKernel;

[[noreturn]] void bad(const SourceKernel& k, const std::string& what) {
  fail(ExitCode::kUsage, fmt::format("source kernel '{}': {}", k.name, what));
}

void check(cudaError_t err, const SourceKernel& k, const std::string& what) {
  if (err != cudaSuccess)
    fail(ExitCode::kRuntime,
         fmt::format("source kernel '{}': {} failed: {}", k.name, what, describe(err)));
}

source::Bindings bindings(const Dims& problem, const std::vector<Param>& params = {}) {
  source::Bindings b;
  for (const auto& [name, value] : problem.values) b[name] = value;
  for (const auto& p : params) b[p.name] = p.value;
  return b;
}

Dims job_problem(const SourceKernel& k) {
  Dims d;
  d.values = k.problem;
  return d;
}

// One kernel argument as cudaLaunchKernel reads it: a device pointer or a scalar of the
// argument's type, each in a slot of its own.
union Slot {
  void* pointer;
  std::int32_t i32;
  std::uint32_t u32;
  std::int64_t i64;
  std::uint64_t u64;
  float f32;
  double f64;
};

// A scalar argument's value at `problem`; Error(kUsage) when its type cannot hold it.
std::int64_t scalar_value(const SourceKernel& k, const source::Argument& a,
                          const source::Bindings& values, const Dims& problem) {
  const std::int64_t v = a.amount.eval(values);
  if (!source::fits(a.type, v))
    bad(k, fmt::format("scalar argument '{}' = '{}' is {} at problem {}, which a {} cannot "
                       "hold; choose a smaller problem",
                       a.name, a.amount.text(), v, problem.str(), source::to_string(a.type)));
  return v;
}

// The kernel's arguments for `problem`: buffers (inputs and outputs, in order) from `buffers`,
// scalars evaluated from the problem. `pointers` then points into `slots`.
void pack(const SourceKernel& k, const Dims& problem, const std::vector<float*>& buffers,
          std::vector<Slot>& slots, std::vector<void*>& pointers) {
  slots.assign(k.args.size(), Slot{nullptr});
  pointers.assign(k.args.size(), nullptr);
  std::size_t next_buffer = 0;
  const source::Bindings values = bindings(problem);
  for (std::size_t i = 0; i < k.args.size(); ++i) {
    const source::Argument& a = k.args[i];
    Slot& s = slots[i];
    pointers[i] = &s;
    if (a.kind != source::ArgKind::kScalar) {
      s.pointer = next_buffer < buffers.size() ? buffers[next_buffer] : nullptr;
      ++next_buffer;
      continue;
    }
    const std::int64_t v = scalar_value(k, a, values, problem);
    switch (a.type) {
      case source::ValueType::kInt32:
        s.i32 = std::int32_t(v);
        break;
      case source::ValueType::kUInt32:
        s.u32 = std::uint32_t(v);
        break;
      case source::ValueType::kInt64:
        s.i64 = v;
        break;
      case source::ValueType::kUInt64:
        s.u64 = std::uint64_t(v);
        break;
      case source::ValueType::kFloat32:
        s.f32 = float(v);
        break;
      case source::ValueType::kFloat64:
        s.f64 = double(v);
        break;
    }
  }
}

int launch_packed(const SourceKernel& k, const void* function, const Dims& problem,
                  const std::vector<float*>& buffers, const source::LaunchGeometry& g,
                  cudaStream_t stream) {
  std::vector<Slot> slots;
  std::vector<void*> pointers;
  pack(k, problem, buffers, slots, pointers);
  const dim3 grid(unsigned(g.grid[0]), unsigned(g.grid[1]), unsigned(g.grid[2]));
  const dim3 block(unsigned(g.block[0]), unsigned(g.block[1]), unsigned(g.block[2]));
  return int(cudaLaunchKernel(function, grid, block, pointers.data(), std::size_t(g.smem), stream));
}

// Code loaded into this process's runtime. Never unloaded: the engine keeps the handles it was
// given for the life of the process (a worker, or a tuning run in-process).
struct Loaded {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};

Loaded load(const SourceKernel& k, const source::CompiledProgram& p, const std::string& what) {
  Loaded l;
  check(cudaLibraryLoadData(&l.library, p.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        k, "cudaLibraryLoadData of " + what);
  check(cudaLibraryGetKernel(&l.kernel, l.library, p.kernels.front().lowered_name.c_str()), k,
        fmt::format("cudaLibraryGetKernel({}) of {}", p.kernels.front().lowered_name, what));
  return l;
}

// The shared-memory opt-in of a library kernel: cudaKernelSetAttributeForDevice is the runtime's
// call made for cudaKernel_t handles (attributes and occupancy take them as entry functions).
int set_max_dynamic_smem(const void* function, int bytes) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return int(err);
  return int(
      cudaKernelSetAttributeForDevice(reinterpret_cast<cudaKernel_t>(const_cast<void*>(function)),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes, device));
}

std::string current_arch(const SourceKernel& k) {
  int device = 0, major = 0, minor = 0;
  check(cudaGetDevice(&device), k, "cudaGetDevice");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), k,
        "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), k,
        "cudaDeviceGetAttribute");
  return fmt::format("sm_{}{}", major, minor);
}

// What a family's functions share: the job's kernel, its configurations, and (in the process
// that runs the GPU work) what compiling and loading them gave.
struct State {
  SourceKernel kernel;
  std::vector<source::Configuration> configs;
  SourceFamilyOptions options;
  std::string space_problem_names;  // problem dimensions the configurations depend on

  std::mutex mutex;
  bool compiled = false;
  CompileSummary summary;
  // Per configuration: compiled with the whole space (compile()), or alone on first use (an
  // application launching the tuned configuration compiles only that one).
  std::vector<std::optional<source::CompiledProgram>> programs;
  std::optional<source::CompiledProgram> reference;
  std::vector<std::optional<Loaded>> loaded;
  std::optional<Loaded> reference_loaded;

  std::optional<source::KernelCache> cache() const {
    if (!options.cache_dir) return std::nullopt;
    return source::KernelCache(*options.cache_dir);
  }

  std::string arch() const { return options.arch.empty() ? current_arch(kernel) : options.arch; }

  // One program through the cache, for arch(); an error names what failed.
  source::CompiledProgram compile_alone(const source::CompileRequest& request,
                                        const std::string& what) {
    source::SourceCompiler compiler(cache());
    source::CompileOutcome out = compiler.compile(request);
    if (out.program.status != source::CompileStatus::kOk)
      bad(kernel, fmt::format("{} does not compile for {}; fix the source (NVRTC's log "
                              "follows)\n{}",
                              what, request.arch, out.program.log_head));
    return std::move(out.program);
  }

  const CompileSummary& compile() {
    std::lock_guard lock(mutex);
    if (compiled) return summary;
    const std::string arch = this->arch();
    source::SourceCompiler compiler(cache());
    source::SpaceCompile space =
        source::compile_space(kernel, configs, arch, compiler, options.compile_threads, nullptr);
    if (space.reference && space.reference->program.status != source::CompileStatus::kOk)
      bad(kernel, fmt::format("the reference kernel '{}' does not compile for {}, so no "
                              "configuration can be checked; fix it (NVRTC's log follows)\n{}",
                              kernel.reference.kernel, arch, space.reference->program.log_head));
    CompileSummary s;
    s.arch = arch;
    s.wall_seconds = space.wall_seconds;
    s.nvrtc_runs = compiler.nvrtc_compilations();
    for (std::size_t i = 0; i < space.configs.size(); ++i) {
      source::CompileOutcome& c = space.configs[i].compile;
      s.cache_hits += c.cache_hit ? 1 : 0;
      const bool ok = c.program.status == source::CompileStatus::kOk;
      s.errors.push_back(ok                           ? ""
                         : c.program.log_head.empty() ? std::string("NVRTC failed without a log")
                                                      : c.program.log_head);
      ConfigResources r;
      if (ok) {
        const source::KernelResources& k = c.program.kernels.front();
        r = {k.registers, k.static_smem, k.barriers};
      }
      s.resources.push_back(r);
      if (ok && !programs[i]) programs[i] = std::move(c.program);
    }
    if (space.reference) {
      s.cache_hits += space.reference->cache_hit ? 1 : 0;
      reference = std::move(space.reference->program);
    }
    summary = std::move(s);
    compiled = true;
    return summary;
  }

  const void* function(std::size_t config) {
    std::lock_guard lock(mutex);
    const std::string what = "configuration " + configs[config].label();
    if (compiled && !summary.errors[config].empty())
      bad(kernel, fmt::format("{} did not compile, so it has no function: {}", what,
                              summary.errors[config]));
    if (!programs[config])
      programs[config] =
          compile_alone(source::configuration_request(kernel, source::read_source(kernel),
                                                      configs[config], arch()),
                        what);
    if (!loaded[config]) loaded[config] = load(kernel, *programs[config], what);
    return reinterpret_cast<const void*>(loaded[config]->kernel);
  }

  const void* reference_function() {
    std::lock_guard lock(mutex);
    const std::string what = "the reference kernel " + kernel.reference.kernel;
    if (!reference)
      reference = compile_alone(
          source::reference_request(kernel, source::read_source(kernel), arch()),
          what);
    if (!reference_loaded) reference_loaded = load(kernel, *reference, what);
    return reinterpret_cast<const void*>(reference_loaded->kernel);
  }

  source::LaunchGeometry geometry(const Dims& problem, const std::vector<Param>& params) const {
    return source::evaluate_launch(kernel.launch, bindings(problem, params),
                                   fmt::format("source kernel '{}'", kernel.name));
  }

  std::vector<Buffer> buffers(const Dims& problem) const {
    if (!space_problem_names.empty() && problem.values != kernel.problem)
      bad(kernel, fmt::format("its constraints or launch block or shared memory read the problem "
                              "({}), so its configurations are those of the job's problem {}; "
                              "tune {} with a job file whose problem table says so",
                              space_problem_names, job_problem(kernel).str(), problem.str()));
    std::vector<Buffer> out;
    const source::Bindings values = bindings(problem);
    for (const auto& a : kernel.args) {
      if (a.kind == source::ArgKind::kScalar) {
        scalar_value(kernel, a, values, problem);  // refused here, before any launch
        continue;
      }
      const std::int64_t count = a.amount.eval(values);
      if (count < 1 || count > (std::int64_t(1) << 40))
        bad(kernel, fmt::format("buffer '{}' = '{}' is {} elements at problem {}; a buffer needs "
                                "1 to 2^40",
                                a.name, a.amount.text(), count, problem.str()));
      Buffer b;
      b.name = a.name;
      b.count = std::size_t(count);
      b.role = a.kind == source::ArgKind::kInput ? Buffer::Role::kInput : Buffer::Role::kOutput;
      out.push_back(b);
    }
    return out;
  }

  // The expected outputs: the reference kernel run once on the inputs `host` holds, or the
  // expected-output file (written for the job's problem).
  void run_reference(const Dims& problem, std::vector<std::vector<float>>& host) {
    const std::vector<Buffer> specs = buffers(problem);
    if (kernel.reference.kernel.empty()) {
      read_reference_file(problem, specs, host);
      return;
    }
    const void* function = reference_function();
    std::vector<float*> device(specs.size(), nullptr);
    struct Free {
      std::vector<float*>& p;
      ~Free() {
        for (float* x : p)
          if (x) OCCTUNE_CUDA_CHECK_NOTHROW(cudaFree(x));
      }
    } release{device};
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const std::size_t bytes = specs[i].count * sizeof(float);
      check(cudaMalloc(&device[i], bytes), kernel, "cudaMalloc for the reference");
      if (specs[i].role == Buffer::Role::kInput)
        check(cudaMemcpy(device[i], host[i].data(), bytes, cudaMemcpyHostToDevice), kernel,
              "copying the reference's inputs");
      else
        check(cudaMemset(device[i], 0xff, bytes), kernel, "poisoning the reference's outputs");
    }
    const source::LaunchGeometry g =
        source::evaluate_launch(kernel.reference.launch, bindings(problem),
                                fmt::format("source kernel '{}': reference", kernel.name));
    if (g.smem > 48 * 1024)
      check(cudaError_t(set_max_dynamic_smem(function, int(g.smem))), kernel,
            "cudaKernelSetAttributeForDevice of the reference kernel");
    check(cudaError_t(launch_packed(kernel, function, problem, device, g, nullptr)), kernel,
          "launching the reference kernel " + kernel.reference.kernel);
    check(cudaDeviceSynchronize(), kernel,
          "running the reference kernel " + kernel.reference.kernel);
    for (std::size_t i = 0; i < specs.size(); ++i)
      if (specs[i].role == Buffer::Role::kOutput)
        check(cudaMemcpy(host[i].data(), device[i], specs[i].count * sizeof(float),
                         cudaMemcpyDeviceToHost),
              kernel, "copying the reference's outputs");
  }

  void read_reference_file(const Dims& problem, const std::vector<Buffer>& specs,
                           std::vector<std::vector<float>>& host) const {
    if (problem.values != kernel.problem)
      bad(kernel,
          fmt::format("its reference file {} holds the outputs of the job's problem {}, "
                      "not of {}; tune that problem, or give a reference kernel",
                      kernel.reference.file.string(), job_problem(kernel).str(), problem.str()));
    std::ifstream in(kernel.reference.file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    std::size_t at = 0;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].role != Buffer::Role::kOutput) continue;
      const std::size_t n = specs[i].count * sizeof(float);
      if (!in || at + n > data.size())
        bad(kernel, fmt::format("the reference file {} has {} bytes, fewer than the outputs "
                                "need; regenerate it for problem {}",
                                kernel.reference.file.string(), data.size(), problem.str()));
      host[i].resize(specs[i].count);
      std::memcpy(host[i].data(), data.data() + at, n);
      at += n;
    }
  }
};

std::mutex jobs_mutex;
std::map<std::string, std::vector<std::string>>& registered_jobs() {
  static std::map<std::string, std::vector<std::string>> jobs;
  return jobs;
}
std::map<std::string, Shape>& job_problems() {
  static std::map<std::string, Shape> problems;
  return problems;
}

}  // namespace

std::string source_family_version(const SourceKernel& k) {
  source::CompileRequest r;
  r.source_text = source::read_source(k);
  r.source_name = k.source.string();
  r.options.push_back("-I" + k.source.parent_path().string());
  r.options.insert(r.options.end(), k.options.begin(), k.options.end());
  // How the job launches and checks the kernel is part of what a result means: the launch
  // expressions and arguments are keyed with the code.
  std::string launch = "occtune-launch:";
  auto add = [&launch](const std::vector<source::Expr>& es) {
    for (const auto& e : es) launch += e.text() + ";";
    launch += "|";
  };
  add(k.launch.block);
  add(k.launch.grid);
  launch += k.launch.smem.text() + "|";
  for (const auto& a : k.args)
    launch += fmt::format("{}:{}:{}:{};", a.name, source::to_string(a.kind),
                          source::to_string(a.type), a.amount.text());
  add(k.reference.launch.block);
  add(k.reference.launch.grid);
  launch += fmt::format("{}|{}", k.reference.launch.smem.text(), k.reference.tolerance);
  r.options.push_back(launch);
  r.name_expressions.push_back(k.kernel);
  if (!k.reference.kernel.empty()) r.name_expressions.push_back(k.reference.kernel);
  const auto includes = source::quoted_includes(r.source_text, r.source_name, r.options);
  return "src-" + source::cache_key(r, includes, source::nvrtc().version_text);
}

SourceFamily make_source_family(const SourceKernel& kernel, const SourceFamilyOptions& options) {
  auto state = std::make_shared<State>();
  state->kernel = kernel;
  state->options = options;
  state->configs = source::enumerate_configurations(kernel);
  state->programs.resize(state->configs.size());
  state->loaded.resize(state->configs.size());
  for (const auto& a : kernel.args)
    if (a.kind != source::ArgKind::kScalar && a.type != source::ValueType::kFloat32)
      bad(kernel, fmt::format("buffer '{}' is {}; tuning takes float32 buffers in this version "
                              "(scalars may have any type); use `occtune compile` for it",
                              a.name, source::to_string(a.type)));
  std::set<std::string> reads;
  auto note = [&](const source::Expr& e) {
    for (const auto& [dim, value] : kernel.problem)
      if (e.names().count(dim)) reads.insert(dim);
  };
  for (const auto& e : kernel.constraints) note(e);
  for (const auto& e : kernel.launch.block) note(e);
  note(kernel.launch.smem);
  for (const auto& d : reads)
    state->space_problem_names += (state->space_problem_names.empty() ? "" : ", ") + d;

  SourceFamily out;
  KernelFamily& f = out.family;
  f.name = kernel.name;
  f.version = source_family_version(kernel);
  f.description = fmt::format("source kernel {} from {}", kernel.kernel, kernel.source.string());
  for (const auto& [dim, value] : kernel.problem) f.dims.push_back(dim);
  f.block_rule = BlockRule::kFixed;
  for (std::size_t i = 0; i < state->configs.size(); ++i) {
    const source::Configuration& c = state->configs[i];
    if (c.launch.block[2] != 1)
      bad(kernel, fmt::format("configuration {} has block {}x{}x{}; tuning takes 1D and 2D "
                              "blocks in this version (give launch.block 1 or 2 expressions)",
                              c.label(), c.launch.block[0], c.launch.block[1], c.launch.block[2]));
    KernelConfig k;
    for (const auto& [name, value] : c.params) k.params.push_back({name, value});
    k.block = {int(c.launch.block[0]), int(c.launch.block[1])};
    k.resolve = [state, i] { return state->function(i); };
    f.configs.push_back(std::move(k));
  }
  const Dims at_job = job_problem(kernel);
  f.smem = [state, at_job](Block, const KernelConfig& c) {
    return std::size_t(state->geometry(at_job, c.params).smem);
  };
  f.grid = [state](const Dims& problem, const KernelConfig& c, Block) {
    const source::LaunchGeometry g = state->geometry(problem, c.params);
    return Grid{g.grid[0], g.grid[1], g.grid[2]};
  };
  f.buffers = [state](const Dims& problem) { return state->buffers(problem); };
  f.launch = [state](const LaunchArgs& a) {
    source::LaunchGeometry g;
    g.block = {a.block.x, a.block.y, 1};
    g.grid = {a.grid.x, a.grid.y, a.grid.z};
    g.smem = std::int64_t(a.dynamic_smem);
    return launch_packed(state->kernel, a.function, *a.problem, a.buffers, g,
                         static_cast<cudaStream_t>(a.stream));
  };
  f.cuda = cuda_hooks();
  f.cuda.set_max_dynamic_smem = &set_max_dynamic_smem;
  f.reference = [state](const Dims& problem, std::vector<std::vector<float>>& host) {
    state->run_reference(problem, host);
  };
  f.compare.norm = Comparison::Norm::kRelativeFrobenius;
  f.compare.tolerance = kernel.reference.tolerance;
  out.compile = [state]() -> const CompileSummary& { return state->compile(); };
  return out;
}

std::vector<std::string> register_source_job(const std::filesystem::path& path,
                                             const SourceFamilyOptions& options) {
  const std::filesystem::path file = std::filesystem::absolute(path).lexically_normal();
  std::lock_guard lock(jobs_mutex);
  if (auto it = registered_jobs().find(file.string()); it != registered_jobs().end())
    return it->second;
  const source::SourceJob job = source::load_source_job(file);
  std::vector<std::string> names;
  for (const auto& k : job.kernels) {
    SourceFamily sf = make_source_family(k, options);
    register_user_family(std::move(sf.family), std::move(sf.compile));
    const UserFamily* f = find_user_family(k.name);
    job_problems()[k.name] = to_shape(*f, job_problem(k));
    names.push_back(k.name);
  }
  if (!names.empty()) ::setenv("OCCTUNE_SOURCE_JOB", file.c_str(), 1);
  registered_jobs()[file.string()] = names;
  return names;
}

void register_source_job_from_env(const SourceFamilyOptions& options) {
  const char* path = std::getenv("OCCTUNE_SOURCE_JOB");
  if (path && *path) register_source_job(path, options);
}

std::optional<Shape> source_job_problem(const std::string& family) {
  std::lock_guard lock(jobs_mutex);
  const auto it = job_problems().find(family);
  if (it == job_problems().end()) return std::nullopt;
  return it->second;
}

}  // namespace occtune::cuda
