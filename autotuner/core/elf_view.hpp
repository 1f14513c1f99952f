// A bounds-checked read-only view of a 64-bit little-endian ELF image in memory: its sections by
// name and its symbols. Enough to read a host program's .nv_fatbin and symbol table and a cubin's
// resource sections (docs/architecture.md, "Registers from the compiled code"). Host-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace occtune::elf {

struct Section {
  std::string_view name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  std::uint32_t link = 0, info = 0;
};

struct Symbol {
  std::string_view name;
  std::uint8_t info = 0, other = 0;
  std::uint16_t section = 0;
  std::uint64_t value = 0, size = 0;
  int type() const { return info & 0xf; }  // STT_FUNC = 2
};

inline constexpr std::uint32_t kSymtab = 2, kDynsym = 11, kNobits = 8;
inline constexpr std::uint16_t kExec = 2, kDyn = 3;

class View {
 public:
  // Throws std::runtime_error saying what is wrong when `image` is no ELF64 LSB object.
  explicit View(std::span<const std::byte> image);
  std::uint16_t type() const { return type_; }  // e_type: kExec, kDyn, ...
  const std::vector<Section>& sections() const { return sections_; }
  const Section* section(std::string_view name) const;
  // A section's bytes (empty for SHT_NOBITS); throws when they lie outside the image.
  std::span<const std::byte> bytes(const Section& s) const;
  // The symbols of the first section of type `table` (kSymtab or kDynsym); empty when none.
  std::vector<Symbol> symbols(std::uint32_t table) const;

 private:
  std::span<const std::byte> image_;
  std::uint16_t type_ = 0;
  std::vector<Section> sections_;
};

// Little-endian integer of width T at `offset`; throws when it lies outside `bytes`.
template <typename T>
T read(std::span<const std::byte> bytes, std::size_t offset);

}  // namespace occtune::elf
