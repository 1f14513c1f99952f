#include "autotuner/output/text_table.hpp"

#include <algorithm>

namespace occtune::output {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_align)
    : header_(std::move(header)), right_(std::move(right_align)) {
  right_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

void TextTable::print(std::ostream& out) const {
  std::vector<size_t> width(header_.size());
  for (size_t i = 0; i < header_.size(); ++i) width[i] = header_[i].size();
  for (auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(width[i] - cells[i].size(), ' ');
      text += right_[i] ? pad + cells[i] : cells[i] + pad;
      if (i + 1 < cells.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line(header_);
  std::vector<std::string> rule;
  for (auto w : width) rule.emplace_back(w, '-');
  line(rule);
  for (auto& row : rows_) line(row);
}

}  // namespace occtune::output
