// Read-only opening of a store (db/read_access.hpp): the immutable decision and the URI.
#include "db/read_access.hpp"

#include <SQLiteCpp/Database.h>
#include <unistd.h>

#include <system_error>

namespace occtune::db {
namespace {

// RFC 3986 escaping of the bytes SQLite's URI parser treats specially.
std::string uri_path(const std::string& path) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace

bool open_immutable(bool directory_writable, bool wal_exists) {
  return !directory_writable && !wal_exists;
}

ReadOnlyOpen read_only_open(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  const bool wal = std::filesystem::exists(path.string() + "-wal", ec);
  const bool writable = ::access(dir.c_str(), W_OK | X_OK) == 0;
  ReadOnlyOpen open;
  open.immutable = open_immutable(writable, wal);
  if (open.immutable) {
    const std::string absolute = std::filesystem::absolute(path, ec).string();
    open.filename = "file:" + uri_path(ec ? path.string() : absolute) + "?immutable=1";
    open.flags = SQLite::OPEN_READONLY | SQLite::OPEN_URI;
  } else {
    open.filename = path.string();
    open.flags = SQLite::OPEN_READONLY;
  }
  return open;
}

}  // namespace occtune::db
