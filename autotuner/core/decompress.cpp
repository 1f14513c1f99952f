// The two decompressors of decompress.hpp. The libraries' own headers give the signatures, and
// the shared objects are the SONAMEs of those headers' major versions, so the calls match the
// ABI they were compiled against. Loaded once per process.
#include "autotuner/core/decompress.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <mutex>
#include <stdexcept>
#include <string>

namespace occtune::fatbin {
namespace {

struct Codecs {
  decltype(&ZSTD_decompress) zstd_decompress = nullptr;
  decltype(&ZSTD_isError) zstd_is_error = nullptr;
  decltype(&ZSTD_getErrorName) zstd_error_name = nullptr;
  decltype(&LZ4_decompress_safe) lz4_decompress = nullptr;
  std::string zstd_missing, lz4_missing;  // why each could not be loaded
};

template <typename F>
void bind(void* handle, const char* name, F& out, std::string& missing) {
  out = handle ? reinterpret_cast<F>(::dlsym(handle, name)) : nullptr;
  if (handle && !out && missing.empty()) missing = fmt::format("it has no {}", name);
}

void* open(const std::string& soname, const char* package, std::string& missing) {
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    missing = fmt::format("cannot load {} ({}); install {} (apt-get install {})", soname,
                          why ? why : "unknown error", package, package);
  }
  return handle;
}

const Codecs& codecs() {
  static Codecs c;
  static std::once_flag once;
  std::call_once(once, [] {
    void* zstd = open(fmt::format("libzstd.so.{}", ZSTD_VERSION_MAJOR), "libzstd1",
                      c.zstd_missing);
    bind(zstd, "ZSTD_decompress", c.zstd_decompress, c.zstd_missing);
    bind(zstd, "ZSTD_isError", c.zstd_is_error, c.zstd_missing);
    bind(zstd, "ZSTD_getErrorName", c.zstd_error_name, c.zstd_missing);
    void* lz4 = open(fmt::format("liblz4.so.{}", LZ4_VERSION_MAJOR), "liblz4-1", c.lz4_missing);
    bind(lz4, "LZ4_decompress_safe", c.lz4_decompress, c.lz4_missing);
  });
  return c;
}

}  // namespace

std::vector<std::byte> zstd_decompress(std::span<const std::byte> frame, std::size_t original) {
  const Codecs& c = codecs();
  if (!c.zstd_missing.empty())
    throw std::runtime_error("a Zstandard-compressed entry, but " + c.zstd_missing);
  std::vector<std::byte> out(original);
  const std::size_t got = c.zstd_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (c.zstd_is_error(got))
    throw std::runtime_error(fmt::format("Zstandard: {}", c.zstd_error_name(got)));
  if (got != original)
    throw std::runtime_error(fmt::format("Zstandard: {} bytes, not the {} the header says", got,
                                         original));
  return out;
}

std::vector<std::byte> lz4_decompress(std::span<const std::byte> block, std::size_t original) {
  const Codecs& c = codecs();
  if (!c.lz4_missing.empty())
    throw std::runtime_error("an LZ4-compressed entry, but " + c.lz4_missing);
  std::vector<std::byte> out(original);
  const int got = c.lz4_decompress(reinterpret_cast<const char*>(block.data()),
                                   reinterpret_cast<char*>(out.data()), int(block.size()),
                                   int(original));
  if (got < 0 || std::size_t(got) != original)
    throw std::runtime_error(
        fmt::format("LZ4 block does not decompress to the {} bytes its header says", original));
  return out;
}

}  // namespace occtune::fatbin
