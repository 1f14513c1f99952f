// The store-path rule of db/store_path.hpp, in one place.
#include "db/store_path.hpp"

#include <cstdlib>
#include <string>

#include "autotuner/core/error.hpp"

namespace fs = std::filesystem;

namespace occtune::db {

fs::path default_store_path() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG spec says a relative value is invalid and must be ignored.
  if (xdg != nullptr && *xdg != '\0' && fs::path(xdg).is_absolute()) {
    return fs::path(xdg) / "occtune" / "occtune.db";
  }
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "occtune" / "occtune.db";
  // No HOME (some service managers): a relative path still names a usable file.
  return fs::path(".cache") / "occtune" / "occtune.db";
}

StorePath resolve_store_path(std::string_view flag, std::string_view job_db) {
  if (!flag.empty()) return {fs::path(std::string(flag)), "--db"};
  if (const char* env = std::getenv("OCCTUNE_DB"); env != nullptr) {
    if (*env == '\0')
      fail(ExitCode::kUsage, "OCCTUNE_DB is set but empty; give it a database path or unset it");
    return {fs::path(env), "OCCTUNE_DB"};
  }
  if (!job_db.empty()) return {fs::path(std::string(job_db)), "the job file"};
  return {default_store_path(), "the default path"};
}

}  // namespace occtune::db
