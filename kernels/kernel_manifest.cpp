// Look-ups over the generated manifest table (the table itself is generated at build time).
#include "kernels/kernel_manifest.hpp"

namespace occtune::kernels {

ResourceLookup find_kernel_resources(std::string_view symbol, int arch) {
  // A repacked variant (kernels/repacked.cuh) launches its inner variant's kernel after a copy
  // pass, so the kernel whose occupancy is planned is the inner one: Repacked<X> is X here.
  constexpr std::string_view kRepacked = "Repacked<";
  if (symbol.size() > kRepacked.size() && symbol.substr(0, kRepacked.size()) == kRepacked &&
      symbol.back() == '>')
    symbol = symbol.substr(kRepacked.size(), symbol.size() - kRepacked.size() - 1);
  const KernelResources* below = nullptr;
  const KernelResources* lowest = nullptr;
  for (auto& r : kernel_resources()) {
    if (r.symbol != symbol) continue;
    if (r.arch == arch) return {&r, true};
    if (r.arch < arch && (!below || r.arch > below->arch)) below = &r;
    if (!lowest || r.arch < lowest->arch) lowest = &r;
  }
  return {below ? below : lowest, false};
}

}  // namespace occtune::kernels
