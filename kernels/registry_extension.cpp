// The registry's extension point (kernels/registry_extension.hpp).
#include "kernels/registry_extension.hpp"

#include <atomic>
#include <mutex>

#include "occtune/error.hpp"

namespace occtune::kernels {
namespace {

std::mutex extension_mutex;
std::atomic<bool> built{false};

// A function-local static: families are registered from other translation units' static
// initialisers, which may run before this one's.
RegistryExtension& installed() {
  static RegistryExtension extension;
  return extension;
}

}  // namespace

void set_registry_extension(RegistryExtension extension) {
  std::lock_guard lock(extension_mutex);
  if (built)
    fail(ExitCode::kUsage,
         "a kernel family was registered after occtune's kernel registry was first used; call "
         "occtune::register_family for every family before occtune::main, occtune::launch or "
         "the first Cache lookup");
  installed() = std::move(extension);
}

bool registry_built() { return built; }

void apply_registry_extension(std::vector<FamilyInfo>& families,
                              std::vector<VariantInfo>& variants) {
  RegistryExtension extension;
  {
    // Marked built first: a registration from now on is refused, one before it is seen. The
    // extension runs outside the lock (it takes its own, which registration holds around
    // set_registry_extension).
    std::lock_guard lock(extension_mutex);
    built = true;
    extension = installed();
  }
  if (extension) extension(families, variants);
}

}  // namespace occtune::kernels
