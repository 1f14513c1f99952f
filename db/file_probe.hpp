// Looks at a database file and the filesystem holding it: the 100-byte header, read raw
// through SQLite's file object (SQLite refuses a damaged one in queries, yet it still tells
// whether the file is ours) and the filesystem type (WAL needs shared memory and POSIX locks
// that network filesystems do not provide).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace occtune::db::probe {

// What the first 100 bytes say. All fields are false/0 when the file is shorter than a field.
struct Header {
  std::uintmax_t file_size = 0;
  bool sqlite_magic = false;  // starts with "SQLite format 3\0"
  bool occtune_id = false;    // application_id (offset 68) is kApplicationId: the file is ours
  std::uint32_t page_size = 0;
  std::uint32_t page_count = 0;  // the in-header size, 0 when SQLite would not trust it
  std::int32_t user_version = 0;
};

// Reads the header of an existing file; nullopt when the file cannot be read. Safe while this
// process holds connections to the file: it never opens or closes a descriptor of it outside
// SQLite, whose VFS keeps the process's POSIX locks (a plain close() would drop them all).
std::optional<Header> read_header(const std::filesystem::path& path);

// The name of a network or cluster filesystem for a statfs() f_type, nullopt for anything
// else. FUSE is not listed: sshfs is FUSE, but so are many local filesystems (fuse-overlayfs).
std::optional<std::string_view> network_filesystem(std::int64_t f_type);

// statfs() f_type of the directory that holds (or will hold) `path`: its nearest existing
// ancestor, so the answer is known before any directory is created. nullopt if statfs fails.
std::optional<std::int64_t> filesystem_type(const std::filesystem::path& path);

// OCCTUNE_ALLOW_NETWORK_FS=1 lets a database live on a network filesystem at the user's risk.
bool network_filesystem_allowed();

// Throws Error(kRuntime) naming the path, the filesystem, the reason and the override when
// `f_type` is a network filesystem and `allowed` is false; returns the filesystem's name when it
// is one but allowed (the caller warns), nullopt when it is local. Pure: tests inject any f_type.
std::optional<std::string_view> check_local_filesystem(const std::filesystem::path& path,
                                                       std::int64_t f_type, bool allowed);

}  // namespace occtune::db::probe
