// Connection handling and request hygiene for the service (see http_server.hpp).
#include "autotuner/service/http_server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "autotuner/core/error.hpp"

namespace occtune::service {
namespace {

using Clock = std::chrono::steady_clock;

thread_local Exchange tls_exchange;

int poll_for(socket_t sock, short events, milliseconds timeout) {
  pollfd p{sock, events, 0};
  for (;;) {
    const int r = ::poll(&p, 1, static_cast<int>(std::max<milliseconds::rep>(timeout.count(), 0)));
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

std::string peer_address(socket_t sock, bool local, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  const int r = local ? ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  port = -1;
  if (r != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  return text;
}

// httplib reads the request byte by byte through this stream, so the head can be capped in
// bytes and in time here, whatever the library was compiled with. Responses are gathered and
// sent with one send(2) when the request is done (flush): headers and body leave together.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(socket_t sock, const HttpLimits& limits, Exchange& exchange)
      : sock_(sock), limits_(limits), ex_(exchange) {}

  void begin_request() {
    consumed_ = 0;
    deadline_ = Clock::now() + limits_.head_timeout;
  }
  bool buffered() const { return pos_ < end_; }
  std::size_t consumed() const { return consumed_; }

  bool is_readable() const override {
    return buffered() || poll_for(sock_, POLLIN, limits_.read_timeout) > 0;
  }
  bool is_writable() const override { return true; }  // writes are gathered; flush() waits

  ssize_t read(char* ptr, size_t size) override {
    if (consumed_ >= limits_.max_request_head) {
      ex_.head_too_large = true;
      return -1;
    }
    if (!buffered()) {
      ssize_t n = ::recv(sock_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      while (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline_ - Clock::now());
        const int ready =
            left.count() <= 0 ? 0 : poll_for(sock_, POLLIN, std::min(left, limits_.read_timeout));
        if (ready <= 0) {
          ex_.timed_out = true;
          return -1;
        }
        n = ::recv(sock_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      }
      if (n <= 0) return n;  // 0: the client closed
      pos_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min({size, end_ - pos_, limits_.max_request_head - consumed_});
    std::memcpy(ptr, buf_.data() + pos_, n);
    if (!ex_.line_complete && std::memchr(ptr, '\n', n)) ex_.line_complete = true;
    ex_.head_lines += static_cast<std::size_t>(std::count(ptr, ptr + n, '\n'));
    pos_ += n;
    consumed_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    ex_.responded = true;
    out_.append(ptr, size);
    if (out_.size() > 256 * 1024 && !flush()) return -1;
    return static_cast<ssize_t>(size);
  }

  // Sends what was gathered; false when the client does not take it within the write timeout.
  bool flush() {
    std::size_t sent = 0;
    const auto deadline = Clock::now() + limits_.write_timeout;
    while (sent < out_.size()) {
      const ssize_t n =
          ::send(sock_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || poll_for(sock_, POLLOUT, left) <= 0) return false;
    }
    out_.clear();
    return true;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    if (remote_port_ < 0) remote_ = peer_address(sock_, false, remote_port_);
    ip = remote_;
    port = remote_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    if (local_port_ < 0) local_ = peer_address(sock_, true, local_port_);
    ip = local_;
    port = local_port_;
  }
  socket_t socket() const override { return sock_; }

 private:
  socket_t sock_;
  const HttpLimits& limits_;
  Exchange& ex_;
  std::array<char, 4096> buf_{};
  std::size_t pos_ = 0, end_ = 0, consumed_ = 0;
  Clock::time_point deadline_;
  std::string out_;
  mutable std::string remote_, local_;
  mutable int remote_port_ = -1, local_port_ = -1;
};

// Closing a socket with unread input makes the kernel send a reset, which can destroy the
// response before the client has read it. After refusing a request whose rest was never read,
// stop sending, then read and drop what still arrives for a moment (bounded in time and bytes).
void close_socket(socket_t sock, bool linger) {
  ::shutdown(sock, SHUT_WR);
  if (linger) {
    std::array<char, 4096> sink{};
    std::size_t drained = 0;
    const auto deadline = Clock::now() + milliseconds(250);
    while (drained < 256 * 1024) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || poll_for(sock, POLLIN, left) <= 0) break;
      const ssize_t n = ::recv(sock, sink.data(), sink.size(), MSG_DONTWAIT);
      if (n <= 0) break;
      drained += static_cast<std::size_t>(n);
    }
  }
  ::close(sock);
}

bool is_token(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (unsigned char c : s)
    if (c <= 0x20 || c >= 0x7f || std::strchr("()<>@,;:\\\"/[]?={}", c)) return false;
  return true;
}

bool known_to_httplib(const std::string& method) {
  for (const char* m :
       {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"})
    if (method == m) return true;
  return false;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

Exchange& current_exchange() { return tls_exchange; }

void send_problem(httplib::Response& res, const Problem& problem) {
  res.status = problem.status;
  for (auto& [name, value] : problem.headers) res.set_header(name, value);
  res.set_content(problem.body(), std::string(kProblemContentType));
}

HttpServer::HttpServer(HttpLimits limits, Metrics& metrics, Router router)
    : limits_(limits), metrics_(metrics), router_(std::move(router)) {
  new_task_queue = [this] {
    auto* queue = new BoundedTaskQueue(limits_.workers, limits_.queue, limits_.shed_queue);
    queue_.store(queue);
    return queue;
  };
  // Only what the Keep-Alive response header announces; the loop below enforces them.
  set_keep_alive_max_count(limits_.keep_alive_max);
  set_keep_alive_timeout(std::max<time_t>(1, limits_.keep_alive_timeout.count() / 1000));
  set_read_timeout(limits_.read_timeout);
  set_write_timeout(limits_.write_timeout);
  set_payload_max_length(0);
  set_tcp_nodelay(true);

  set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return check(req, res); });

  // httplib answered on its own (a request it could not parse, a bad Range): give the answer a
  // problem body, and close, because the parser's position in the stream is unknown.
  set_error_handler(
      HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
        Exchange& ex = current_exchange();
        if (ex.routed) return HandlerResponse::Unhandled;  // one of ours, already a problem
        const_cast<httplib::Request&>(req).ranges.clear();
        ex.close_after = true;
        Problem p = for_status(res.status);
        if (ex.head_too_large) {
          p = headers_too_large(limits_.max_request_head);
        } else if (ex.timed_out) {
          p = request_timeout();
        } else if (res.status == 400 && is_token(req.method) && !known_to_httplib(req.method)) {
          p = method_not_allowed(req.method);
        } else if (res.status == 414) {
          p = uri_too_long(limits_.max_target);
        }
        send_problem(res, p);
        return HandlerResponse::Handled;
      }));

  // Expect: 100-continue would invite the body this service never reads.
  set_expect_100_continue_handler([](const httplib::Request&, httplib::Response& res) {
    res.status = 417;
    return 0;  // not 100 or 417: httplib then sends res as the final response
  });

  set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          spdlog::error("{} {}: {}", printable(req.method, 16), printable(req.path, 200), e.what());
        } catch (...) {
          spdlog::error("{} {}: unknown exception", printable(req.method, 16),
                        printable(req.path, 200));
        }
        send_problem(res, internal_error());
      });

  set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (current_exchange().close_after) {
      res.headers.erase("Keep-Alive");
      if (res.get_header_value("Connection") != "close") res.set_header("Connection", "close");
    }
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
  });

  set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    record(&req, res.status, res.body.size());
  });
}

int HttpServer::bind(const std::string& address, int port, std::vector<std::string> allowed) {
  const int bound =
      port == 0 ? bind_to_any_port(address) : (bind_to_port(address, port) ? port : -1);
  if (bound <= 0) {
    const int err = errno;
    fail(ExitCode::kRuntime,
         fmt::format("cannot listen on {}:{} ({}); pick another --port, or check that --bind "
                     "names an address of this machine",
                     address, port, err ? std::strerror(err) : "unknown error"));
  }
  // httplib listens with a backlog of 5, compiled in; a second listen(2) only resizes it.
  ::listen(svr_sock_, limits_.backlog);
  port_ = bound;
  for (auto& h : allowed) allowed_hosts_.push_back(lower(h));
  return bound;
}

void HttpServer::serve() {
  listen_after_bind();
  queue_.store(nullptr);  // httplib has deleted it
}

void HttpServer::stop_accepting() {
  stop_requested_.store(true);
  const socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
  if (sock != INVALID_SOCKET) {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
}

Metrics::Gauges HttpServer::gauges() const {
  Metrics::Gauges g;
  g.workers = limits_.workers;
  if (auto* q = queue_.load()) {
    g.busy_workers = q->busy();
    g.queued = q->waiting();
  }
  return g;
}

bool HttpServer::host_allowed(const std::string& value) const {
  std::string name, port;
  if (!value.empty() && value.front() == '[') {
    const auto close = value.find(']');
    if (close == std::string::npos) return false;
    name = value.substr(0, close + 1);
    const std::string rest = value.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
    }
  } else {
    const auto colon = value.rfind(':');
    name = value.substr(0, colon);
    if (colon != std::string::npos) port = value.substr(colon + 1);
  }
  if (port.empty()) {
    if (port_ != 80) return false;
  } else {
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
    if (std::stoi(port) != port_) return false;
  }
  name = lower(name);
  return std::find(allowed_hosts_.begin(), allowed_hosts_.end(), name) != allowed_hosts_.end();
}

httplib::Server::HandlerResponse HttpServer::check(const httplib::Request& req,
                                                   httplib::Response& res) {
  Exchange& ex = current_exchange();
  ex.routed = true;
  ex.route = route_of(req.path);
  // Answers are small and whole: a Range header is ignored, as RFC 9110 allows.
  const_cast<httplib::Request&>(req).ranges.clear();
  if (ex.shedding) {
    ex.close_after = true;
    send_problem(res, overloaded());
    return HandlerResponse::Handled;
  }
  // A body is never read, so the connection cannot carry another request after this one.
  const bool has_body =
      req.has_header("Transfer-Encoding") || req.get_header_value_count("Content-Length") > 1 ||
      (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
  if (has_body) ex.close_after = true;
  if (req.method != "GET" && req.method != "HEAD") {
    send_problem(res, method_not_allowed(req.method));
    return HandlerResponse::Handled;
  }
  if (has_body) {
    send_problem(res, body_not_accepted("GET and HEAD requests carry no body here: send neither "
                                        "Content-Length (other than 0) nor Transfer-Encoding"));
    return HandlerResponse::Handled;
  }
  std::size_t fields = 0;
  for (auto& h : req.headers)
    if (h.first != "REMOTE_ADDR" && h.first != "REMOTE_PORT" && h.first != "LOCAL_ADDR" &&
        h.first != "LOCAL_PORT")
      ++fields;
  // The request line and the blank line end aside, every line of the head is a field.
  fields = std::max(fields, ex.head_lines > 2 ? ex.head_lines - 2 : 0);
  if (fields > limits_.max_headers) {
    ex.close_after = true;
    send_problem(res, headers_too_large(limits_.max_request_head));
    return HandlerResponse::Handled;
  }
  if (req.get_header_value_count("Host") != 1) {
    send_problem(res, bad_request("exactly one Host header is required"));
    return HandlerResponse::Handled;
  }
  if (const std::string host = req.get_header_value("Host"); !host_allowed(host)) {
    send_problem(
        res, misdirected(fmt::format(
                 "Host '{}' is not served here (DNS rebinding protection); ask for "
                 "http://{}:{}/ or start the server with --allow-host",
                 printable(host), allowed_hosts_.empty() ? "" : allowed_hosts_.front(), port_)));
    return HandlerResponse::Handled;
  }
  if (req.target.size() > limits_.max_target) {
    send_problem(res, uri_too_long(limits_.max_target));
    return HandlerResponse::Handled;
  }
  router_(req, res);
  return HandlerResponse::Handled;
}

void HttpServer::record(const httplib::Request* req, int status, std::size_t body_bytes) {
  Exchange& ex = current_exchange();
  const auto elapsed = Clock::now() - ex.start;
  metrics_.request(ex.route, status, elapsed);
  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::debug("{} {} {} {} {}B {:.3f}ms",
                  req ? printable(req->remote_addr, 64) : std::string("-"),
                  req ? printable(req->method, 16) : std::string("-"),
                  req ? printable(req->target, 200) : std::string("-"), status, body_bytes,
                  std::chrono::duration<double, std::milli>(elapsed).count());
  }
}

void HttpServer::write_canned(socket_t sock, const Problem& problem) {
  const std::string body = problem.body();
  std::string head = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n"
      "Cache-Control: no-store\r\n",
      problem.status, problem.title, kProblemContentType, body.size());
  for (auto& [name, value] : problem.headers) head += fmt::format("{}: {}\r\n", name, value);
  head += "\r\n";
  const std::string bytes = head + body;
  std::size_t sent = 0;
  while (sent < bytes.size() && poll_for(sock, POLLOUT, limits_.write_timeout) > 0) {
    const ssize_t n =
        ::send(sock, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0 && errno != EAGAIN && errno != EINTR) break;
    if (n > 0) sent += static_cast<std::size_t>(n);
  }
  record(nullptr, problem.status, body.size());
}

bool HttpServer::wait_for_request(socket_t sock, bool buffered, std::size_t served) const {
  if (buffered) return true;
  const milliseconds limit = served == 0 ? limits_.read_timeout : limits_.keep_alive_timeout;
  const auto start = Clock::now();
  for (;;) {
    if (stop_requested_.load()) return false;
    const auto idle = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
    if (idle >= limit) return false;
    const BoundedTaskQueue* queue = queue_.load();
    if (queue && queue->waiting() > 0 && idle >= limits_.yield_after) return false;
    const int r = poll_for(sock, POLLIN, std::min(milliseconds(50), limit - idle));
    if (r > 0) return true;  // a request, or the client closing (the next read says which)
    if (r < 0) return false;
  }
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  Exchange& ex = current_exchange();
  ex = Exchange{};
  ex.shedding = BoundedTaskQueue::is_shedding();
  metrics_.connection_accepted();
  if (ex.shedding) metrics_.connection_shed();
  const int one = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  if (ex.shedding) {
    // Every worker is busy and the queue is full: answer at once, without reading the request
    // (a server may respond early and close), so a slow client cannot hold this thread either.
    ex.start = Clock::now();
    write_canned(sock, overloaded());
    close_socket(sock, true);
    return true;
  }
  serve_connection(sock, Clock::now());
  return true;
}

bool HttpServer::await_head(socket_t sock, Clock::time_point accepted) {
  std::string head;
  bool looked = false;
  for (;;) {
    // Look without reading, so a connection put back in the queue loses nothing.
    head.resize(limits_.max_request_head);
    const ssize_t n = ::recv(sock, head.data(), head.size(), MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
      return true;  // closed or failed: the read says which
    if (n < 0) {
      // Nothing sent yet: as the connection loop does between requests, give the worker up
      // (closing) when others wait and the client has been idle a moment, or at the first-byte
      // deadline; else wait for a byte.
      const auto idle = Clock::now() - accepted;
      const BoundedTaskQueue* queue = queue_.load();
      if (idle >= limits_.read_timeout || stop_requested_.load() ||
          (queue && queue->waiting() > 0 && idle >= limits_.yield_after)) {
        close_socket(sock, false);
        return false;
      }
      poll_for(sock, POLLIN, milliseconds(50));
      continue;
    }
    const std::size_t got = static_cast<std::size_t>(n);
    head.resize(got);
    if (got >= limits_.max_request_head || head.find("\r\n\r\n") != std::string::npos ||
        head.find("\n\n") != std::string::npos)
      return true;  // the whole head is here (or more than may be read): serve it now
    auto refuse = [&](const Problem& problem) {
      Exchange& ex = current_exchange();
      ex = Exchange{};
      ex.start = Clock::now();
      write_canned(sock, problem);
      close_socket(sock, true);
      return false;
    };
    // The same answer as a head read that runs out of time.
    if (Clock::now() - accepted >= limits_.head_timeout) return refuse(request_timeout());
    // New connections wait for a worker: after one short look, park this one behind them. The
    // look keeps workers from spinning through parked connections.
    BoundedTaskQueue* queue = queue_.load();
    const bool others_wait = queue && queue->waiting() > 0 && !stop_requested_.load();
    if (others_wait && looked) {
      if (!queue->park([this, sock, accepted] { serve_connection(sock, accepted); }))
        return refuse(overloaded());
      return false;
    }
    looked = true;
    // Partly arrived data keeps the socket readable: sleep rather than poll.
    std::this_thread::sleep_for(milliseconds(others_wait ? 10 : 50));
  }
}

void HttpServer::serve_connection(socket_t sock, Clock::time_point accepted) {
  if (!await_head(sock, accepted)) return;
  Exchange& ex = current_exchange();
  ex = Exchange{};
  ConnectionStream stream(sock, limits_, ex);
  bool linger = false;
  for (std::size_t served = 0; served < limits_.keep_alive_max; ++served) {
    if (!wait_for_request(sock, stream.buffered(), served)) break;
    const bool shedding = ex.shedding;
    ex = Exchange{};
    ex.shedding = shedding;
    ex.start = Clock::now();
    stream.begin_request();
    const bool last = served + 1 >= limits_.keep_alive_max || ex.shedding || stop_requested_;
    bool client_closes = false;
    const bool ok = process_request(stream, last, client_closes, nullptr);
    if (!ex.responded) {
      // httplib stops without answering when the request line cannot be read whole.
      if (ex.head_too_large) {
        write_canned(sock, ex.line_complete ? headers_too_large(limits_.max_request_head)
                                            : uri_too_long(limits_.max_target));
        linger = true;
      } else if (ex.timed_out && stream.consumed() > 0) {
        write_canned(sock, request_timeout());
        linger = true;
      }
      break;
    }
    if (!stream.flush()) break;
    if (!ok || client_closes || last || ex.close_after) {
      linger = ex.close_after || stream.buffered();
      break;
    }
  }
  close_socket(sock, linger);
}

}  // namespace occtune::service
