// User kernel families (autotuner/core/user_family.hpp): validation at registration, the
// expansion into registry variants, and the parsers of problems and variant names.
#include "autotuner/core/user_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <mutex>

#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/compiled_resources.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/layout.hpp"
#include "kernels/registry_extension.hpp"

namespace occtune {
namespace {

// Families live in a deque: the engine keeps pointers to them and their variants.
std::mutex families_mutex;
std::deque<UserFamily>& registered() {
  static std::deque<UserFamily> families;
  return families;
}

// Functions obtained through KernelConfig::resolve, by configuration symbol (asked once).
std::mutex resolved_mutex;

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 64 ||
      !(std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

[[noreturn]] void bad(const std::string& family, const std::string& what) {
  fail(ExitCode::kUsage, fmt::format("kernel family '{}': {}", family, what));
}

// The parameters the block adds to a variant's label: "tile" (square: its side), "threads"
// (1D), or "bx" and "by" (fixed aspect: its shape). The names are reserved for every family.
std::vector<kernels::Param> block_params(BlockRule rule, Block b) {
  switch (rule) {
    case BlockRule::kSquare: return {{"tile", b.x}};
    case BlockRule::kLinear: return {{"threads", b.threads()}};
    case BlockRule::kAspect: return {{"bx", b.x}, {"by", b.y}};
    case BlockRule::kFixed: return {};  // the configuration's own block: its parameters say it
  }
  return {};
}
bool reserved_param(const std::string& p) {
  return p == "tile" || p == "threads" || p == "bx" || p == "by";
}

// The threads of the rule's smallest block: aspect.x * aspect.y for a fixed aspect, else 1.
int unit_threads(const KernelFamily& f) {
  return f.block_rule == BlockRule::kAspect ? f.aspect.x * f.aspect.y : 1;
}

int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

// A fixed aspect is checked here, before blocks() uses it.
void validate_aspect(const KernelFamily& f) {
  const Aspect a = f.aspect;
  const std::string text = fmt::format("{}:{}", a.x, a.y);
  if (f.block_rule != BlockRule::kAspect) {
    if (a.x != 1 || a.y != 1)
      bad(f.name, fmt::format("aspect {} is set but block_rule is not BlockRule::kAspect; set "
                              "block_rule = occtune::BlockRule::kAspect, or leave aspect at 1:1",
                              text));
    return;
  }
  if (a.x < 1 || a.y < 1 || std::int64_t(a.x) * a.y > 1024)
    bad(f.name, fmt::format("aspect {} is not a block shape; give two positive integers whose "
                            "product is at most 1024 (e.g. aspect = {{4, 1}} for 4s x s blocks)",
                            text));
  if (const int d = gcd(a.x, a.y); d != 1)
    bad(f.name, fmt::format("aspect {} is not in lowest terms; write it as {}:{} (the blocks are "
                            "aspect.x * s by aspect.y * s for every power of two s)",
                            text, a.x / d, a.y / d));
}

// What the user engine does not read yet (modes, a configuration's own symbol) is taken only
// from occtune's built-in families; everything else is checked alike for both.
void validate_builtin_fields(const KernelFamily& f, FamilyOrigin origin) {
  const std::string& n = f.name;
  const bool has_modes = !f.modes.name.empty() || !f.modes.values.empty();
  if (origin == FamilyOrigin::kUser) {
    if (has_modes)
      bad(n, fmt::format("modes '{}' are taken only from occtune's built-in GEMM families in this "
                         "version; leave KernelFamily::modes empty (a user family's problem is "
                         "its dimensions)",
                         f.modes.name));
    if (f.walk.function || f.walk.resolve)
      bad(n, "KernelFamily::walk is taken only from occtune's built-in GEMM families in this "
             "version; leave it unset (the occupancy API walks each configuration's own "
             "function)");
    for (std::size_t c = 0; c < f.configs.size(); ++c)
      if (!f.configs[c].symbol.empty() || !f.configs[c].mode.empty())
        bad(n, fmt::format("configuration {} sets {} '{}', which is taken only from occtune's "
                           "built-in GEMM families in this version; leave KernelConfig::symbol "
                           "and KernelConfig::mode empty (variants are named "
                           "family<param=value,...>/XxY)",
                           c + 1, f.configs[c].symbol.empty() ? "mode" : "symbol",
                           f.configs[c].symbol.empty() ? f.configs[c].mode : f.configs[c].symbol));
    return;
  }
  if (has_modes) {
    // The store keys one mode, in its layout column, so the one mode is the layout.
    if (f.modes.name != "layout" || f.modes.values.empty())
      bad(n, fmt::format("modes '{}' with {} values: the store keys one mode, the operand layout; "
                         "name it \"layout\" and give its values (nn, nt, tn, tt)",
                         f.modes.name, f.modes.values.size()));
    for (std::size_t i = 0; i < f.modes.values.size(); ++i) {
      if (!parse_layout(f.modes.values[i]))
        bad(n, "mode value: " + layout_error(f.modes.values[i]));
      for (std::size_t j = 0; j < i; ++j)
        if (f.modes.values[j] == f.modes.values[i])
          bad(n, fmt::format("mode value '{}' is given twice; give each once", f.modes.values[i]));
    }
  }
  if (f.walk.function || f.walk.resolve) {
    // The walk's answers pick specialised configurations: without one per block there is
    // nothing to pick, and its symbol is how the offline planner finds its registers.
    if (f.block_rule != BlockRule::kSquare || f.walk.symbol.empty())
      bad(n, "a walk needs BlockRule::kSquare and the walk's symbol (e.g. TiledDynamic<0>)");
    for (std::size_t c = 0; c < f.configs.size(); ++c)
      if (f.configs[c].symbol.empty())
        bad(n, fmt::format("configuration {} has no symbol, but the family walks: give every "
                           "configuration the symbol of its specialised block",
                           c + 1));
  }
  for (std::size_t c = 0; c < f.configs.size(); ++c) {
    const std::string& mode = f.configs[c].mode;
    const auto& values = f.modes.values;
    if (has_modes ? std::find(values.begin(), values.end(), mode) == values.end() : !mode.empty())
      bad(n, fmt::format("configuration {} computes mode '{}', which is not one of the family's "
                         "modes ({}); set KernelConfig::mode to one of them",
                         c + 1, mode, has_modes ? fmt::format("{}", fmt::join(values, ", "))
                                                : std::string("none")));
    const std::string& symbol = f.configs[c].symbol;
    if (!symbol.empty() && (symbol.size() > 128 ||
                            symbol.find_first_of(" \t\n\r|=/") != std::string::npos))
      bad(n, fmt::format("configuration {}: symbol '{}' must be 1 to 128 characters without "
                         "spaces or |=/ (e.g. TiledStatic<16> or RegBlocked<128,128,8>)",
                         c + 1, symbol));
  }
}

void validate(const KernelFamily& f, FamilyOrigin origin) {
  validate_builtin_fields(f, origin);
  const std::string& n = f.name;
  if (!is_identifier(n))
    fail(ExitCode::kUsage,
         fmt::format("kernel family name '{}' is not a name; use 1 to 64 of a-z, 0-9 and _, "
                     "starting with a letter or _ (e.g. stencil5)",
                     n));
  if (f.version.empty() || f.version.size() > 64 ||
      f.version.find_first_of(" \t\n\r|<>/,=") != std::string::npos)
    bad(n, fmt::format("version '{}' must be 1 to 64 characters without spaces or |<>/,= (e.g. "
                       "\"1\" or \"2026-11-24\"); change it whenever the kernel changes",
                       f.version));
  if (f.dims.empty() || f.dims.size() > kMaxUserDims)
    bad(n, fmt::format("{} problem dimensions given; name 1 to {} (e.g. dims = {{\"nx\", \"ny\"}})",
                       f.dims.size(), kMaxUserDims));
  for (std::size_t i = 0; i < f.dims.size(); ++i) {
    if (!is_identifier(f.dims[i]))
      bad(n, fmt::format("dimension '{}' is not a name; use a-z, 0-9 and _ (e.g. nx)", f.dims[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (f.dims[j] == f.dims[i])
        bad(n, fmt::format("dimension '{}' is named twice; name each dimension once", f.dims[i]));
  }
  if (!f.reference && !f.device_reference)
    bad(n,
        "no reference; set KernelFamily::reference to a host function that computes the "
        "expected outputs, or KernelFamily::device_reference to device work that writes them "
        "(a result that is never checked could win while wrong)");
  if (f.reference && f.device_reference)
    bad(n,
        "both KernelFamily::reference and KernelFamily::device_reference are set; keep one "
        "(the outputs are checked against exactly one reference)");
  if (!f.smem)
    bad(n,
        "no smem function; set KernelFamily::smem (bytes of dynamic shared memory "
        "for a block; return 0 when the kernel uses none)");
  if (!f.grid) bad(n, "no grid function; set KernelFamily::grid (blocks for a problem)");
  if (!f.buffers) bad(n, "no buffers function; set KernelFamily::buffers (inputs and outputs)");
  if (!f.launch)
    bad(n,
        "no launch function; set KernelFamily::launch (occtune::launch_kernel "
        "from occtune/launch.cuh launches the configuration's function)");
  if (!f.cuda.attributes || !f.cuda.max_active_blocks || !f.cuda.set_max_dynamic_smem)
    bad(n,
        "no CUDA hooks; set KernelFamily::cuda = occtune::cuda_hooks() in the .cu file that "
        "registers the family (#include <occtune/launch.cuh>)");
  if (!(f.compare.tolerance > 0) || !std::isfinite(f.compare.tolerance))
    bad(n, fmt::format("comparison tolerance {} must be a positive number (e.g. 1e-5)",
                       f.compare.tolerance));
  if (f.block_rule == BlockRule::kFixed)
    for (std::size_t c = 0; c < f.configs.size(); ++c)
      if (f.configs[c].block.x < 1 || f.configs[c].block.y < 1)
        bad(n, fmt::format("configuration {} has block {}x{}; with BlockRule::kFixed give every "
                           "configuration a block of at least 1x1",
                           c + 1, f.configs[c].block.x, f.configs[c].block.y));
  if (f.min_threads < 1 || f.max_threads > 1024 || f.min_threads > f.max_threads)
    bad(n, fmt::format("block sizes {}..{} threads are not a range within 1..1024; set "
                       "min_threads <= max_threads",
                       f.min_threads, f.max_threads));
  validate_aspect(f);
  if (f.configs.empty())
    bad(n, "no configurations; add one KernelConfig per compiled instantiation");
  for (std::size_t c = 0; c < f.configs.size(); ++c) {
    const KernelConfig& k = f.configs[c];
    if (!k.function && !k.resolve)
      bad(n, fmt::format("configuration {} has no function; set KernelConfig::function to the "
                         "__global__ function (or resolve to a function that returns it)",
                         c + 1));
    for (std::size_t i = 0; i < k.params.size(); ++i) {
      const std::string& p = k.params[i].name;
      // Upper case too: a source kernel's parameters are C macro and template names (BX).
      std::string lower = p;
      for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      if (!is_identifier(lower))
        bad(n, fmt::format("configuration {}: parameter '{}' is not a name; use a-z, A-Z, 0-9 "
                           "and _",
                           c + 1, p));
      if (reserved_param(p))
        bad(n, fmt::format("configuration {}: parameter '{}' is reserved for the block occtune "
                           "chooses (tile, threads, bx, by); rename it",
                           c + 1, p));
      for (std::size_t j = 0; j < i; ++j)
        if (k.params[j].name == p)
          bad(n, fmt::format("configuration {}: parameter '{}' is given twice", c + 1, p));
    }
    // A variant's name is parsed back into its parameters (family<p=v,...>), so they must be
    // the same for all; a configuration with its own symbol is named by it instead (repacked
    // wraps variants of several families).
    if (!k.symbol.empty()) continue;
    const auto& first = f.configs[0].params;
    bool same = first.size() == k.params.size();
    for (std::size_t i = 0; same && i < first.size(); ++i) same = first[i].name == k.params[i].name;
    if (!same)
      bad(n, fmt::format("configuration {} names other parameters than configuration 1; give "
                         "every configuration the same parameters in the same order",
                         c + 1));
  }
}

// The registry extension: every user family's metadata, after the built-in families (whose
// names a user family may not take).
void extend_registry(std::vector<kernels::FamilyInfo>& families,
                     std::vector<kernels::VariantInfo>& variants) {
  std::lock_guard lock(families_mutex);
  for (const UserFamily& uf : registered()) {
    for (const auto& f : families)
      if (f.name == uf.def.name)
        fail(ExitCode::kUsage,
             fmt::format("kernel family '{}' is registered twice (a built-in family has that "
                         "name); choose another name",
                         uf.def.name));
    families.push_back(family_info(uf));
    variants.insert(variants.end(), uf.variants.begin(), uf.variants.end());
  }
}

const UserFamily* family_of_symbol(std::string_view symbol, int* config) {
  const auto open = symbol.find('<');
  if (open == std::string_view::npos) return nullptr;
  const UserFamily* f = find_user_family(symbol.substr(0, open));
  if (!f) return nullptr;
  const std::string_view head = symbol.substr(0, symbol.find('/'));
  for (std::size_t c = 0; c < f->config_symbols.size(); ++c)
    if (f->config_symbols[c] == head) {
      *config = int(c);
      return f;
    }
  return nullptr;
}

}  // namespace

std::int64_t Dims::operator[](const std::string& name) const {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  fail(ExitCode::kUsage, fmt::format("the problem {} has no dimension '{}'; use one of its "
                                     "dimensions",
                                     str().empty() ? "(empty)" : str(), name));
}

std::string Dims::str() const {
  std::string out;
  for (const auto& [n, v] : values) out += fmt::format("{}{}={}", out.empty() ? "" : ",", n, v);
  return out;
}

std::int64_t KernelConfig::param(const std::string& name) const {
  for (const auto& p : params)
    if (p.name == name) return p.value;
  fail(ExitCode::kUsage, fmt::format("the configuration has no parameter '{}'", name));
}

std::vector<Block> UserFamily::blocks() const {
  std::vector<Block> out;
  const int step = def.block_rule == BlockRule::kLinear ? 2 : 4;
  for (int t = unit_threads(def); t <= def.max_threads; t *= step)
    if (t >= def.min_threads) out.push_back(block_for_threads(t));
  return out;
}

Block UserFamily::block_for_threads(int threads) const {
  switch (def.block_rule) {
    case BlockRule::kLinear: return {threads, 1};
    case BlockRule::kSquare:
    case BlockRule::kFixed:  // never walked (each configuration has its block); square like it was
      break;
    case BlockRule::kAspect: {
      // Exact for the rule's sizes; for the sizes between them (the occupancy API asks for
      // the shared memory of every block size) the largest aspect block within `threads`.
      const int s = std::max(1, integer_sqrt(threads / unit_threads(def)));
      return {def.aspect.x * s, def.aspect.y * s};
    }
  }
  const int w = integer_sqrt(threads);
  return {w, w};
}

int UserFamily::snap_threads(int suggested) const {
  if (def.block_rule == BlockRule::kLinear)
    return suggested < 1 ? 0 : 1 << (31 - __builtin_clz(unsigned(suggested)));
  const int unit = unit_threads(def);
  return suggested < unit ? 0 : unit * snap_to_power_of_four(suggested / unit);
}

std::string UserFamily::config_symbol(int config) const {
  if (const std::string& own = def.configs[std::size_t(config)].symbol; !own.empty()) return own;
  std::string params;
  for (const auto& p : def.configs[std::size_t(config)].params)
    params += fmt::format("{}{}={}", params.empty() ? "" : ",", p.name, p.value);
  return def.name + "<" + params + ">";
}

std::string UserFamily::variant_symbol(int config, Block block) const {
  return fmt::format("{}/{}x{}", config_symbol(config), block.x, block.y);
}

std::string CompileSummary::line() const {
  int failed = 0;
  for (const auto& e : errors) failed += e.empty() ? 0 : 1;
  return fmt::format("{} configurations for {} in {:.2f} s ({} programs compiled by NVRTC, {} "
                     "from the kernel cache, {} compile_failed)",
                     errors.size(), arch, wall_seconds, nvrtc_runs, cache_hits, failed);
}

UserFamily expand_family(KernelFamily family, CompileHook compile, FamilyOrigin origin) {
  validate(family, origin);
  UserFamily uf;
  uf.def = std::move(family);
  uf.compile = std::move(compile);
  const bool fixed = uf.def.block_rule == BlockRule::kFixed;
  for (int c = 0; c < int(uf.def.configs.size()); ++c) {
    uf.config_symbols.push_back(uf.config_symbol(c));
    for (int j = 0; j < c; ++j)
      if (uf.config_symbols[std::size_t(j)] == uf.config_symbols.back())
        bad(uf.def.name, fmt::format("configurations {} and {} are both {}; give each "
                                     "configuration its own parameter values",
                                     j + 1, c + 1, uf.config_symbols.back()));
  }
  if (!fixed && uf.blocks().empty()) {
    const BlockRule rule = uf.def.block_rule;
    const std::string sizes = rule == BlockRule::kLinear   ? "2^k"
                              : rule == BlockRule::kSquare ? "4^k"
                                                           : fmt::format("{}*4^k", unit_threads(uf.def));
    bad(uf.def.name, fmt::format("no block of {} threads lies in min_threads..max_threads = "
                                 "{}..{}; widen the range",
                                 sizes, uf.def.min_threads, uf.def.max_threads));
  }
  for (int c = 0; c < int(uf.def.configs.size()); ++c) {
    const KernelConfig& config = uf.def.configs[std::size_t(c)];
    // A configuration with its own symbol is specialised to its block (a compile-time tile).
    const bool specialised = !config.symbol.empty();
    if (specialised && !fixed) {
      const Block b = config.block;
      const int t = b.threads();
      if (t < 1 || t > uf.def.max_threads || uf.snap_threads(t) != t ||
          uf.block_for_threads(t).x != b.x || uf.block_for_threads(t).y != b.y)
        bad(uf.def.name, fmt::format("configuration {} ({}) is specialised to block {}x{}, "
                                     "which is not a block of its rule up to {} threads; give "
                                     "it one (square: w x w, w a power of two)",
                                     c + 1, config.symbol, b.x, b.y, uf.def.max_threads));
    }
    const auto blocks = fixed || specialised ? std::vector<Block>{config.block} : uf.blocks();
    for (const Block b : blocks) {
      kernels::VariantInfo v;
      v.family = uf.def.name;
      v.symbol = specialised ? config.symbol : uf.variant_symbol(c, b);
      for (const auto& p : config.params) v.params.push_back({p.name, int(p.value)});
      // A fixed block is the configuration's own (its parameters already say it).
      if (!fixed)
        for (auto& p : block_params(uf.def.block_rule, b)) v.params.push_back(std::move(p));
      v.block_x = b.x;
      v.block_y = b.y;
      v.tile_m = v.tile_n = 1;  // unused: the family computes its grid (user_grid)
      v.dynamic_smem = uf.def.smem(b, config);
      if (!config.mode.empty()) v.layout = *parse_layout(config.mode);  // validated
      uf.variants.push_back(std::move(v));
      uf.variant_of.push_back({c, b});
    }
  }
  return uf;
}

kernels::FamilyInfo family_info(const UserFamily& family) {
  kernels::FamilyInfo info;
  info.name = family.def.name;
  info.description = family.def.description.empty()
                         ? "user kernel family, version " + family.def.version
                         : family.def.description;
  info.baseline = family.def.baseline;
  if (const KernelConfig& walk = family.def.walk; walk.function || walk.resolve) {
    // The textbook walk (autotuner/core/candidate_generation.cpp): the walk's kernel with the
    // shared memory of the rule's block for each size the occupancy API asks about.
    info.generation_symbol = walk.symbol;
    info.smem_for_threads = [smem = family.def.smem, walk](int threads) {
      const int side = integer_sqrt(std::max(threads, 1));
      return smem(Block{side, side}, walk);
    };
    info.default_min_tile = integer_sqrt(family.def.min_threads);
  }
  return info;
}

namespace kernels {
ExpandedFamily expand_builtin_family(KernelFamily family) {
  const UserFamily uf = expand_family(std::move(family), {}, FamilyOrigin::kBuiltin);
  ExpandedFamily out{family_info(uf), uf.variants, {}};
  for (const UserVariant& v : uf.variant_of) out.config_of.push_back(v.config);
  return out;
}
}  // namespace kernels

void register_user_family(KernelFamily family, CompileHook compile) {
  UserFamily uf = expand_family(std::move(family), std::move(compile), FamilyOrigin::kUser);
  std::lock_guard lock(families_mutex);
  for (const UserFamily& other : registered())
    if (other.def.name == uf.def.name)
      bad(uf.def.name,
          "registered twice; give each family its own name (a new version of a "
          "kernel keeps its name and changes its version)");
  // Throws once the registry is built, before the family is kept.
  kernels::set_registry_extension(&extend_registry);
  registered().push_back(std::move(uf));
}

void register_family(KernelFamily family) { register_user_family(std::move(family)); }

const UserFamily* find_user_family(std::string_view name) {
  std::lock_guard lock(families_mutex);
  for (const UserFamily& f : registered())
    if (f.def.name == name) return &f;
  return nullptr;
}

std::vector<std::string> gemm_tuning_families(Layout layout) {
  std::vector<std::string> out;
  for (const auto& family : kernels::families())
    if (!family.baseline && !find_user_family(family.name) &&
        !kernels::variants_of(family.name, layout).empty())
      out.push_back(family.name);
  return out;
}

std::vector<const UserFamily*> user_families() {
  std::lock_guard lock(families_mutex);
  std::vector<const UserFamily*> out;
  for (const UserFamily& f : registered()) out.push_back(&f);
  return out;
}

std::string family_build_id(std::string_view family, std::string_view kernel_build_id) {
  if (const UserFamily* f = find_user_family(family)) return "user:" + f->def.version;
  return std::string(kernel_build_id);
}

Work problem_work(std::string_view family, Shape shape) {
  const UserFamily* f = find_user_family(family);
  if (!f) return {shape.flops(), 0.0};
  const Dims problem = to_dims(*f, shape);
  return {f->def.flops ? f->def.flops(problem) : 0.0, f->def.bytes ? f->def.bytes(problem) : 0.0};
}

std::string problem_example(const UserFamily& family) {
  std::string example;
  for (const auto& d : family.def.dims)
    example += fmt::format("{}{}=4096", example.empty() ? "" : ",", d);
  return example;
}

Dims parse_problem(const UserFamily& family, std::string_view text) {
  const auto& names = family.def.dims;
  const std::string expected = problem_example(family);
  auto wrong = [&](const std::string& why) -> Dims {
    bad(family.def.name, fmt::format("problem '{}': {}; write every dimension once as "
                                     "name=integer, e.g. --problem {}",
                                     text, why, expected));
  };
  std::vector<std::optional<std::int64_t>> values(names.size());
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const auto eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos)
      return wrong(fmt::format("'{}' is not name=value", item));
    const std::string_view name = item.substr(0, eq), digits = item.substr(eq + 1);
    std::size_t i = 0;
    while (i < names.size() && names[i] != name) ++i;
    if (i == names.size())
      return wrong(
          fmt::format("'{}' is not one of its dimensions ({})", name, fmt::join(names, ", ")));
    if (values[i]) return wrong(fmt::format("'{}' is given twice", name));
    std::int64_t v = 0;
    const bool decimal =
        !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (!decimal || ec != std::errc() || ptr != digits.data() + digits.size() || v < 1 ||
        v > kMaxShapeSide)
      return wrong(
          fmt::format("{} = '{}' is not an integer in 1..{}", name, digits, kMaxShapeSide));
    values[i] = v;
  }
  Dims d;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!values[i]) return wrong(fmt::format("dimension '{}' is missing", names[i]));
    d.values.emplace_back(names[i], *values[i]);
  }
  return d;
}

Shape to_shape(const UserFamily& family, const Dims& problem) {
  std::int64_t sides[kMaxUserDims] = {1, 1, 1};
  for (std::size_t i = 0; i < family.def.dims.size(); ++i) {
    const std::int64_t v = problem[family.def.dims[i]];
    if (v < 1 || v > kMaxShapeSide)
      bad(family.def.name,
          fmt::format("dimension {} = {} is outside 1..{}", family.def.dims[i], v, kMaxShapeSide));
    sides[i] = v;
  }
  return Shape{sides[0], sides[1], sides[2]};
}

std::string problem_text(std::string_view family, Shape shape) {
  const UserFamily* f = find_user_family(family);
  return f ? to_dims(*f, shape).str() : shape.str();
}

Dims to_dims(const UserFamily& family, Shape shape) {
  const std::int64_t sides[kMaxUserDims] = {shape.m, shape.n, shape.k};
  Dims d;
  for (std::size_t i = 0; i < family.def.dims.size(); ++i)
    d.values.emplace_back(family.def.dims[i], sides[i]);
  return d;
}

UserVariant parse_variant_name(const UserFamily& family, std::string_view text) {
  const std::string example = family.variants.empty() ? "" : family.variants.front().symbol;
  auto wrong = [&](const std::string& why) -> UserVariant {
    bad(family.def.name, fmt::format("configuration name '{}' {}; write it as "
                                     "{}<param=value,...>/XxY, e.g. {}",
                                     text, why, family.def.name, example));
  };
  const auto slash = text.rfind('/');
  if (text.substr(0, text.find('<')) != family.def.name)
    return wrong(fmt::format("does not start with '{}<'", family.def.name));
  if (slash == std::string_view::npos || text.substr(0, slash).back() != '>')
    return wrong("has no '>/' before its block");
  const std::string_view block = text.substr(slash + 1);
  const auto x = block.find('x');
  Block b;
  auto number = [](std::string_view s, int& out) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && out >= 1;
  };
  if (x == std::string_view::npos || !number(block.substr(0, x), b.x) ||
      !number(block.substr(x + 1), b.y))
    return wrong(fmt::format("has block '{}', not XxY with two positive integers", block));
  for (std::size_t i = 0; i < family.variants.size(); ++i)
    if (family.variants[i].symbol == text) return family.variant_of[i];
  return wrong("names no registered configuration and block of this family");
}

std::optional<UserVariant> user_variant(const kernels::VariantInfo& variant) {
  const UserFamily* f = find_user_family(variant.family);
  if (!f) return std::nullopt;
  for (std::size_t i = 0; i < f->variants.size(); ++i)
    if (f->variants[i].symbol == variant.symbol) return f->variant_of[i];
  return std::nullopt;
}

std::optional<UserKernel> user_kernel(std::string_view symbol) {
  int config = 0;
  const UserFamily* f = family_of_symbol(symbol, &config);
  if (!f) return std::nullopt;
  // A function obtained at run time (e.g. compiled from source) is asked for once and kept;
  // the family object itself is not const (it lives in registered()).
  std::lock_guard lock(resolved_mutex);
  auto& mutable_config = const_cast<KernelConfig&>(f->def.configs[std::size_t(config)]);
  if (!mutable_config.function) mutable_config.function = mutable_config.resolve();
  if (!mutable_config.function)
    bad(f->def.name, fmt::format("configuration {} resolved to no function; make resolve() "
                                 "return the kernel to launch",
                                 f->config_symbols[std::size_t(config)]));
  return UserKernel{mutable_config.function, &f->def.cuda};
}

std::optional<ConfigResources> user_resources(std::string_view symbol, int arch,
                                              std::string* origin) {
  int config = 0;
  const UserFamily* f = family_of_symbol(symbol, &config);
  if (!f) return std::nullopt;
  std::string ignored;
  std::string& from = origin ? *origin : ignored;
  // A family compiled at tuning time has compiled (planning asks its hook first), for the
  // architecture it was made for; a hook that reports no resources leaves the declared ones.
  if (f->compile)
    if (const CompileSummary& s = f->compile(); std::size_t(config) < s.resources.size()) {
      from = "its compiled code (" + s.arch + ")";
      return s.resources[std::size_t(config)];
    }
  const KernelConfig& k = f->def.configs[std::size_t(config)];
  // A __global__ function linked into the program: its cubin for `arch` says what ptxas gave
  // it (issue #13); a function obtained at run time has none to read before it is resolved.
  if (arch > 0 && k.function) {
    const CompiledLookup found = compiled_resources(k.function, arch);
    if (found.resources) {
      from = fmt::format("its compiled code (the sm_{} cubin of {}{})", found.cubin_arch,
                         found.object,
                         found.cubin_arch == arch ? "" : fmt::format(", loaded on sm_{}", arch));
      return ConfigResources{found.resources->registers, found.resources->static_smem,
                             found.resources->barriers};
    }
    from = "its declaration (KernelConfig::registers), since " + found.why;
  } else {
    from = arch > 0 ? "its declaration (KernelConfig::registers), since its functions are "
                      "obtained at run time (resolve)"
                    : "its declaration (KernelConfig::registers)";
  }
  return ConfigResources{k.registers, k.static_smem, 1};
}

std::string user_resources_origin(const UserFamily& family, int arch) {
  // Every configuration's origin, once each: they differ only when the program is mixed.
  std::vector<std::string> origins;
  for (const auto& symbol : family.config_symbols) {
    std::string origin;
    user_resources(symbol, arch, &origin);
    if (std::find(origins.begin(), origins.end(), origin) == origins.end())
      origins.push_back(std::move(origin));
  }
  std::string out;
  for (const auto& o : origins) out += (out.empty() ? "" : "; ") + o;
  return out;
}

Grid user_grid(const UserFamily& family, const UserVariant& variant, const Dims& problem) {
  const Grid g =
      family.def.grid(problem, family.def.configs[std::size_t(variant.config)], variant.block);
  constexpr std::int64_t kMaxGridX = 2147483647, kMaxGridYZ = 65535;
  if (g.x < 1 || g.y < 1 || g.z < 1 || g.x > kMaxGridX || g.y > kMaxGridYZ || g.z > kMaxGridYZ)
    bad(family.def.name,
        fmt::format("grid {}x{}x{} for {} with block {}x{} at problem {} is not a launchable "
                    "grid (every side 1 or more, x at most {}, y and z at most {}); fix "
                    "KernelFamily::grid",
                    g.x, g.y, g.z, family.config_symbols[std::size_t(variant.config)],
                    variant.block.x, variant.block.y, problem.str(), kMaxGridX, kMaxGridYZ));
  return g;
}

}  // namespace occtune
