// The store-path rule of db/store_path.hpp, in one place.
#include "db/store_path.hpp"

#include <cstdlib>
#include <string>

#include "autotuner/core/cache_dir.hpp"
#include "autotuner/core/error.hpp"

namespace fs = std::filesystem;

namespace occtune::db {

fs::path default_store_path() { return occtune_cache_dir() / "occtune.db"; }

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
