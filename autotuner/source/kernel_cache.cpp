// The compiled-kernel cache (kernel_cache.hpp). XXH3 from Debian's libxxhash-dev, used
// header-only (XXH_INLINE_ALL) so that neither libocctune nor the GPU machines need another
// shared object; the key guards against change, not against an attacker (whoever can write the
// cache directory can write any entry), so a 128-bit non-cryptographic hash is enough.
#include "autotuner/source/kernel_cache.hpp"

#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "autotuner/core/cache_dir.hpp"

namespace occtune::source {
namespace fs = std::filesystem;
namespace {

constexpr const char* kMagic = "occtune-kernel-cache 1";

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

class Hasher {
 public:
  Hasher() { XXH3_128bits_reset(&state_); }
  // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
  Hasher& add(std::string_view s) {
    const std::uint64_t n = s.size();
    XXH3_128bits_update(&state_, &n, sizeof n);
    XXH3_128bits_update(&state_, s.data(), s.size());
    return *this;
  }
  std::string hex() {
    const XXH128_hash_t h = XXH3_128bits_digest(&state_);
    return hex64(h.high64) + hex64(h.low64);
  }

 private:
  XXH3_state_t state_;
};

void scan(const std::string& text, const fs::path& including_dir,
          const std::vector<fs::path>& include_dirs, std::set<fs::path>& seen,
          std::vector<IncludedFile>& out) {
  static const std::regex quoted(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, quoted)) continue;
    IncludedFile f;
    f.spelled = m[1].str();
    std::vector<fs::path> dirs{including_dir};
    dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
    for (auto& d : dirs) {
      std::error_code ec;
      const fs::path candidate = d / f.spelled;
      if (fs::is_regular_file(candidate, ec)) {
        f.path = fs::weakly_canonical(candidate, ec);
        break;
      }
    }
    if (f.path.empty()) {
      out.push_back(std::move(f));  // NVRTC's built-in headers land here too; its version keys them
      continue;
    }
    if (!seen.insert(f.path).second || seen.size() > 10000) continue;
    f.content = read_file(f.path).value_or("");
    const fs::path dir = f.path.parent_path();
    const std::string content = f.content;
    out.push_back(std::move(f));
    scan(content, dir, include_dirs, seen, out);
  }
}

// The -I directories of the options (-Idir, -I dir, --include-path=dir).
std::vector<fs::path> include_dirs_of(const std::vector<std::string>& options) {
  std::vector<fs::path> out;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    if (o == "-I" && i + 1 < options.size()) {
      out.emplace_back(options[++i]);
    } else if (o.rfind("-I", 0) == 0 && o.size() > 2) {
      out.emplace_back(o.substr(2));
    } else if (o.rfind("--include-path=", 0) == 0) {
      out.emplace_back(o.substr(15));
    }
  }
  return out;
}

}  // namespace

std::vector<IncludedFile> quoted_includes(const std::string& source_text,
                                          const fs::path& source_path,
                                          const std::vector<std::string>& options) {
  std::vector<IncludedFile> out;
  std::set<fs::path> seen{fs::weakly_canonical(source_path)};
  scan(source_text, source_path.parent_path(), include_dirs_of(options), seen, out);
  return out;
}

std::string cache_key(const CompileRequest& request, const std::vector<IncludedFile>& includes,
                      const std::string& nvrtc_version) {
  Hasher h;
  h.add(kMagic).add(nvrtc_version).add(request.arch).add(request.source_text);
  for (auto& o : nvrtc_options(request)) h.add("option").add(o);
  for (auto& n : request.name_expressions) h.add("name").add(n);
  // The spelling and the content: a file's bytes decide, wherever it was found.
  for (auto& f : includes)
    h.add("include").add(f.spelled).add(f.path.empty() ? "(not found)" : "found").add(f.content);
  return h.hex();
}

fs::path KernelCache::default_dir() {
  return occtune_cache_dir() / "kernels";
}

fs::path KernelCache::entry_path(const std::string& key) const { return dir_ / (key + ".cubin"); }

// Entry: a text header, an empty line, the CUBIN. The header repeats the key and the NVRTC
// version and carries the CUBIN's size and XXH3-64, so a truncated, damaged or misplaced file
// fails a check instead of being loaded.
KernelCache::Lookup KernelCache::load(const std::string& key,
                                      const std::string& nvrtc_version) const {
  Lookup out;
  const auto data = read_file(entry_path(key));
  if (!data) return out;
  auto reject = [&](const std::string& why) {
    out.rejected = fmt::format("{}: {}", entry_path(key).string(), why);
    return out;
  };
  const std::size_t split = data->find("\n\n");
  if (split == std::string::npos) return reject("no header");
  std::istringstream header(data->substr(0, split));
  std::string line;
  if (!std::getline(header, line) || line != kMagic) return reject("not a cache entry");
  CompiledProgram p;
  std::size_t kernels = 0, cubin_bytes = 0;
  std::string checksum;
  bool key_ok = false, nvrtc_ok = false;
  while (std::getline(header, line)) {
    std::istringstream fields(line);
    std::string field;
    fields >> field;
    if (field == "key") {
      std::string v;
      fields >> v;
      key_ok = v == key;
    } else if (field == "nvrtc") {
      std::string v;
      fields >> v;
      nvrtc_ok = v == nvrtc_version;
    } else if (field == "compile_seconds") {
      fields >> p.compile_seconds;
    } else if (field == "kernels") {
      fields >> kernels;
    } else if (field == "kernel") {
      KernelResources k;
      fields >> k.lowered_name >> k.registers >> k.barriers >> k.static_smem >> k.stack_bytes >>
          k.spill_stores >> k.spill_loads >> std::ws;
      if (!fields) return reject("a malformed kernel line");
      std::getline(fields, k.name_expression);
      if (k.name_expression.empty() || k.registers <= 0) return reject("a malformed kernel line");
      p.kernels.push_back(std::move(k));
    } else if (field == "cubin_bytes") {
      fields >> cubin_bytes;
    } else if (field == "cubin_xxh3") {
      fields >> checksum;
    } else {
      return reject(fmt::format("an unknown header line '{}'", line));
    }
  }
  if (!key_ok) return reject("another key");
  if (!nvrtc_ok) return reject("another NVRTC version");
  if (kernels == 0 || p.kernels.size() != kernels) return reject("a wrong kernel count");
  p.cubin = data->substr(split + 2);
  if (p.cubin.size() != cubin_bytes) return reject("a truncated or extended CUBIN");
  if (checksum != hex64(XXH3_64bits(p.cubin.data(), p.cubin.size())))
    return reject("a CUBIN checksum mismatch");
  out.program = std::move(p);
  return out;
}

std::optional<std::string> KernelCache::store(const std::string& key,
                                              const std::string& nvrtc_version,
                                              const CompiledProgram& p) const {
  if (p.status != CompileStatus::kOk) return std::nullopt;
  std::string text = fmt::format("{}\nkey {}\nnvrtc {}\ncompile_seconds {}\nkernels {}\n", kMagic,
                                 key, nvrtc_version, p.compile_seconds, p.kernels.size());
  for (auto& k : p.kernels)
    text +=
        fmt::format("kernel {} {} {} {} {} {} {} {}\n", k.lowered_name, k.registers, k.barriers,
                    k.static_smem, k.stack_bytes, k.spill_stores, k.spill_loads, k.name_expression);
  text += fmt::format("cubin_bytes {}\ncubin_xxh3 {}\n\n", p.cubin.size(),
                      hex64(XXH3_64bits(p.cubin.data(), p.cubin.size())));
  text += p.cubin;

  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec)
    return fmt::format("cannot create the kernel cache directory {}: {}", dir_.string(),
                       ec.message());
  // A unique temporary name per process and call: concurrent writers of one entry each rename a
  // complete file, and the last one wins.
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = dir_ / fmt::format(".{}.tmp.{}.{}", key, ::getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      return fmt::format("cannot write the kernel cache entry {}", tmp.string());
    }
  }
  fs::rename(tmp, entry_path(key), ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return fmt::format("cannot move {} into place: {}", tmp.string(), ec.message());
  }
  return std::nullopt;
}

}  // namespace occtune::source
