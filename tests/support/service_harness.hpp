// Starts the real query service in-process on an ephemeral loopback port, and talks to it the
// way clients do: httplib's client for well-formed requests, raw sockets for everything else.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "autotuner/service/service.hpp"
#include "tests/support/temp_dir.hpp"

namespace occtune::testing {

// This process's resident memory in KiB (the in-process server's growth shows here).
inline long resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

class RunningService {
 public:
  explicit RunningService(service::ServiceOptions options) {
    options.bind = "127.0.0.1";
    options.port = 0;
    if (options.version.empty()) options.version = "test";
    service_ = std::make_unique<service::Service>(options);
    port_ = service_->bind();
    thread_ = std::thread([this] { service_->serve(); });
  }
  ~RunningService() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    service_->stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  std::unique_ptr<service::Service> service_;
  int port_ = 0;
  std::thread thread_;
};

// A raw TCP connection to the server. Every read is bounded by a deadline, so a test that
// expects the server to close or answer cannot hang.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  // False when the server closed the connection before everything was sent.
  bool send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Reads until the server closes the connection, `stop_after` bytes have arrived, or the
  // deadline passes; `closed` says whether the server closed.
  std::string read(std::chrono::milliseconds deadline = std::chrono::seconds(10),
                   std::size_t stop_after = std::string::npos, bool* closed = nullptr) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + deadline;
    if (closed) *closed = false;
    while (out.size() < stop_after) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        break;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
  // One complete response (head and Content-Length body), leaving the connection open.
  std::string read_response(std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    std::string out = pending_;
    pending_.clear();
    const auto end = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      const auto head_end = out.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        std::size_t length = 0;
        const auto cl = lower(out.substr(0, head_end)).find("content-length:");
        if (cl != std::string::npos) length = std::stoul(out.substr(cl + 15));
        const std::size_t total = head_end + 4 + length;
        if (out.size() >= total) {
          pending_ = out.substr(total);
          return out.substr(0, total);
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      const std::string more = read(left, 1);
      if (more.empty()) return out;
      out += more;
    }
  }
  // True when the server has closed its side (EOF within the deadline).
  bool closed_by_server(std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    bool closed = false;
    read(deadline, std::string::npos, &closed);
    return closed;
  }

  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;
};

// "HTTP/1.1 404 Not Found\r\n..." -> 404; 0 when there is no status line.
inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.c_str() + 9);
}

inline std::string body_of(const std::string& response) {
  const auto head_end = response.find("\r\n\r\n");
  return head_end == std::string::npos ? std::string() : response.substr(head_end + 4);
}

inline std::string header_of(const std::string& response, const std::string& name) {
  const std::string head = RawConnection::lower(response.substr(0, response.find("\r\n\r\n")));
  const auto at = head.find("\r\n" + RawConnection::lower(name) + ":");
  if (at == std::string::npos) return {};
  const auto start = response.find_first_not_of(' ', at + 3 + name.size());
  return response.substr(start, response.find("\r\n", start) - start);
}

}  // namespace occtune::testing
