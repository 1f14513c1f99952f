// A plain aligned text table for stdout. Hand-written (about 40 lines) because Debian 12 ships
// no maintained C++ table library; it only pads columns, no colours, no box drawing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace occtune::output {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_align = {});
  void add_row(std::vector<std::string> row);
  void print(std::ostream& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace occtune::output
