// compiled_resources(): which loaded object holds a function (dl_iterate_phdr), its mangled name
// from the object's symbol table (the host function nvcc generates bears the device kernel's
// mangled name, up to a linkage mark), and that kernel's entry in the object's cubins. One index
// per object, built on first use.
#include "autotuner/core/compiled_resources.hpp"

#include <fmt/format.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

#include "autotuner/core/elf_view.hpp"
#include "autotuner/core/fatbin.hpp"

namespace occtune {
namespace {

struct LoadedObject {
  std::string path;      // what to open
  std::string name;      // what to show (the executable's real path, not /proc/self/exe)
  std::uintptr_t bias = 0;
};

std::optional<LoadedObject> object_of(const void* function) {
  struct Search {
    std::uintptr_t address;
    std::optional<LoadedObject> found;
  } search{reinterpret_cast<std::uintptr_t>(function), std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type != PT_LOAD || s->address < begin || s->address >= begin + ph.p_memsz)
            continue;
          LoadedObject o;
          o.bias = info->dlpi_addr;  // 0 for a non-PIE executable, whose symbols are absolute
          o.path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
          o.name = o.path;
          if (o.path == "/proc/self/exe") {
            char buf[PATH_MAX];
            if (const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1); n > 0)
              o.name.assign(buf, std::size_t(n));
          }
          s->found = std::move(o);
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

struct ObjectIndex {
  std::string error;                                  // why it could not be read
  std::map<std::uint64_t, std::string> functions;     // link-time address -> name
  std::map<std::string, std::map<int, CompiledResources>, std::less<>> kernels;  // by arch
  std::set<int> cubin_archs, ptx_archs;
  std::string unreadable;  // why some cubin could not be decompressed (the first reason)
};

ObjectIndex build_index(const std::string& path) {
  ObjectIndex index;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open it");
    const std::vector<char> raw{std::istreambuf_iterator<char>(in), {}};
    const std::span<const std::byte> image(reinterpret_cast<const std::byte*>(raw.data()),
                                           raw.size());
    const elf::View view(image);
    // .symtab has every function (template instantiations are local symbols); .dynsym, all a
    // stripped object keeps, has the exported ones.
    for (auto table : {elf::kDynsym, elf::kSymtab})
      for (const auto& s : view.symbols(table))
        if (s.type() == 2 && s.value != 0) index.functions[s.value] = std::string(s.name);
    const elf::Section* section = view.section(".nv_fatbin");
    if (!section) return index;
    for (auto& entry : fatbin::read_entries(view.bytes(*section))) {
      if (entry.kind == fatbin::Entry::Kind::kPtx) index.ptx_archs.insert(entry.arch);
      if (entry.kind != fatbin::Entry::Kind::kCubin) continue;
      if (!entry.error.empty()) {
        if (index.unreadable.empty()) index.unreadable = entry.error;
        continue;
      }
      index.cubin_archs.insert(entry.arch);
      for (auto& [name, k] : fatbin::read_cubin_kernels(entry.data))
        index.kernels[name][entry.arch] = {k.registers, k.static_smem, k.barriers};
    }
  } catch (const std::exception& e) {
    index.error = e.what();
  }
  return index;
}

const ObjectIndex& index_of(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<ObjectIndex>> indexes;
  std::lock_guard lock(mutex);
  auto& slot = indexes[path];
  if (!slot) slot = std::make_unique<ObjectIndex>(build_index(path));
  return *slot;
}

std::string arch_list(const std::set<int>& archs, std::string_view prefix) {
  std::string out;
  for (int a : archs) out += fmt::format("{}{}{}", out.empty() ? "" : ", ", prefix, a);
  return out;
}

// The device kernel's mangled name for its host function's: the same, except that g++ marks a
// name of internal linkage with an L before its length (_ZN2ns5lightEPf on the device,
// _ZN2nsL5heavyILi4EEEvPfPKf for the host's implicit template instantiation, whose stub nvcc
// makes static); the name without such an L is taken when only it is a kernel.
std::string device_name(const ObjectIndex& index, const std::string& host) {
  if (index.kernels.count(host)) return host;
  for (std::size_t i = 2; i + 1 < host.size(); ++i)
    if (host[i] == 'L' && host[i + 1] >= '1' && host[i + 1] <= '9')
      if (std::string name = host.substr(0, i) + host.substr(i + 1); index.kernels.count(name))
        return name;
  return host;
}

// The cubin the driver loads on `arch`: its own, else the newest of the same major version with
// a lower minor one (binary compatible); 0 when none.
int loadable_arch(const std::map<int, CompiledResources>& by_arch, int arch) {
  if (by_arch.count(arch)) return arch;
  int best = 0;
  for (const auto& [a, r] : by_arch)
    if (a / 10 == arch / 10 && a < arch) best = a;
  return best;
}

}  // namespace

CompiledLookup compiled_resources(const void* function, int arch) {
  CompiledLookup out;
  const auto object = object_of(function);
  if (!object) {
    out.why = fmt::format("the function at {} lies in no loaded program or library", function);
    return out;
  }
  out.object = object->name;
  const ObjectIndex& index = index_of(object->path);
  if (!index.error.empty()) {
    out.why = fmt::format("{} could not be read ({})", out.object, index.error);
    return out;
  }
  const auto address = std::uint64_t(reinterpret_cast<std::uintptr_t>(function) - object->bias);
  const auto name = index.functions.find(address);
  if (name == index.functions.end()) {
    out.why = fmt::format("{} has no symbol for the function at {} (stripped?); keep its symbol "
                          "table (no -s, no strip)",
                          out.object, function);
    return out;
  }
  out.mangled = device_name(index, name->second);
  const std::string fix = fmt::format("add {} to CUDA_ARCHITECTURES (nvcc -arch=sm_{}) and rebuild",
                                      arch, arch);
  const auto kernel = index.kernels.find(out.mangled);
  if (kernel == index.kernels.end()) {
    out.why = index.cubin_archs.empty()
                  ? fmt::format("{} has no compiled GPU code (cubins) for {}{}; {}", out.object,
                                out.mangled,
                                index.ptx_archs.empty()
                                    ? ""
                                    : " (only PTX, which the driver compiles when it loads)",
                                fix)
                  : fmt::format("{} is in none of the cubins of {} ({})", out.mangled,
                                out.object, arch_list(index.cubin_archs, "sm_"));
    if (!index.unreadable.empty())  // it may be in one that could not be decompressed
      out.why += fmt::format("; some cubins could not be read: {}", index.unreadable);
    return out;
  }
  out.cubin_arch = loadable_arch(kernel->second, arch);
  if (out.cubin_arch == 0) {
    std::set<int> archs;
    for (const auto& [a, r] : kernel->second) archs.insert(a);
    out.why = fmt::format("{} has no sm_{} code (it was built for {}); {}", out.object, arch,
                          arch_list(archs, "sm_"), fix);
    if (!index.unreadable.empty())
      out.why += fmt::format("; some cubins could not be read: {}", index.unreadable);
    return out;
  }
  out.resources = kernel->second.at(out.cubin_arch);
  return out;
}

}  // namespace occtune
