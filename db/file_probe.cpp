// Header and filesystem probes of db/file_probe.hpp. Hand-written: SQLite exposes neither a
// header parser that works on a damaged file nor a filesystem check, and the header layout is
// a documented, stable format (https://www.sqlite.org/fileformat.html, section 1.3).
#include "db/file_probe.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/vfs.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>

#include "autotuner/core/error.hpp"
#include "db/store.hpp"

namespace occtune::db::probe {
namespace {

namespace fs = std::filesystem;

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         std::uint32_t(p[3]);
}

struct NetworkFs {
  std::uint32_t magic;  // statfs f_type, as in <linux/magic.h> and statfs(2)
  std::string_view name;
};

constexpr std::array<NetworkFs, 16> kNetworkFilesystems = {{
    {0x6969, "NFS"},
    {0x517B, "SMB"},
    {0xFF534D42, "CIFS/SMB"},
    {0xFE534D42, "SMB2/SMB3"},
    {0x01021997, "9P (v9fs)"},
    {0x5346414F, "AFS"},
    {0x6B414653, "kAFS"},
    {0x73757245, "Coda"},
    {0x564C, "NCP"},
    {0x00C36400, "CephFS"},
    {0x7461636F, "OCFS2"},
    {0x01161970, "GFS2"},
    {0x0BD00BD0, "Lustre"},
    {0x47504653, "GPFS"},
    {0x19830326, "BeeGFS"},
    {0x786F4256, "VirtualBox shared folder"},
}};

}  // namespace

std::optional<Header> read_header(const fs::path& path) {
  // Through SQLite's own file object rather than open()/close(): closing any descriptor of a
  // file drops every POSIX lock this process holds on it (fcntl(2)), so a plain read here would
  // silently release the shared lock of another connection of this process (the service's),
  // and the next writer to exit would checkpoint and delete the WAL under it. SQLite's unix VFS
  // shares one inode record per process and defers such closes while locks are held. Opening
  // reads no page and starts no transaction: nothing is written, locked or replayed, and a
  // read-only connection that never opened the WAL leaves -wal and -shm alone when it closes.
  sqlite3* connection = nullptr;
  const int opened = sqlite3_open_v2(path.c_str(), &connection, SQLITE_OPEN_READONLY, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> guard(connection, &sqlite3_close);
  if (opened != SQLITE_OK) return std::nullopt;
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return std::nullopt;
  }
  sqlite3_int64 size = 0;
  if (file->pMethods->xFileSize(file, &size) != SQLITE_OK || size < 0) return std::nullopt;
  std::array<unsigned char, 100> bytes{};
  const int read = file->pMethods->xRead(file, bytes.data(), int(bytes.size()), 0);
  // A short read zero-fills the rest of the buffer (the VFS contract).
  if (read != SQLITE_OK && read != SQLITE_IOERR_SHORT_READ) return std::nullopt;
  const auto got = static_cast<std::size_t>(std::min<sqlite3_int64>(size, 100));
  Header h;
  h.file_size = static_cast<std::uintmax_t>(size);
  static constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with the terminating NUL
  h.sqlite_magic = got >= 16 && std::memcmp(bytes.data(), kMagic, 16) == 0;
  h.occtune_id = got >= 72 && big_endian(&bytes[68]) == std::uint32_t(kApplicationId);
  if (got >= 18) {
    const std::uint32_t raw = (std::uint32_t(bytes[16]) << 8) | bytes[17];
    h.page_size = raw == 1 ? 65536 : raw;
  }
  // The in-header size counts only when the version-valid-for number matches the change
  // counter (older writers did not maintain it).
  if (got >= 96 && big_endian(&bytes[24]) == big_endian(&bytes[92]))
    h.page_count = big_endian(&bytes[28]);
  if (got >= 64) h.user_version = static_cast<std::int32_t>(big_endian(&bytes[60]));
  return h;
}

std::optional<std::string_view> network_filesystem(std::int64_t f_type) {
  // f_type is a signed word; the CIFS magics have the top bit set in 32 bits.
  const auto magic = static_cast<std::uint32_t>(f_type);
  for (const auto& fs : kNetworkFilesystems)
    if (fs.magic == magic) return fs.name;
  return std::nullopt;
}

std::optional<std::int64_t> filesystem_type(const fs::path& path) {
  fs::path dir = fs::absolute(path).parent_path();
  std::error_code ec;
  while (!dir.empty() && !fs::is_directory(dir, ec)) {
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  struct statfs info {};
  if (::statfs(dir.c_str(), &info) != 0) return std::nullopt;
  return static_cast<std::int64_t>(info.f_type);
}

bool network_filesystem_allowed() {
  const char* value = std::getenv("OCCTUNE_ALLOW_NETWORK_FS");
  return value != nullptr && std::string_view(value) == "1";
}

std::optional<std::string_view> check_local_filesystem(const fs::path& path, std::int64_t f_type,
                                                       bool allowed) {
  const auto name = network_filesystem(f_type);
  if (!name) return std::nullopt;
  if (allowed) return name;
  fail(ExitCode::kRuntime,
       fmt::format("database '{}' is on a network filesystem ({}, statfs type 0x{:X}); SQLite's "
                   "WAL mode needs shared memory and file locks that network filesystems do not "
                   "provide reliably, so concurrent runs could corrupt it; pass --db with a path "
                   "on a local disk, or set OCCTUNE_ALLOW_NETWORK_FS=1 to use it anyway (one "
                   "occtune process at a time)",
                   path.string(), *name, static_cast<std::uint32_t>(f_type)));
}

}  // namespace occtune::db::probe
