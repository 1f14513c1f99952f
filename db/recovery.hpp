// Moving a damaged database aside so a fresh store can take its place. The database, its -wal
// and its -shm move together (a WAL replayed onto another file would corrupt it) under one clear
// name, and only when the caller's check, repeated under an exclusive lock, still finds the file
// damaged: two processes that find the same damage move it once, and never the fresh store.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occtune::db::recovery {

// "<dir>/<name>.corrupt-<UTC YYYYMMDDTHHMMSSZ>"; the -wal and -shm keep their suffixes after it.
std::filesystem::path aside_name(const std::filesystem::path& path,
                                 std::chrono::system_clock::time_point when);

// The pid of a process that has the database open through SQLite's WAL shared memory (it holds
// a read lock on the -shm "dead man switch" byte for as long as its connection is open), 0 if
// none, -1 if one does but its pid is not known. Closing the checking descriptor drops this
// process's own POSIX locks on the -shm, so call it with no connection to `path` open here.
std::int64_t other_user(const std::filesystem::path& path);

struct MovedAside {
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moves;  // from, to
  std::string describe() const;  // "'a' to 'a.corrupt-T', 'a-wal' to 'a.corrupt-T-wal'"
  const std::filesystem::path& main() const { return moves.back().second; }
};

// Under an exclusive flock() on `path`: when `path` is still the file that was locked and
// `still_damaged()` says so, renames its -wal, -shm and then the file itself (so a WAL never
// meets a fresh file), without replacing anything. Returns nullopt when there is nothing to
// move (gone, replaced by another process's fresh store, or no longer damaged). Throws
// Error(kRuntime) when another process has it open or a rename fails (earlier renames are
// undone).
std::optional<MovedAside> move_aside(const std::filesystem::path& path,
                                     const std::function<bool()>& still_damaged);

}  // namespace occtune::db::recovery
