// Zstandard and LZ4 decompression of a fatbin entry (autotuner/core/fatbin.cpp), with libzstd
// and liblz4 loaded on first use (dlopen): no occtune program needs them to start, and one that
// meets a compressed entry on a machine without them gets the reason, not a load failure.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace occtune::fatbin {

// `original` bytes from a Zstandard frame / a raw LZ4 block. Throws std::runtime_error saying
// what went wrong (the library missing, with the package to install, or bad data).
std::vector<std::byte> zstd_decompress(std::span<const std::byte> frame, std::size_t original);
std::vector<std::byte> lz4_decompress(std::span<const std::byte> block, std::size_t original);

}  // namespace occtune::fatbin
