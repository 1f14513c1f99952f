// Families and variants the registry takes from outside the kernel library: the user kernel
// families of occtune/kernel.hpp, registered by the program before the registry is first used,
// and the expansion of the built-in families that register through the same API.
// The registry is built once and never changes afterwards (callers keep pointers into it), so
// an extension must be installed before that.
#pragma once

#include <functional>
#include <vector>

#include "kernels/registry.hpp"
#include "occtune/kernel.hpp"

namespace occtune::kernels {

// Appends families and variants; `families` holds the built-in ones already (to refuse a name
// twice). May throw occtune::Error, which then comes out of the first registry call.
using RegistryExtension =
    std::function<void(std::vector<FamilyInfo>& families, std::vector<VariantInfo>& variants)>;

// Installs the extension (replacing an earlier one). Throws Error(kUsage) once the registry is
// built, naming the fix: register every family before occtune::main or the first lookup.
void set_registry_extension(RegistryExtension extension);
bool registry_built();

// Called by the registry when it is built (kernels/registry.cu).
void apply_registry_extension(std::vector<FamilyInfo>& families,
                              std::vector<VariantInfo>& variants);

// A built-in family of the registration API as the registry takes it: validated and expanded by
// the code that validates and expands user families (expand_family, defined with it in
// autotuner/core/user_family.cpp), so both are one path.
struct ExpandedFamily {
  FamilyInfo info;
  std::vector<VariantInfo> variants;
  std::vector<int> config_of;  // parallel to variants: the index into KernelFamily::configs
};
ExpandedFamily expand_builtin_family(KernelFamily family);

}  // namespace occtune::kernels
