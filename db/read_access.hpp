// How a reader opens a store it may not write (a cache shipped read-only in a container image,
// a read-only mount): SQLite's plain read-only mode needs to create the -shm file of a WAL
// database next to it, so where no writer can exist the file is opened immutable instead.
#pragma once

#include <filesystem>
#include <string>

namespace occtune::db {

// Immutable exactly when nobody can write the store: its directory is not writable by this
// process (a writer needs to create -wal and -shm there) and no -wal exists (none is writing
// now). Otherwise a normal read-only connection, which sees concurrent writers' commits.
bool open_immutable(bool directory_writable, bool wal_exists);

struct ReadOnlyOpen {
  std::string filename;  // a path, or a file: URI with immutable=1
  int flags = 0;         // SQLite::OPEN_* flags
  bool immutable = false;
};
ReadOnlyOpen read_only_open(const std::filesystem::path& path);

}  // namespace occtune::db
