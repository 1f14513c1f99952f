// One JSON message per line over a stream socket: the transport between occtune and its worker.
// Reads wait with a deadline and survive signals (Ctrl-C interrupts poll; the wait goes on), and
// writes never raise SIGPIPE: a peer that died is an ordinary "closed" answer.
#pragma once

#include <string>

namespace occtune::isolation {

class LineChannel {
 public:
  explicit LineChannel(int fd = -1) : fd_(fd) {}
  int fd() const { return fd_; }

  // Sends `line` plus a newline (the line itself must hold none). False when the peer is gone.
  bool send(const std::string& line);

  enum class Status { kLine, kTimeout, kClosed };
  // The next line without its newline. timeout_s < 0 waits for ever. A line longer than
  // kMaxLine is a protocol error (Error kRuntime).
  Status receive(std::string& line, double timeout_s);

  static constexpr std::size_t kMaxLine = std::size_t(64) << 20;

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace occtune::isolation
