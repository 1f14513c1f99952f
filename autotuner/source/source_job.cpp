// Reads and validates the `[[kernel]]` tables of a job file into SourceKernel structs. Every
// expression is parsed and its names checked here, and the problem-only ones evaluated, so a
// job that reaches the compiler has no unknown name, undeclared parameter or type error left.
#include "autotuner/source/source_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "autotuner/core/error.hpp"
#include "autotuner/core/toml.hpp"  // toml++ with the 3.3.0 fix

namespace occtune::source {
namespace fs = std::filesystem;

std::string_view to_string(ValueType type) {
  switch (type) {
    case ValueType::kInt32:
      return "int32";
    case ValueType::kInt64:
      return "int64";
    case ValueType::kUInt32:
      return "uint32";
    case ValueType::kUInt64:
      return "uint64";
    case ValueType::kFloat32:
      return "float32";
    case ValueType::kFloat64:
      return "float64";
  }
  return "?";
}

std::size_t size_of(ValueType type) {
  switch (type) {
    case ValueType::kInt32:
    case ValueType::kUInt32:
    case ValueType::kFloat32:
      return 4;
    default:
      return 8;
  }
}

bool fits(ValueType type, std::int64_t v) {
  return type == ValueType::kInt32    ? v >= INT32_MIN && v <= INT32_MAX
         : type == ValueType::kUInt32 ? v >= 0 && v <= UINT32_MAX
         : type == ValueType::kUInt64 ? v >= 0
                                      : true;
}

std::string_view to_string(ArgKind kind) {
  switch (kind) {
    case ArgKind::kInput:
      return "input";
    case ArgKind::kOutput:
      return "output";
    case ArgKind::kScalar:
      return "scalar";
  }
  return "?";
}

bool SourceKernel::in_name(const std::string& parameter) const {
  return kernel.find("{" + parameter + "}") != std::string::npos;
}

Bindings SourceKernel::problem_bindings() const {
  Bindings b;
  for (auto& [dim, value] : problem) b[dim] = value;
  return b;
}

namespace {

// Reads one table, remembering where it is, so every error names the full key and line.
class Reader {
 public:
  Reader(const toml::table& table, std::string prefix, const std::string& origin)
      : table_(table), prefix_(std::move(prefix)), origin_(origin) {}

  [[noreturn]] void bad(const std::string& what) const {
    fail(ExitCode::kUsage, fmt::format("job {}: {}", origin_, what));
  }
  std::string key(std::string_view k) const { return prefix_ + std::string(k); }
  int line(const toml::node& n) const { return static_cast<int>(n.source().begin.line); }

  void only(const std::set<std::string>& known) const {
    for (auto& [k, value] : table_) {
      if (known.count(std::string(k.str()))) continue;
      std::string names;
      for (auto& n : known) names += (names.empty() ? "" : ", ") + n;
      bad(fmt::format("unknown key '{}' (line {}); known keys here: {}", key(k.str()), line(value),
                      names));
    }
  }
  const toml::node* node(std::string_view k, bool required) const {
    const toml::node* n = table_.get(k);
    if (!n && required)
      bad(fmt::format("missing '{}'; see docs/source-kernels.md for the [[kernel]] keys", key(k)));
    return n;
  }
  std::string string(std::string_view k, bool required, std::string fallback = "") const {
    const toml::node* n = node(k, required);
    if (!n) return fallback;
    if (!n->is_string()) bad(fmt::format("'{}' must be a string (line {})", key(k), line(*n)));
    return *n->value<std::string>();
  }
  const toml::table* table(std::string_view k, bool required) const {
    const toml::node* n = node(k, required);
    if (!n) return nullptr;
    if (!n->is_table()) bad(fmt::format("'{}' must be a table (line {})", key(k), line(*n)));
    return n->as_table();
  }
  const toml::array* array(std::string_view k, bool required, std::string_view of) const {
    const toml::node* n = node(k, required);
    if (!n) return nullptr;
    if (!n->is_array())
      bad(fmt::format("'{}' must be an array of {} (line {})", key(k), of, line(*n)));
    return n->as_array();
  }
  std::vector<std::string> strings(std::string_view k, bool required) const {
    std::vector<std::string> out;
    const toml::array* a = array(k, required, "strings");
    if (!a) return out;
    for (auto& item : *a) {
      if (!item.is_string())
        bad(fmt::format("'{}' must contain only strings (line {})", key(k), line(item)));
      out.push_back(*item.value<std::string>());
    }
    return out;
  }
  std::int64_t integer(const toml::node& n, const std::string& name) const {
    if (!n.is_integer()) bad(fmt::format("'{}' must be an integer (line {})", name, line(n)));
    return *n.value<std::int64_t>();
  }
  // A string holding an expression, parsed and checked against `allowed`.
  Expr expr(std::string_view k, bool required, const std::set<std::string>& allowed,
            std::string fallback = "") const {
    const toml::node* n = node(k, required);
    if (!n && fallback.empty()) return {};
    return expr_of(n, key(k), allowed, fallback);
  }
  Expr expr_of(const toml::node* n, const std::string& name, const std::set<std::string>& allowed,
               const std::string& fallback = "") const {
    std::string text = fallback;
    if (n) {
      // A plain integer is an expression too (smem = 0).
      if (n->is_integer()) {
        text = std::to_string(*n->value<std::int64_t>());
      } else if (n->is_string()) {
        text = *n->value<std::string>();
      } else {
        bad(fmt::format("'{}' must be an expression string or an integer (line {})", name,
                        line(*n)));
      }
    }
    try {
      Expr e = Expr::parse(text, name);
      e.check_names(allowed);
      return e;
    } catch (const Error& e) {
      bad(e.what());
    }
  }
  std::vector<Expr> exprs(std::string_view k, bool required, const std::set<std::string>& allowed,
                          std::size_t max_count) const {
    std::vector<Expr> out;
    const toml::array* a = array(k, required, "expressions");
    if (!a) return out;
    if (a->empty() || a->size() > max_count)
      bad(fmt::format("'{}' must hold 1 to {} expressions (x, y, z); it has {} (line {})", key(k),
                      max_count, a->size(), line(*a)));
    for (std::size_t i = 0; i < a->size(); ++i)
      out.push_back(expr_of(a->get(i), fmt::format("{}[{}]", key(k), i), allowed));
    return out;
  }

  const std::string& origin() const { return origin_; }

 private:
  const toml::table& table_;
  std::string prefix_;
  const std::string& origin_;
};

bool is_identifier(const std::string& s) {
  static const std::regex id("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, id);
}

// A TOML table's entries in the order they appear in the file (toml++ keeps them sorted).
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (auto& [k, v] : t) out.emplace_back(std::string(k.str()), &v);
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) {
    auto pa = a.second->source().begin, pb = b.second->source().begin;
    return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
  });
  return out;
}

std::set<std::string> reserved_and_functions() {
  std::set<std::string> out{"min", "max", "ceil_div"};
  for (auto n : kReservedNames) out.insert(std::string(n));
  return out;
}

// A name the job declares (problem dimension or parameter): an identifier that does not shadow
// a reserved name, a function or another declaration.
void declare(const Reader& r, std::set<std::string>& declared, const std::string& name,
             const std::string& key, int line) {
  if (!is_identifier(name))
    r.bad(
        fmt::format("'{}' (line {}): '{}' is not a name (letters, digits and _, not starting "
                    "with a digit)",
                    key, line, name));
  if (reserved_and_functions().count(name))
    r.bad(fmt::format("'{}' (line {}): '{}' is reserved by the expression language; rename it", key,
                      line, name));
  if (!declared.insert(name).second)
    r.bad(
        fmt::format("'{}' (line {}): '{}' is declared twice (problem dimensions and parameters "
                    "share one namespace)",
                    key, line, name));
}

std::set<std::string> with_geometry(std::set<std::string> names) {
  for (auto n : kReservedNames) names.insert(std::string(n));
  return names;
}

std::int64_t evaluate_now(const Reader& r, const Expr& e, const Bindings& b) {
  try {
    return e.eval(b);
  } catch (const Error& err) {
    r.bad(err.what());
  }
}

ValueType parse_type(const Reader& r, const std::string& text, const std::string& key) {
  for (auto t : {ValueType::kInt32, ValueType::kInt64, ValueType::kUInt32, ValueType::kUInt64,
                 ValueType::kFloat32, ValueType::kFloat64})
    if (to_string(t) == text) return t;
  r.bad(
      fmt::format("'{}' = '{}' is not a type; use int32, int64, uint32, uint64, float32 or "
                  "float64",
                  key, text));
}

void read_problem(const Reader& r, SourceKernel& k, std::set<std::string>& declared) {
  const toml::table* t = r.table("problem", false);
  if (!t) return;
  for (auto& [name, node] : in_file_order(*t)) {
    const std::string key = r.key("problem." + name);
    declare(r, declared, name, key, r.line(*node));
    const std::int64_t v = r.integer(*node, key);
    if (v < 1) r.bad(fmt::format("'{}' = {} must be a positive integer", key, v));
    k.problem.emplace_back(name, v);
  }
}

void read_parameters(const Reader& r, SourceKernel& k, std::set<std::string>& declared) {
  const toml::table* t = r.table("parameters", true);
  if (t->empty())
    r.bad(fmt::format("'{}' declares no parameter; a kernel needs at least one to tune",
                      r.key("parameters")));
  for (auto& [name, node] : in_file_order(*t)) {
    const std::string key = r.key("parameters." + name);
    declare(r, declared, name, key, r.line(*node));
    const toml::array* values = node->as_array();
    if (!values || values->empty())
      r.bad(
          fmt::format("'{}' must be a non-empty array of integers (line {})", key, r.line(*node)));
    Parameter p{name, {}};
    for (auto& v : *values) {
      const std::int64_t x = r.integer(v, key);
      if (std::find(p.values.begin(), p.values.end(), x) != p.values.end())
        r.bad(fmt::format("'{}' lists {} twice (line {})", key, x, r.line(v)));
      p.values.push_back(x);
    }
    k.parameters.push_back(std::move(p));
  }
}

// Every {NAME} of the kernel name expression must be a parameter, and the braces must pair.
void check_name_expression(const Reader& r, const SourceKernel& k) {
  const std::string key = r.key("kernel");
  std::set<std::string> params;
  for (auto& p : k.parameters) params.insert(p.name);
  std::size_t i = 0;
  while ((i = k.kernel.find_first_of("{}", i)) != std::string::npos) {
    const std::size_t close = k.kernel.find('}', i);
    if (k.kernel[i] == '}' || close == std::string::npos)
      r.bad(fmt::format("'{}' = '{}': unpaired brace at column {}; write parameters as {{NAME}}",
                        key, k.kernel, i + 1));
    const std::string name = k.kernel.substr(i + 1, close - i - 1);
    if (!params.count(name))
      r.bad(fmt::format("'{}' = '{}': '{{{}}}' is not a declared parameter; declare it in [{}]",
                        key, k.kernel, name, r.key("parameters")));
    i = close + 1;
  }
  if (k.kernel.empty() || k.kernel.find_first_of("\"'\n;") != std::string::npos)
    r.bad(
        fmt::format("'{}' = '{}' is not a kernel name or name expression (e.g. "
                    "\"stencil\" or \"stencil<{{BX}}, {{BY}}>\")",
                    key, k.kernel));
}

void check_options(const Reader& r, const SourceKernel& k) {
  for (auto& o : k.options) {
    // occtune chooses the architecture per device or profile (docs/source-kernels.md).
    if (o.rfind("-arch", 0) == 0 || o.rfind("--gpu-architecture", 0) == 0 ||
        o.rfind("--gpu-name", 0) == 0)
      r.bad(
          fmt::format("'{}' holds '{}': occtune sets the architecture from the device or "
                      "profile; remove it",
                      r.key("options"), o));
    // Each configuration must be a whole CUBIN that loads on its own, not LTO IR or
    // relocatable code waiting for a device link.
    for (const char* linking : {"-dlto", "--dlink-time-opt", "-rdc", "--relocatable-device-code"})
      if (o.rfind(linking, 0) == 0)
        r.bad(
            fmt::format("'{}' holds '{}': each configuration is compiled to a complete CUBIN "
                        "that loads on its own; remove it",
                        r.key("options"), o));
    for (auto& p : k.parameters)
      if (o == "-D" + p.name || o.rfind("-D" + p.name + "=", 0) == 0)
        r.bad(
            fmt::format("'{}' holds '{}', but {} is a parameter (occtune defines it per "
                        "configuration); remove it",
                        r.key("options"), o, p.name));
  }
}

Launch read_launch(const Reader& r, const std::set<std::string>& names) {
  Launch l;
  l.block = r.exprs("block", true, names, 3);
  l.grid = r.exprs("grid", true, with_geometry(names), 3);
  l.smem = r.expr("smem", false, with_geometry(names), "0");
  return l;
}

void read_args(const Reader& r, SourceKernel& k, const std::set<std::string>& problem_names) {
  const toml::array* a = r.array("args", true, "tables ([[kernel.args]])");
  if (a->empty()) r.bad(fmt::format("'{}' is empty; a kernel needs arguments", r.key("args")));
  const Bindings problem = k.problem_bindings();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const toml::node& n = *a->get(i);
    const std::string prefix = fmt::format("{}[{}].", r.key("args"), i);
    if (!n.is_table())
      r.bad(fmt::format("'{}' must be a table (line {})", prefix.substr(0, prefix.size() - 1),
                        r.line(n)));
    Reader ar(*n.as_table(), prefix, r.origin());
    ar.only({"name", "kind", "type", "count", "value"});
    Argument arg;
    arg.name = ar.string("name", true);
    if (!is_identifier(arg.name) || !seen.insert(arg.name).second)
      ar.bad(fmt::format("'{}' = '{}' must be a name, unique among the arguments", ar.key("name"),
                         arg.name));
    const std::string kind = ar.string("kind", true);
    if (kind == "input") {
      arg.kind = ArgKind::kInput;
    } else if (kind == "output") {
      arg.kind = ArgKind::kOutput;
    } else if (kind == "scalar") {
      arg.kind = ArgKind::kScalar;
    } else {
      ar.bad(fmt::format("'{}' = '{}'; use input, output or scalar", ar.key("kind"), kind));
    }
    arg.type = parse_type(ar, ar.string("type", false, "float32"), ar.key("type"));
    const bool scalar = arg.kind == ArgKind::kScalar;
    if (ar.node(scalar ? "count" : "value", false))
      ar.bad(fmt::format("'{}' does not apply to {} arguments; {} use '{}'",
                         ar.key(scalar ? "count" : "value"), kind, kind,
                         scalar ? "value" : "count"));
    const Expr e = ar.expr(scalar ? "value" : "count", true, problem_names);
    const std::int64_t v = evaluate_now(ar, e, problem);
    arg.amount = e;
    if (scalar) {
      arg.value = v;
      if (!fits(arg.type, v))
        ar.bad(fmt::format("'{}' = '{}' is {}, which a {} cannot hold", ar.key("value"), e.text(),
                           v, to_string(arg.type)));
    } else {
      arg.count = v;
      // 2^40 elements is far beyond any GPU's memory; the bound keeps byte sizes in range.
      if (v < 1 || v > (std::int64_t(1) << 40))
        ar.bad(fmt::format("'{}' = '{}' is {} elements; a buffer needs 1 to 2^40", ar.key("count"),
                           e.text(), v));
    }
    k.args.push_back(arg);
  }
  if (std::none_of(k.args.begin(), k.args.end(),
                   [](auto& x) { return x.kind == ArgKind::kOutput; }))
    r.bad(
        fmt::format("'{}' has no output; the check needs at least one buffer of kind "
                    "\"output\"",
                    r.key("args")));
}

void read_reference(const Reader& r, SourceKernel& k, const fs::path& base_dir,
                    const std::set<std::string>& problem_names) {
  const toml::table* t = r.table("reference", true);
  Reader rr(*t, r.key("reference."), r.origin());
  rr.only({"kernel", "file", "block", "grid", "smem", "tolerance"});
  Reference& ref = k.reference;
  ref.kernel = rr.string("kernel", false);
  const std::string file = rr.string("file", false);
  if (ref.kernel.empty() == file.empty())
    rr.bad(
        fmt::format("'{}' needs exactly one of 'kernel' (a reference kernel in the same "
                    "source) or 'file' (expected output)",
                    r.key("reference")));
  if (!ref.kernel.empty()) {
    if (ref.kernel.find_first_of("{}\"'\n;") != std::string::npos)
      rr.bad(
          fmt::format("'{}' = '{}' must be a plain kernel name (the reference has no "
                      "parameters)",
                      rr.key("kernel"), ref.kernel));
    ref.launch = read_launch(rr, problem_names);
  } else {
    for (auto key : {"block", "grid", "smem"})
      if (rr.node(key, false))
        rr.bad(fmt::format("'{}' applies only to a reference kernel, not to a file", rr.key(key)));
    ref.file = fs::path(file).is_absolute() ? fs::path(file) : base_dir / file;
    // The file holds every output buffer, so its size is known exactly.
    std::uintmax_t expected = 0;
    for (auto& arg : k.args)
      if (arg.kind == ArgKind::kOutput) expected += std::uintmax_t(arg.count) * size_of(arg.type);
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(ref.file, ec);
    if (ec || !fs::is_regular_file(ref.file))
      rr.bad(fmt::format("'{}' = '{}': no such file ({}); the path is relative to the job file",
                         rr.key("file"), file, ref.file.string()));
    if (size != expected)
      rr.bad(
          fmt::format("'{}' = '{}' has {} bytes, but the outputs need {} (their elements "
                      "times their sizes, in argument order); regenerate it for this problem",
                      rr.key("file"), file, size, expected));
  }
  if (const toml::node* n = rr.node("tolerance", false)) {
    if (!n->is_floating_point() && !n->is_integer())
      rr.bad(fmt::format("'{}' must be a number (line {})", rr.key("tolerance"), rr.line(*n)));
    ref.tolerance = *n->value<double>();
    if (!(ref.tolerance > 0 && ref.tolerance < 1))
      rr.bad(fmt::format("'{}' = {} must be in (0, 1) (a relative error, e.g. 1e-5)",
                         rr.key("tolerance"), ref.tolerance));
  }
}

SourceKernel read_kernel(const toml::table& t, std::size_t index, const std::string& origin,
                         const fs::path& base_dir) {
  const std::string prefix = fmt::format("kernel[{}].", index);
  Reader first(t, prefix, origin);
  first.only({"name", "source", "kernel", "problem", "parameters", "constraints", "options",
              "launch", "args", "reference"});
  SourceKernel k;
  k.name = first.string("name", true);
  if (!is_identifier(k.name))
    first.bad(fmt::format("'{}' = '{}' must be a name (letters, digits and _)", first.key("name"),
                          k.name));
  // From here on errors also say which kernel by name, clearer than the index alone.
  const std::string where = fmt::format("{} (kernel '{}')", origin, k.name);
  Reader r(t, prefix, where);
  const std::string source = r.string("source", true);
  k.source =
      fs::weakly_canonical(fs::path(source).is_absolute() ? fs::path(source) : base_dir / source);
  if (!fs::is_regular_file(k.source))
    r.bad(fmt::format("'{}' = '{}': no such file ({}); the path is relative to the job file",
                      r.key("source"), source, k.source.string()));
  k.kernel = r.string("kernel", true);

  std::set<std::string> declared;
  read_problem(r, k, declared);
  std::set<std::string> problem_names = declared;
  read_parameters(r, k, declared);
  check_name_expression(r, k);
  k.options = r.strings("options", false);
  check_options(r, k);
  if (const toml::array* a = r.array("constraints", false, "expressions")) {
    for (std::size_t i = 0; i < a->size(); ++i)
      k.constraints.push_back(
          r.expr_of(a->get(i), fmt::format("{}[{}]", r.key("constraints"), i), declared));
  }
  const toml::table* launch = r.table("launch", true);
  Reader lr(*launch, r.key("launch."), where);
  lr.only({"block", "grid", "smem"});
  k.launch = read_launch(lr, declared);
  read_args(r, k, problem_names);
  read_reference(r, k, base_dir, problem_names);
  return k;
}

}  // namespace

SourceJob parse_source_job(std::string_view toml_text, const std::string& origin,
                           const fs::path& base_dir) {
  toml::table root;
  try {
    root = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    fail(ExitCode::kUsage,
         fmt::format("job {}: malformed TOML at line {}, column {}: {}", origin,
                     e.source().begin.line, e.source().begin.column, e.description()));
  }
  // The other tables of a job file belong to parse_job_config (autotuner/core/job_config).
  Reader top(root, "", origin);
  top.only({"version", "kernel", "job", "measure", "search", "check"});
  const toml::node* version = top.node("version", true);
  if (!version->is_integer() || *version->value<std::int64_t>() != 1)
    top.bad(fmt::format("unsupported 'version' (line {}); this occtune reads version = 1",
                        top.line(*version)));
  const toml::array* kernels = top.array("kernel", true, "tables ([[kernel]])");
  SourceJob job;
  job.origin = origin;
  std::set<std::string> names;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    const toml::node& n = *kernels->get(i);
    if (!n.is_table()) top.bad(fmt::format("'kernel[{}]' must be a table ([[kernel]])", i));
    job.kernels.push_back(read_kernel(*n.as_table(), i, origin, base_dir));
    if (!names.insert(job.kernels.back().name).second)
      top.bad(fmt::format("two [[kernel]] tables are named '{}'; names must be unique",
                          job.kernels.back().name));
  }
  if (job.kernels.empty()) top.bad("'kernel' is empty; add a [[kernel]] table");
  return job;
}

SourceJob load_source_job(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(ExitCode::kUsage,
         fmt::format("cannot read the job file '{}'; check the path", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_source_job(text.str(), path.string(), fs::absolute(path).parent_path());
}

bool declares_source_kernels(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return toml::parse(text.str(), path.string()).contains("kernel");
  } catch (const toml::parse_error&) {
    return false;
  }
}

}  // namespace occtune::source
