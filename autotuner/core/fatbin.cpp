// Walks .nv_fatbin containers and reads cubins' resource sections. Every field used here was
// checked against nvcc 13.0's output and ptxas's own report (docs/architecture.md, "Registers
// from the compiled code"); a field that does not look as measured is an error, not a guess.
#include "autotuner/core/fatbin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "autotuner/core/decompress.hpp"
#include "autotuner/core/elf_view.hpp"

namespace occtune::fatbin {
namespace {

using elf::read;

constexpr std::uint32_t kMagic = 0xBA55ED50;
constexpr std::uint16_t kKindPtx = 1, kKindCubin = 2;
constexpr std::uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr std::uint64_t kMaxEntry = std::uint64_t(1) << 30;  // far above any real cubin

std::vector<std::byte> decompress(std::span<const std::byte> payload, std::uint64_t flags,
                                  std::uint32_t compressed, std::uint64_t original,
                                  std::size_t at) {
  if (!(flags & (kFlagLz4 | kFlagZstd))) return {payload.begin(), payload.end()};
  if (compressed > payload.size() || original == 0 || original > kMaxEntry)
    throw std::runtime_error(fmt::format(
        "entry at offset {}: compressed size {} or original size {} out of range", at,
        compressed, original));
  try {
    // A Zstandard frame, or a raw LZ4 block (no frame header), as nvcc writes them.
    return flags & kFlagZstd ? zstd_decompress(payload.first(compressed), original)
                             : lz4_decompress(payload.first(compressed), original);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("entry at offset {}: {}", at, e.what()));
  }
}

}  // namespace

std::vector<Entry> read_entries(std::span<const std::byte> section) {
  std::vector<Entry> entries;
  std::size_t at = 0;
  // Containers follow each other; the section may end in alignment padding.
  while (section.size() - at >= 16 && read<std::uint32_t>(section, at) == kMagic) {
    const auto header = read<std::uint16_t>(section, at + 6);
    const auto size = read<std::uint64_t>(section, at + 8);
    if (header < 16 || header > section.size() - at || size > section.size() - at - header)
      throw std::runtime_error(fmt::format("container at offset {} runs past the section", at));
    const std::size_t end = at + header + size;
    for (std::size_t e = at + header; e < end;) {
      if (end - e < 64)
        throw std::runtime_error(fmt::format("entry at offset {} runs past its container", e));
      const auto kind = read<std::uint16_t>(section, e);
      const auto entry_header = read<std::uint32_t>(section, e + 4);
      const auto payload_size = read<std::uint64_t>(section, e + 8);
      const auto compressed = read<std::uint32_t>(section, e + 16);
      const auto arch = read<std::uint32_t>(section, e + 28);
      const auto flags = read<std::uint64_t>(section, e + 40);
      const auto original = read<std::uint64_t>(section, e + 56);
      if (entry_header < 64 || entry_header > end - e || payload_size > end - e - entry_header)
        throw std::runtime_error(fmt::format("entry at offset {} runs past its container", e));
      Entry entry;
      entry.kind = kind == kKindCubin ? Entry::Kind::kCubin
                   : kind == kKindPtx ? Entry::Kind::kPtx
                                      : Entry::Kind::kOther;
      entry.arch = int(arch);
      entry.compression = flags & kFlagZstd ? "zstd" : flags & kFlagLz4 ? "lz4" : "none";
      // PTX is kept only as a fact (its arch), never read: it is not decompressed.
      if (entry.kind == Entry::Kind::kCubin) try {
          entry.data = decompress(section.subspan(e + entry_header, payload_size), flags,
                                  compressed, original, e);
        } catch (const std::runtime_error& error) {
          entry.error = error.what();
        }
      entries.push_back(std::move(entry));
      e += entry_header + payload_size;
    }
    at = end;
    while (at < section.size() && at % 8 && section[at] == std::byte{0}) ++at;
  }
  return entries;
}

namespace {

// .nv.info records: a format byte, an attribute byte, then by format nothing (1), a byte (2),
// a 16-bit value (3) or a 16-bit length and that many bytes (4).
constexpr std::uint8_t kFormatSized = 4;
constexpr std::uint8_t kAttrRegCount = 0x2f;     // {symbol index, registers}, in .nv.info
constexpr std::uint8_t kAttrNumBarriers = 0x4c;  // in .nv.info.<kernel>

template <typename F>
void each_record(std::span<const std::byte> info, F&& f) {
  for (std::size_t at = 0; at + 4 <= info.size();) {
    const auto format = read<std::uint8_t>(info, at);
    const auto attr = read<std::uint8_t>(info, at + 1);
    if (format == kFormatSized) {
      const auto length = read<std::uint16_t>(info, at + 2);
      if (length > info.size() - at - 4) throw std::runtime_error(".nv.info record runs past");
      f(attr, format, info.subspan(at + 4, length));
      at += 4 + length;
    } else {
      f(attr, format, info.subspan(at + 2, 2));
      at += 4;
    }
  }
}

// ptxas places the 1 KiB window the driver reserves (sm_90 on: cudaDevAttrReservedSharedMemory
// PerBlock) at the start of each kernel's .nv.shared section when the cubin marks it: a
// .nv.shared.reserved.N section (whole-program compilation) or, in a cubin nvlink made
// (-rdc), the .nv.reservedSmem.offset0 symbol alone. ptxas's report and the runtime leave it out.
constexpr int kReservedWindow = 1024;

}  // namespace

std::map<std::string, KernelResources, std::less<>> read_cubin_kernels(
    std::span<const std::byte> cubin) {
  const elf::View view(cubin);
  const auto symbols = view.symbols(elf::kSymtab);
  constexpr std::uint8_t kEntryFunction = 0x10;  // st_other of a __global__ function
  std::map<std::string, KernelResources, std::less<>> kernels;
  for (const auto& s : symbols)
    if (s.type() == 2 && (s.other & kEntryFunction)) kernels[std::string(s.name)];

  bool reserved = false;
  for (const auto& section : view.sections())
    if (section.name.starts_with(".nv.shared.reserved.")) reserved = true;
  for (const auto& s : symbols)
    if (s.name.starts_with(".nv.reservedSmem.")) reserved = true;

  if (const auto* info = view.section(".nv.info"))
    each_record(view.bytes(*info), [&](std::uint8_t attr, std::uint8_t format, auto value) {
      if (attr != kAttrRegCount || format != kFormatSized || value.size() < 8) return;
      const auto index = read<std::uint32_t>(value, 0);
      if (index >= symbols.size()) return;
      if (auto it = kernels.find(symbols[index].name); it != kernels.end())
        it->second.registers = int(read<std::uint32_t>(value, 4));
    });
  for (auto& [name, k] : kernels) {
    const std::string suffix = "." + name;
    if (const auto* text = view.section(".text" + suffix); text && k.registers == 0)
      k.registers = int(text->info >> 24);  // where cubins before sm_90 also keep it
    if (const auto* shared = view.section(".nv.shared" + suffix))
      k.static_smem = std::max(0, int(shared->size) - (reserved ? kReservedWindow : 0));
    if (const auto* info = view.section(".nv.info" + suffix))
      each_record(view.bytes(*info), [&](std::uint8_t attr, std::uint8_t format, auto value) {
        if (attr == kAttrNumBarriers && format != kFormatSized)
          k.barriers = int(read<std::uint16_t>(value, 0));
      });
  }
  return kernels;
}

}  // namespace occtune::fatbin
