// Tells, without a lock or a system call, whether anyone committed to a WAL-mode database: it
// maps the shared-memory WAL index (<db>-shm) read-only and reads its header, the way SQLite's
// own readers do (two copies, equal when consistent; see walformat.html and WalIndexHdr in
// wal.c). Every commit changes the header (frame count, change counter, checksums) and a WAL
// reset changes its salts. The query service uses it instead of a per-request PRAGMA
// data_version, which takes file locks and SQLite's per-file mutexes on every request.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

namespace occtune::db {

class WalWatch {
 public:
  using Header = std::array<std::uint32_t, 12>;  // struct WalIndexHdr, 48 bytes

  // Null when there is nothing to watch: the database is not in WAL mode, or its -shm file is
  // missing or not yet initialised. Open it while a connection to the database is open (that
  // connection keeps SQLite from deleting the -shm file).
  static std::unique_ptr<WalWatch> open(const std::filesystem::path& database);
  ~WalWatch();
  WalWatch(const WalWatch&) = delete;
  WalWatch& operator=(const WalWatch&) = delete;

  // The current header, or nullopt when no consistent copy could be read (a writer was updating
  // it each time, or it is not initialised): ask the connection instead then.
  std::optional<Header> header() const;

 private:
  explicit WalWatch(const volatile std::uint32_t* map) : map_(map) {}
  const volatile std::uint32_t* map_;
};

}  // namespace occtune::db
