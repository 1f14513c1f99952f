// Reading the WAL-index header from the mapped -shm file (see wal_watch.hpp).
#include "db/wal_watch.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace occtune::db {
namespace {

constexpr std::size_t kMapBytes = 4096;
constexpr std::size_t kHeaderWords = 12;
// Two header copies and the checkpoint information: what an initialised index has at least.
constexpr off_t kMinimumShmBytes = 136;

// A read-only descriptor of `path`, opened once per file (device and inode) and never closed.
// SQLite holds POSIX locks on -shm (the read marks, the dead-man switch) and closing any
// descriptor of a file drops all of this process's locks on it, the connections' included, so a
// watch that went away would let another process's writer believe no reader exists. -1 on
// failure. Only a handful of files are ever watched by a process.
int pinned_descriptor(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::pair<dev_t, ino_t>, int> pinned;
  const std::lock_guard lock(mutex);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  if (const auto it = pinned.find({st.st_dev, st.st_ino}); it != pinned.end()) return it->second;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  // Keyed by what was opened, which a rename between stat and open may make another file.
  if (::fstat(fd, &st) != 0) return fd;  // unpinned but open: still never closed
  return pinned.emplace(std::pair{st.st_dev, st.st_ino}, fd).first->second;
}

bool initialised(const WalWatch::Header& h) {
  unsigned char bytes[sizeof(WalWatch::Header)];
  std::memcpy(bytes, h.data(), sizeof bytes);
  return bytes[12] != 0;  // WalIndexHdr::isInit follows iVersion, unused and iChange
}

}  // namespace

std::unique_ptr<WalWatch> WalWatch::open(const std::filesystem::path& database) {
  const std::string shm = database.string() + "-shm";
  const int fd = pinned_descriptor(shm);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < kMinimumShmBytes)
    return nullptr;
  void* map = ::mmap(nullptr, kMapBytes, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return nullptr;
  std::unique_ptr<WalWatch> watch(
      new WalWatch(static_cast<const volatile std::uint32_t*>(map)));
  if (!watch->header()) return nullptr;
  return watch;
}

WalWatch::~WalWatch() {
  // The descriptor stays open (pinned_descriptor): unmapping takes no lock away.
  ::munmap(const_cast<std::uint32_t*>(map_), kMapBytes);
}

std::optional<WalWatch::Header> WalWatch::header() const {
  // As walIndexTryHdr does: the writer stores copy 1, then copy 0; read copy 0, then copy 1,
  // and accept only when they are equal.
  for (int attempt = 0; attempt < 16; ++attempt) {
    Header first{}, second{};
    for (std::size_t i = 0; i < kHeaderWords; ++i) first[i] = map_[i];
    std::atomic_thread_fence(std::memory_order_acquire);
    for (std::size_t i = 0; i < kHeaderWords; ++i) second[i] = map_[kHeaderWords + i];
    if (first == second && initialised(first)) return first;
  }
  return std::nullopt;
}

}  // namespace occtune::db
