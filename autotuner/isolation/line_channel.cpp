#include "autotuner/isolation/line_channel.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "autotuner/core/error.hpp"

namespace occtune::isolation {

bool LineChannel::send(const std::string& line) {
  std::string data = line + '\n';
  std::size_t sent = 0;
  while (sent < data.size()) {
    // MSG_NOSIGNAL: a dead peer is EPIPE here, not a SIGPIPE that kills the tuner.
    const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += std::size_t(n);
  }
  return true;
}

LineChannel::Status LineChannel::receive(std::string& line, double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  for (;;) {
    if (auto end = buffer_.find('\n'); end != std::string::npos) {
      line.assign(buffer_, 0, end);
      buffer_.erase(0, end + 1);
      return Status::kLine;
    }
    if (buffer_.size() > kMaxLine)
      fail(ExitCode::kRuntime,
           "worker protocol: a message is longer than 64 MiB; rerun, or "
           "measure in-process with --no-isolation");
    int wait_ms = -1;
    if (timeout_s >= 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return Status::kTimeout;
      wait_ms = int(std::min<long long>(left.count() + 1, 1 << 30));
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;  // a signal (Ctrl-C): keep waiting
    if (ready < 0) return Status::kClosed;
    if (ready == 0) continue;  // the deadline check above decides
    char chunk[65536];
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Status::kClosed;
    buffer_.append(chunk, std::size_t(n));
  }
}

}  // namespace occtune::isolation
