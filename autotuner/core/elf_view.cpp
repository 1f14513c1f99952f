// The ELF64 view of elf_view.hpp: every offset is checked against the image, so a truncated or
// foreign file is an exception with the reason, never a read past the end.
#include "autotuner/core/elf_view.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace occtune::elf {

template <typename T>
T read(std::span<const std::byte> bytes, std::size_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    throw std::runtime_error(
        fmt::format("truncated: {} bytes at offset {} of {}", sizeof(T), offset, bytes.size()));
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));  // x86-64 and aarch64: little-endian
  return value;
}
template std::uint8_t read<std::uint8_t>(std::span<const std::byte>, std::size_t);
template std::uint16_t read<std::uint16_t>(std::span<const std::byte>, std::size_t);
template std::uint32_t read<std::uint32_t>(std::span<const std::byte>, std::size_t);
template std::uint64_t read<std::uint64_t>(std::span<const std::byte>, std::size_t);

namespace {

std::string_view string_at(std::span<const std::byte> table, std::size_t offset) {
  if (offset >= table.size()) throw std::runtime_error("string offset outside its table");
  const char* begin = reinterpret_cast<const char*>(table.data()) + offset;
  const void* end = std::memchr(begin, 0, table.size() - offset);
  if (!end) throw std::runtime_error("unterminated string in a string table");
  return {begin, std::size_t(static_cast<const char*>(end) - begin)};
}

}  // namespace

View::View(std::span<const std::byte> image) : image_(image) {
  if (image.size() < 64 || std::memcmp(image.data(), "\x7f" "ELF", 4) != 0)
    throw std::runtime_error("not an ELF file");
  if (read<std::uint8_t>(image, 4) != 2 || read<std::uint8_t>(image, 5) != 1)
    throw std::runtime_error("not a 64-bit little-endian ELF file");
  type_ = read<std::uint16_t>(image, 0x10);
  const auto shoff = read<std::uint64_t>(image, 0x28);
  const auto shentsize = read<std::uint16_t>(image, 0x3a);
  const auto shnum = read<std::uint16_t>(image, 0x3c);
  const auto shstrndx = read<std::uint16_t>(image, 0x3e);
  if (shnum == 0) return;
  if (shentsize < 64 || shstrndx >= shnum)
    throw std::runtime_error("malformed section header table");
  sections_.resize(shnum);
  std::vector<std::uint32_t> names(shnum);
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t at = shoff + i * shentsize;
    Section& s = sections_[i];
    names[i] = read<std::uint32_t>(image, at);
    s.type = read<std::uint32_t>(image, at + 4);
    s.flags = read<std::uint64_t>(image, at + 8);
    s.addr = read<std::uint64_t>(image, at + 16);
    s.offset = read<std::uint64_t>(image, at + 24);
    s.size = read<std::uint64_t>(image, at + 32);
    s.link = read<std::uint32_t>(image, at + 40);
    s.info = read<std::uint32_t>(image, at + 44);
  }
  const auto strings = bytes(sections_[shstrndx]);
  for (std::size_t i = 0; i < shnum; ++i) sections_[i].name = string_at(strings, names[i]);
}

const Section* View::section(std::string_view name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const std::byte> View::bytes(const Section& s) const {
  if (s.type == kNobits) return {};
  if (s.offset > image_.size() || image_.size() - s.offset < s.size)
    throw std::runtime_error(fmt::format("section {} lies outside the file", s.name));
  return image_.subspan(s.offset, s.size);
}

std::vector<Symbol> View::symbols(std::uint32_t table) const {
  std::vector<Symbol> out;
  for (const Section& s : sections_) {
    if (s.type != table) continue;
    if (s.link >= sections_.size()) throw std::runtime_error("symbol table names no strings");
    const auto entries = bytes(s);
    const auto strings = bytes(sections_[s.link]);
    constexpr std::size_t kEntry = 24;
    out.reserve(entries.size() / kEntry);
    for (std::size_t at = 0; at + kEntry <= entries.size(); at += kEntry) {
      Symbol sym;
      sym.name = string_at(strings, read<std::uint32_t>(entries, at));
      sym.info = read<std::uint8_t>(entries, at + 4);
      sym.other = read<std::uint8_t>(entries, at + 5);
      sym.section = read<std::uint16_t>(entries, at + 6);
      sym.value = read<std::uint64_t>(entries, at + 8);
      sym.size = read<std::uint64_t>(entries, at + 16);
      out.push_back(sym);
    }
    break;
  }
  return out;
}

}  // namespace occtune::elf
