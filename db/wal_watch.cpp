// Reading the WAL-index header from the mapped -shm file (see wal_watch.hpp).
#include "db/wal_watch.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace occtune::db {
namespace {

constexpr std::size_t kMapBytes = 4096;
constexpr std::size_t kHeaderWords = 12;
// Two header copies and the checkpoint information: what an initialised index has at least.
constexpr off_t kMinimumShmBytes = 136;

bool initialised(const WalWatch::Header& h) {
  unsigned char bytes[sizeof(WalWatch::Header)];
  std::memcpy(bytes, h.data(), sizeof bytes);
  return bytes[12] != 0;  // WalIndexHdr::isInit follows iVersion, unused and iChange
}

}  // namespace

std::unique_ptr<WalWatch> WalWatch::open(const std::filesystem::path& database) {
  const std::string shm = database.string() + "-shm";
  const int fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < kMinimumShmBytes) {
    ::close(fd);
    return nullptr;
  }
  void* map = ::mmap(nullptr, kMapBytes, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  std::unique_ptr<WalWatch> watch(
      new WalWatch(fd, static_cast<const volatile std::uint32_t*>(map)));
  if (!watch->header()) return nullptr;
  return watch;
}

WalWatch::~WalWatch() {
  ::munmap(const_cast<std::uint32_t*>(map_), kMapBytes);
  ::close(fd_);
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
