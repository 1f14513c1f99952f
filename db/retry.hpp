// Bounded retry with jitter around SQLite operations that may fail with SQLITE_BUSY even though
// the connection has a busy timeout: a writer starved past the timeout, WAL recovery after a
// crash, a lock upgrade SQLite refuses to wait for. Private to db/.
#pragma once

#include <SQLiteCpp/Exception.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>

namespace occtune::db {

// How long one statement waits for a lock (sqlite3_busy_timeout) before SQLITE_BUSY.
inline constexpr int kDefaultBusyTimeoutMs = 5000;

// The busy timeout already waited on every attempt, so a few attempts suffice; the jittered
// pause between them breaks the lockstep in which starved writers keep colliding.
struct BusyRetry {
  int attempts = 8;  // including the first
  std::chrono::milliseconds base{10};
  std::chrono::milliseconds cap{1000};

  // Pause before attempt `attempt` + 1 (attempt counts from 1): "equal jitter", half of the
  // exponential step fixed and half random, so the total wait has a floor that tests can rely
  // on and concurrent writers still spread out.
  template <typename Random>
  std::chrono::microseconds pause(int attempt, Random& random) const {
    const auto step = std::chrono::microseconds(std::min<std::int64_t>(
        std::chrono::microseconds(cap).count(), std::chrono::microseconds(base).count()
                                                    << std::min(attempt - 1, 20)));
    std::uniform_int_distribution<std::int64_t> half(0, step.count() / 2);
    return std::chrono::microseconds(step.count() - step.count() / 2 + half(random));
  }
};

inline bool is_busy_code(int code) { return (code & 0xff) == SQLITE_BUSY; }

// Retries counted in this process (all connections): tests and `db doctor` read it.
inline std::atomic<std::uint64_t>& busy_retry_count() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

// Runs `op` until it does not throw SQLITE_BUSY, at most policy.attempts times; the last
// SQLite::Exception escapes. `op` must be re-runnable: a failed attempt has rolled back its
// transaction, so results must be built inside `op`, not appended to outside state.
template <typename Op>
auto with_busy_retry(const BusyRetry& policy, Op&& op) -> decltype(op()) {
  thread_local std::minstd_rand random{std::random_device{}()};
  for (int attempt = 1;; ++attempt) {
    try {
      return op();
    } catch (const SQLite::Exception& e) {
      if (!is_busy_code(e.getErrorCode()) || attempt >= policy.attempts) throw;
    }
    busy_retry_count().fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(policy.pause(attempt, random));
  }
}

}  // namespace occtune::db
