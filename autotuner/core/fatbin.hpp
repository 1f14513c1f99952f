// The CUDA fat binary that nvcc links into a program's .nv_fatbin section: its containers and
// entries (a cubin per sm_ architecture, PTX per compute_ one), compressed entries decompressed
// (LZ4 or Zstandard), and the resources ptxas gave each kernel of a cubin. The layout facts and
// how they were measured: docs/architecture.md, "Registers from the compiled code". Host-only.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace occtune::fatbin {

struct Entry {
  enum class Kind { kPtx, kCubin, kOther };
  Kind kind = Kind::kOther;
  int arch = 0;                 // 90 for sm_90 (a cubin) or compute_90 (PTX)
  std::string_view compression;  // how it was stored: "none", "lz4" or "zstd"
  std::vector<std::byte> data;  // a cubin's, decompressed (PTX is not kept)
  std::string error;             // why `data` could not be decompressed; empty when it was
};

// Every entry of every container in `section` (a .nv_fatbin section's bytes, containers back
// to back). Throws std::runtime_error naming the offset and what is wrong for a malformed
// container or entry header; a payload that does not decompress is that entry's `error`, so
// the other entries stay readable.
std::vector<Entry> read_entries(std::span<const std::byte> section);

struct KernelResources {
  int registers = 0;
  int static_smem = 0;  // bytes, as ptxas reports them (the reserved window left out)
  int barriers = 0;
};

// The entry kernels of a cubin by mangled name. Throws std::runtime_error when it is no cubin.
std::map<std::string, KernelResources, std::less<>> read_cubin_kernels(
    std::span<const std::byte> cubin);

}  // namespace occtune::fatbin
