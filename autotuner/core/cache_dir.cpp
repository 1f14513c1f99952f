// The XDG cache-directory rule of autotuner/core/cache_dir.hpp.
#include "autotuner/core/cache_dir.hpp"

#include <cstdlib>

namespace fs = std::filesystem;

namespace occtune {

fs::path occtune_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()) return fs::path(xdg) / "occtune";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "occtune";
  return fs::path(".cache") / "occtune";
}

}  // namespace occtune
