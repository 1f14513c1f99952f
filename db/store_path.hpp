// Where the store is: the one rule every front end uses to find it (the CLI's --db, the job
// file's [job].db, the library's Cache and sgemm, the on-miss tuner). design.md section 3 fixes
// the order: flag > OCCTUNE_DB > job file > default.
#pragma once

#include <filesystem>
#include <string_view>

namespace occtune::db {

struct StorePath {
  std::filesystem::path path;
  // Where the path came from: "--db", "OCCTUNE_DB", "the job file" or "the default path";
  // error messages name it so a user who never typed the path can tell where it came from.
  const char* source = "the default path";
};

// $XDG_CACHE_HOME/occtune/occtune.db, else ~/.cache/occtune/occtune.db (design.md section 6).
std::filesystem::path default_store_path();

// The store to use given a --db flag value and a job file's db value (either may be empty).
// OCCTUNE_DB set but empty is a mistake (an unexpanded variable in a script), not "use the
// default": Error(kUsage) naming the variable.
StorePath resolve_store_path(std::string_view flag = {}, std::string_view job_db = {});

}  // namespace occtune::db
