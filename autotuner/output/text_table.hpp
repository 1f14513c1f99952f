// A plain aligned text table for stdout. Hand-written because Debian 12 ships no maintained C++
// table library; it only pads columns, no colours, no box drawing. Widths are display columns
// (UTF-8 aware: "×" is one column, CJK two), number columns are right-aligned whether or not
// the caller says so, and columns marked wide-only appear only with --wide.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace occtune::output {

// Terminal columns `text` takes: code points, with combining marks 0 and East Asian wide ones 2.
std::size_t display_width(std::string_view text);
// "12", "-3.5", "1.2e-05", "95%", "0.96x", "48 KiB", "1980 MHz": a number with an optional unit.
bool looks_numeric(std::string_view text);

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_align = {});
  void add_row(std::vector<std::string> row);
  // Columns (by header) left out unless print() is asked for every column.
  void wide_only(const std::vector<std::string>& headers);
  void print(std::ostream& out, bool wide = true) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<bool> wide_only_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace occtune::output
