// Families and variants the registry takes from outside the kernel library: the user kernel
// families of occtune/kernel.hpp, registered by the program before the registry is first used.
// The registry is built once and never changes afterwards (callers keep pointers into it), so
// an extension must be installed before that.
#pragma once

#include <functional>
#include <vector>

#include "kernels/registry.hpp"

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

}  // namespace occtune::kernels
