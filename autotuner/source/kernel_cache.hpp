// The on-disk cache of compiled source kernels (docs/source-kernels.md, "The compiled-kernel
// cache"): one file per program, named by a hash of everything that can change the code (the
// source and the files it includes, options, name expressions, architecture, NVRTC version).
// Writes are atomic (temporary file + rename); an entry that fails any check is a miss.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/source/nvrtc_compiler.hpp"

namespace occtune::source {

// A file a program includes with #include "...", found by the rule of docs/source-kernels.md:
// relative to the including file's directory, then each -I directory of the options in order.
struct IncludedFile {
  std::string spelled;         // as written in the #include
  std::filesystem::path path;  // empty when not found (NVRTC will report it if it matters)
  std::string content;
};

// Every quoted include reachable from `source_text`, depth first, each file once. Conditional
// compilation is ignored, so a file included under a false #if is still hashed: that costs at
// most a needless miss, never a stale hit.
std::vector<IncludedFile> quoted_includes(const std::string& source_text,
                                          const std::filesystem::path& source_path,
                                          const std::vector<std::string>& options);

// The entry's name: 32 hex digits of XXH3-128 over the request (source, includes, options with
// occtune's own, name expressions, architecture) and the NVRTC version.
std::string cache_key(const CompileRequest& request, const std::vector<IncludedFile>& includes,
                      const std::string& nvrtc_version);

class KernelCache {
 public:
  explicit KernelCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // occtune_cache_dir()/kernels: $XDG_CACHE_HOME/occtune/kernels (an absolute XDG_CACHE_HOME
  // only, as the store's default), else ~/.cache/occtune/kernels. OCCTUNE_KERNEL_CACHE is the
  // CLI's to resolve (occtune compile: --cache-dir > OCCTUNE_KERNEL_CACHE > this).
  static std::filesystem::path default_dir();

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_path(const std::string& key) const;

  struct Lookup {
    std::optional<CompiledProgram> program;  // a sound entry
    std::string rejected;                    // why an existing entry was not used (corrupt)
  };
  // A missing entry is an empty Lookup; a damaged or foreign one names the check it failed.
  Lookup load(const std::string& key, const std::string& nvrtc_version) const;
  // Only `ok` programs are stored (a failure is recompiled, so its log is always current).
  // Returns an error text instead of throwing: a cache that cannot be written slows the next
  // run down but must not stop this one.
  std::optional<std::string> store(const std::string& key, const std::string& nvrtc_version,
                                   const CompiledProgram& program) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace occtune::source
