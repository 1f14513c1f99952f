// Moving a damaged database aside (db/recovery.hpp). flock() serialises recoverers: it is
// independent of the POSIX record locks SQLite uses on Linux, so it cannot disturb them.
#include "db/recovery.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <system_error>

#include "autotuner/core/error.hpp"

namespace occtune::db::recovery {
namespace {

namespace fs = std::filesystem;

// SQLite's unix VFS: every connection holds a read lock on this byte of the -shm file
// (UNIX_SHM_DMS = (22 + SQLITE_SHM_NLOCK) * 4 + SQLITE_SHM_NLOCK with SQLITE_SHM_NLOCK = 8).
constexpr off_t kShmDeadManSwitch = 128;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string errno_text(int error) { return std::generic_category().message(error); }

fs::path with_suffix(const fs::path& path, const char* suffix) {
  return fs::path(path.string() + suffix);
}

// rename() that never replaces an existing file; filesystems without RENAME_NOREPLACE get a
// plain rename after the existence check (the caller holds the recovery lock).
int rename_no_replace(const fs::path& from, const fs::path& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  std::error_code ec;
  if (fs::exists(to, ec)) return EEXIST;
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

}  // namespace

fs::path aside_name(const fs::path& path, std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return fs::path(fmt::format("{}.corrupt-{}", path.string(), stamp));
}

std::int64_t other_user(const fs::path& path) {
  const fs::path shm = with_suffix(path, "-shm");
  Fd fd(::open(shm.c_str(), O_RDWR | O_CLOEXEC));
  if (fd.get() < 0) return 0;  // no shared memory: no WAL connection can be open
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = kShmDeadManSwitch;
  probe.l_len = 1;
  // An open-file-description query also reports POSIX locks of this very process.
  if (::fcntl(fd.get(), F_OFD_GETLK, &probe) != 0 || probe.l_type == F_UNLCK) return 0;
  return probe.l_pid > 0 ? probe.l_pid : -1;
}

std::string MovedAside::describe() const {
  std::string out;
  for (const auto& [from, to] : moves)
    out += fmt::format("{}'{}' to '{}'", out.empty() ? "" : ", ", from.string(), to.string());
  return out;
}

std::optional<MovedAside> move_aside(const fs::path& path,
                                     const std::function<bool()>& still_damaged) {
  // A symlink to the store: SQLite opens through the link and keeps -wal and -shm beside the
  // target, so the target is what moves aside; the link then names the fresh store.
  std::error_code link_ec;
  if (fs::is_symlink(fs::symlink_status(path, link_ec))) {
    const fs::path target = fs::canonical(path, link_ec);
    if (!link_ec) return move_aside(target, still_damaged);
  }
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail(ExitCode::kRuntime, fmt::format("cannot move the damaged database '{}' aside: {}; move "
                                         "it away by hand or pass --db with another path",
                                         path.string(), errno_text(errno)));
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      fail(ExitCode::kRuntime,
           fmt::format("cannot lock the damaged database '{}' to move it aside: {}; move it "
                       "away by hand or pass --db with another path",
                       path.string(), errno_text(errno)));
    }
  }
  // Another recoverer may have moved the file and created a fresh one while we waited.
  struct stat locked {
  }, now{};
  if (::fstat(fd.get(), &locked) != 0 || ::stat(path.c_str(), &now) != 0 ||
      locked.st_dev != now.st_dev || locked.st_ino != now.st_ino) {
    return std::nullopt;
  }
  if (!still_damaged()) return std::nullopt;
  if (const std::int64_t user = other_user(path); user != 0) {
    fail(ExitCode::kRuntime,
         fmt::format("database '{}' is damaged but still open in {}; stop that process, then "
                     "run `occtune db doctor --db {} --repair`",
                     path.string(), user > 0 ? fmt::format("process {}", user) : "another process",
                     path.string()));
  }

  const fs::path base = aside_name(path, std::chrono::system_clock::now());
  auto taken = [](const fs::path& p) {
    return fs::exists(p) || fs::exists(with_suffix(p, "-wal")) ||
           fs::exists(with_suffix(p, "-shm"));
  };
  fs::path target = base;
  for (int n = 2; taken(target); ++n) target = fs::path(fmt::format("{}-{}", base.string(), n));
  MovedAside moved;
  auto undo = [&] {
    for (auto it = moved.moves.rbegin(); it != moved.moves.rend(); ++it)
      ::rename(it->second.c_str(), it->first.c_str());
  };
  // The main file goes last: until it moves, anyone opening the path still finds the damage
  // (and waits for this lock), never a fresh file next to the old WAL.
  for (const char* suffix : {"-wal", "-shm", ""}) {
    const fs::path from = with_suffix(path, suffix);
    const fs::path to = with_suffix(target, suffix);
    std::error_code ec;
    if (*suffix != '\0' && !fs::exists(fs::symlink_status(from, ec))) continue;
    if (const int error = rename_no_replace(from, to); error != 0) {
      undo();
      fail(ExitCode::kRuntime,
           fmt::format("cannot move the damaged database file '{}' to '{}': {}; move it away "
                       "by hand or pass --db with another path",
                       from.string(), to.string(), errno_text(error)));
    }
    moved.moves.emplace_back(from, to);
  }
  return moved;
}

}  // namespace occtune::db::recovery
