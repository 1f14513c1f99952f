// The integrity check the doctor reports and Store::open repeats before moving a damaged file
// aside. Apart from both so neither depends on the other (the store never calls the doctor).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace occtune::db {

// Opens `path` read-only and runs PRAGMA integrity_check (full) or quick_check (no index
// cross-checks); returns up to `limit` problems, empty when the file is sound. A file SQLite
// cannot read at all gives one problem saying why (a file without an SQLite header is never
// handed to SQLite). Other SQLite failures (busy, I/O) throw.
std::vector<std::string> integrity_problems(const std::filesystem::path& path, bool full,
                                            int limit = 20);

}  // namespace occtune::db
