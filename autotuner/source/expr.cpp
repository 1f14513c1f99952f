// A hand-written recursive-descent parser and checked evaluator for the expression language.
// Written by hand rather than taken from a library: the grammar is a dozen rules, the errors
// must name the job-file key, column and values in occtune's words, and overflow must be
// checked on every operation; no Debian parser or expression library does all three with
// less code or fewer ways to go wrong (docs/source-kernels.md has the language).
#include "autotuner/source/expr.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <vector>

#include "autotuner/core/error.hpp"

namespace occtune::source {

enum class Op {
  kNumber,
  kName,
  kNeg,
  kNot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,
  kNe,
  kAnd,
  kOr,
  kMin,
  kMax,
  kCeilDiv
};

struct Expr::Node {
  Op op;
  int column;  // 1-based, where the operator, name or number starts
  std::int64_t number = 0;
  std::string name;
  std::shared_ptr<const Node> a, b;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;

std::shared_ptr<Expr::Node> make(Op op, int column, NodePtr a = nullptr, NodePtr b = nullptr) {
  auto n = std::make_shared<Expr::Node>();
  n->op = op;
  n->column = column;
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}

struct Function {
  std::string_view name;
  Op op;
};
constexpr Function kFunctions[] = {
    {"min", Op::kMin}, {"max", Op::kMax}, {"ceil_div", Op::kCeilDiv}};

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

class Parser {
 public:
  Parser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  NodePtr parse_all() {
    skip();
    if (pos_ == text_.size()) error(pos_, "the expression is empty");
    NodePtr n = parse_or();
    if (pos_ != text_.size()) error(pos_, fmt::format("unexpected '{}'", text_.substr(pos_, 1)));
    return n;
  }

 private:
  [[noreturn]] void error(std::size_t at, const std::string& what) const {
    fail(ExitCode::kUsage,
         fmt::format("{} = '{}': syntax error at column {}: {}", where_, text_, at + 1, what));
  }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  // Consumes `token` (and following blanks) when it comes next; "<" does not match "<=".
  bool accept(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    const std::size_t end = pos_ + token.size();
    if (token.size() == 1 && end < text_.size() && text_[end] == '=' &&
        (token == "<" || token == ">" || token == "!"))
      return false;
    pos_ = end;
    skip();
    return true;
  }
  void expect(std::string_view token, std::string_view context) {
    if (!accept(token)) error(pos_, fmt::format("expected '{}' {}", token, context));
  }

  // One left-associative level: operand (op operand)*.
  template <class Next>
  NodePtr level(std::initializer_list<std::pair<std::string_view, Op>> ops, Next next) {
    NodePtr left = (this->*next)();
    for (;;) {
      bool matched = false;
      for (auto& [token, op] : ops) {
        const auto at = static_cast<int>(pos_) + 1;
        if (accept(token)) {
          left = make(op, at, left, (this->*next)());
          matched = true;
          break;
        }
      }
      if (!matched) return left;
    }
  }
  NodePtr parse_or() { return level({{"||", Op::kOr}}, &Parser::parse_and); }
  NodePtr parse_and() { return level({{"&&", Op::kAnd}}, &Parser::parse_equality); }
  NodePtr parse_equality() {
    return level({{"==", Op::kEq}, {"!=", Op::kNe}}, &Parser::parse_relational);
  }
  NodePtr parse_relational() {
    return level({{"<=", Op::kLe}, {">=", Op::kGe}, {"<", Op::kLt}, {">", Op::kGt}},
                 &Parser::parse_additive);
  }
  NodePtr parse_additive() {
    return level({{"+", Op::kAdd}, {"-", Op::kSub}}, &Parser::parse_term);
  }
  NodePtr parse_term() {
    return level({{"*", Op::kMul}, {"/", Op::kDiv}, {"%", Op::kMod}}, &Parser::parse_unary);
  }
  NodePtr parse_unary() {
    const auto at = static_cast<int>(pos_) + 1;
    if (++depth_ > 200) error(pos_, "nested too deeply (more than 200 levels)");
    NodePtr n;
    if (accept("-")) {
      n = make(Op::kNeg, at, parse_unary());
    } else if (accept("!")) {
      n = make(Op::kNot, at, parse_unary());
    } else if (accept("+")) {
      n = parse_unary();
    } else {
      n = parse_primary();
    }
    --depth_;
    return n;
  }
  NodePtr parse_primary() {
    const std::size_t start = pos_;
    const auto at = static_cast<int>(start) + 1;
    if (pos_ == text_.size()) error(pos_, "the expression ends where a value is expected");
    const char c = text_[pos_];
    if (c >= '0' && c <= '9') {
      while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
      const auto digits = text_.substr(start, pos_ - start);
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec == std::errc::result_out_of_range)
        error(start, fmt::format("the number {} does not fit in 64 bits", digits));
      if (ec != std::errc() || end != digits.data() + digits.size())
        error(start, fmt::format("'{}' is not a decimal integer", digits));
      skip();
      auto n = make(Op::kNumber, at);
      n->number = value;
      return n;
    }
    if (name_start(c)) {
      while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
      std::string name(text_.substr(start, pos_ - start));
      skip();
      if (accept("(")) return parse_call(name, start);
      auto n = make(Op::kName, at);
      n->name = std::move(name);
      return n;
    }
    if (accept("(")) {
      NodePtr n = parse_or();
      expect(")", fmt::format("to close the '(' at column {}", at));
      return n;
    }
    error(pos_, fmt::format("unexpected '{}' where a number, name or '(' is expected",
                            text_.substr(pos_, 1)));
  }
  NodePtr parse_call(const std::string& name, std::size_t start) {
    for (auto& f : kFunctions) {
      if (f.name != name) continue;
      NodePtr a = parse_or();
      expect(",", fmt::format("after the first argument of {}() (it takes two)", name));
      NodePtr b = parse_or();
      expect(")", fmt::format("after the second argument of {}() (it takes two)", name));
      return make(f.op, static_cast<int>(start) + 1, a, b);
    }
    error(start,
          fmt::format("unknown function '{}'; the functions are {}", name, expr_functions()));
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

void collect_names(const Expr::Node* n, std::set<std::string>& out) {
  if (!n) return;
  if (n->op == Op::kName) out.insert(n->name);
  collect_names(n->a.get(), out);
  collect_names(n->b.get(), out);
}

bool is_constant(const Expr::Node* n) {
  if (!n) return true;
  return n->op != Op::kName && is_constant(n->a.get()) && is_constant(n->b.get());
}

struct Evaluator {
  const Bindings& values;
  const std::string& text;
  const std::string& where;
  const std::set<std::string>& names;

  [[noreturn]] void error(const Expr::Node* n, const std::string& what) const {
    std::string with;
    for (auto& name : names) {
      auto it = values.find(name);
      if (it != values.end())
        with += fmt::format("{}{}={}", with.empty() ? " (with " : ", ", name, it->second);
    }
    if (!with.empty()) with += ")";
    fail(ExitCode::kUsage, fmt::format("{} = '{}': {} at column {}{}; change the expression or "
                                       "the values it uses",
                                       where, text, what, n->column, with));
  }
  // `op` is one of __builtin_{add,sub,mul}_overflow; the result is read after it ran.
  template <class Op2>
  std::int64_t checked(const Expr::Node* n, Op2 op, std::int64_t a, std::int64_t b) const {
    std::int64_t r = 0;
    if (op(a, b, &r)) error(n, "the result overflows a 64-bit integer");
    return r;
  }

  std::int64_t eval(const Expr::Node* n) const {
    const auto add = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
      return __builtin_add_overflow(a, b, r);
    };
    const auto sub = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
      return __builtin_sub_overflow(a, b, r);
    };
    const auto mul = [](std::int64_t a, std::int64_t b, std::int64_t* r) {
      return __builtin_mul_overflow(a, b, r);
    };
    switch (n->op) {
      case Op::kNumber:
        return n->number;
      case Op::kName: {
        auto it = values.find(n->name);
        if (it == values.end()) error(n, fmt::format("'{}' has no value here", n->name));
        return it->second;
      }
      case Op::kNeg:
        return checked(n, sub, 0, eval(n->a.get()));
      case Op::kNot:
        return eval(n->a.get()) == 0 ? 1 : 0;
      // && and || evaluate their right side only when needed, as in C, so a constraint such as
      // "BY > 0 && nx / BY > 4" is safe.
      case Op::kAnd:
        return eval(n->a.get()) != 0 && eval(n->b.get()) != 0 ? 1 : 0;
      case Op::kOr:
        return eval(n->a.get()) != 0 || eval(n->b.get()) != 0 ? 1 : 0;
      default:
        break;
    }
    const std::int64_t a = eval(n->a.get());
    const std::int64_t b = eval(n->b.get());
    const bool divides = n->op == Op::kDiv || n->op == Op::kMod || n->op == Op::kCeilDiv;
    if (divides && b == 0) error(n, n->op == Op::kMod ? "modulo by zero" : "division by zero");
    if (divides && b == -1 && a == std::numeric_limits<std::int64_t>::min())
      error(n, "the result overflows a 64-bit integer");
    switch (n->op) {
      case Op::kAdd:
        return checked(n, add, a, b);
      case Op::kSub:
        return checked(n, sub, a, b);
      case Op::kMul:
        return checked(n, mul, a, b);
      case Op::kDiv:
        return a / b;  // truncates toward zero, as C
      case Op::kMod:
        return a % b;  // takes the sign of a, as C
      case Op::kCeilDiv:
        return a / b + ((a % b != 0 && (a < 0) == (b < 0)) ? 1 : 0);
      case Op::kLt:
        return a < b;
      case Op::kLe:
        return a <= b;
      case Op::kGt:
        return a > b;
      case Op::kGe:
        return a >= b;
      case Op::kEq:
        return a == b;
      case Op::kNe:
        return a != b;
      case Op::kMin:
        return std::min(a, b);
      case Op::kMax:
        return std::max(a, b);
      default:
        error(n, "internal error: unknown operator");
    }
  }
};

// Every part without names is evaluated now, so `x / 0`, `x % (4 - 4)` and
// `9223372036854775807 + 1` are refused at parse time, before any configuration exists.
void check_constant_parts(const Expr::Node* n, const Evaluator& ev) {
  if (!n) return;
  if (is_constant(n)) {
    ev.eval(n);
    return;
  }
  check_constant_parts(n->a.get(), ev);
  check_constant_parts(n->b.get(), ev);
  const bool divides = n->op == Op::kDiv || n->op == Op::kMod || n->op == Op::kCeilDiv;
  if (divides && is_constant(n->b.get()) && ev.eval(n->b.get()) == 0)
    ev.error(n, n->op == Op::kMod ? "modulo by zero" : "division by zero");
}

}  // namespace

std::string_view expr_functions() { return "min(a, b), max(a, b), ceil_div(a, b)"; }

Expr Expr::parse(std::string_view text, std::string where) {
  Expr e;
  e.text_ = std::string(text);
  e.where_ = std::move(where);
  e.root_ = Parser(e.text_, e.where_).parse_all();
  collect_names(e.root_.get(), e.names_);
  const Bindings none;
  check_constant_parts(e.root_.get(), Evaluator{none, e.text_, e.where_, e.names_});
  return e;
}

void Expr::check_names(const std::set<std::string>& allowed) const {
  for (auto& name : names_) {
    if (allowed.count(name)) continue;
    std::string list;
    for (auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(ExitCode::kUsage,
         fmt::format("{} = '{}': unknown name '{}'; the names allowed here are: {} (declare a "
                     "parameter in [kernel.parameters] or a dimension in 'problem')",
                     where_, text_, name, list.empty() ? "none" : list));
  }
}

std::int64_t Expr::eval(const Bindings& values) const {
  if (!root_) fail(ExitCode::kUsage, fmt::format("{}: the expression is empty", where_));
  return Evaluator{values, text_, where_, names_}.eval(root_.get());
}

}  // namespace occtune::source
