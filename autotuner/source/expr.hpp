// The integer expression language of source-kernel job files (docs/source-kernels.md): launch
// geometry, shared memory, buffer sizes and constraints written as `ceil_div(nx, BX * UNROLL)`.
// Parsed once into an AST; names, constant division by zero and constant overflow are checked
// before anything compiles, and evaluation checks the rest with the configuration's values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

namespace occtune::source {

// Values of the names an expression may use (problem dimensions, parameters, threads...).
using Bindings = std::map<std::string, std::int64_t, std::less<>>;

class Expr {
 public:
  struct Node;

  Expr() = default;
  // `where` names the expression in errors (e.g. "kernel 'stencil': launch.grid[0]").
  // Throws Error(kUsage) on a syntax error, a division or modulo by a constant zero, or a
  // constant part that overflows 64 bits, naming `where`, the text and the column.
  static Expr parse(std::string_view text, std::string where);

  // Throws Error(kUsage) naming the first name not in `allowed` and listing `allowed`.
  void check_names(const std::set<std::string>& allowed) const;
  // Throws Error(kUsage) on division or modulo by zero and on 64-bit overflow, naming `where`,
  // the text, the column and the values of the names used. A missing binding is a usage error
  // too (check_names should have caught it).
  std::int64_t eval(const Bindings& values) const;

  const std::string& text() const { return text_; }
  const std::string& where() const { return where_; }
  // Every name the expression reads (not the functions it calls).
  const std::set<std::string>& names() const { return names_; }
  bool empty() const { return root_ == nullptr; }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
  std::string where_;
  std::set<std::string> names_;
};

// The functions the language knows, for documentation and error messages: min, max, ceil_div.
std::string_view expr_functions();

}  // namespace occtune::source
