// PRAGMA integrity_check / quick_check of db/integrity.hpp, without ever writing the file.
#include "db/integrity.hpp"

#include <SQLiteCpp/Database.h>
#include <fmt/format.h>

#include "db/file_probe.hpp"
#include "db/read_access.hpp"
#include "db/retry.hpp"
#include "db/store_sql.hpp"

namespace fs = std::filesystem;

namespace occtune::db {

using sql::column_texts;
using sql::is_damage;
using sql::one_line;

std::vector<std::string> integrity_problems(const fs::path& path, bool full, int limit) {
  // Not through SQLite: closing a connection to a file with a damaged header deletes its -wal.
  if (const auto header = probe::read_header(path);
      header && header->file_size > 0 && !header->sqlite_magic) {
    return {"no SQLite header"};
  }
  try {
    const ReadOnlyOpen ro = read_only_open(path);
    SQLite::Database db(ro.filename, ro.flags, kDefaultBusyTimeoutMs);
    auto problems = with_busy_retry(BusyRetry{}, [&] {
      return column_texts(
          db, fmt::format("PRAGMA {}({})", full ? "integrity_check" : "quick_check", limit));
    });
    if (problems.size() == 1 && problems[0] == "ok") problems.clear();
    return problems;
  } catch (const SQLite::Exception& e) {
    if (is_damage(e)) return {one_line(e.what())};
    throw;
  }
}

}  // namespace occtune::db
