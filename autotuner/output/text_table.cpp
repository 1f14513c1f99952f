#include "autotuner/output/text_table.hpp"

#include <algorithm>
#include <cctype>

namespace occtune::output {
namespace {

// Decodes one UTF-8 sequence at text[i]; malformed bytes count as one column each.
char32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto b = static_cast<unsigned char>(text[i]);
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  char32_t cp = extra == 3 ? b & 0x07u : extra == 2 ? b & 0x0Fu : extra == 1 ? b & 0x1Fu : b;
  ++i;
  for (; extra > 0 && i < text.size(); --extra, ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (c & 0x3Fu);
  }
  return cp;
}

bool combining(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B;
}

bool wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1FAFF) ||
         (c >= 0x20000 && c <= 0x3FFFD);
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = next_code_point(text, i);
    width += combining(c) ? 0 : wide(c) ? 2 : 1;
  }
  return width;
}

bool looks_numeric(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  const std::size_t digits_from = i;
  bool digit = false;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) {
    digit |= t[i] != '.';
    ++i;
  }
  if (!digit || i == digits_from) return false;
  if (i + 1 < t.size() && (t[i] == 'e' || t[i] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(t[i + 1])) || t[i + 1] == '-' || t[i + 1] == '+')) {
    i += 2;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  }
  std::string_view unit = t.substr(i);
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  for (std::string_view u : {"", "%", "x", "×", "ms", "s", "B", "KiB", "MiB", "GiB", "MHz"})
    if (unit == u) return true;
  return false;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_align)
    : header_(std::move(header)), right_(std::move(right_align)) {
  right_.resize(header_.size(), false);
  wide_only_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

void TextTable::wide_only(const std::vector<std::string>& headers) {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (std::find(headers.begin(), headers.end(), header_[i]) != headers.end())
      wide_only_[i] = true;
}

void TextTable::print(std::ostream& out, bool wide_columns) const {
  const std::size_t n = header_.size();
  std::vector<std::size_t> width(n);
  std::vector<bool> right = right_;
  for (std::size_t i = 0; i < n; ++i) {
    width[i] = display_width(header_[i]);
    // A column of numbers (and "-" for none) is right-aligned, so digits line up.
    bool numeric = false, all = true;
    for (auto& row : rows_) {
      width[i] = std::max(width[i], display_width(row[i]));
      if (row[i].empty() || row[i] == "-") continue;
      numeric = true;
      all &= looks_numeric(row[i]);
    }
    if (numeric && all) right[i] = true;
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    bool first = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (wide_only_[i] && !wide_columns) continue;
      const std::string pad(width[i] - display_width(cells[i]), ' ');
      if (!first) text += "  ";
      first = false;
      text += right[i] ? pad + cells[i] : cells[i] + pad;
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
