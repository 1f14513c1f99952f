// The HTTP/1.1 transport of the service: httplib 0.11's parser and response writer, with the
// connection handling replaced (process_and_close_socket is virtual in 0.11) so that the limits
// the Debian build fixes at compile time can be enforced here: the request head is capped in
// bytes and time, idle keep-alive connections give their worker up to waiting ones, a refused
// request closes its connection (its unread body must not be parsed as the next request), and
// shutdown does not wait for idle clients. Requests are checked for method, body, Host and size
// before any route sees them.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "autotuner/service/metrics.hpp"
#include "autotuner/service/problem.hpp"
#include "autotuner/service/task_queue.hpp"

namespace occtune::service {

using std::chrono::milliseconds;

struct HttpLimits {
  std::size_t max_request_head = 8192;  // request line + headers, bytes
  std::size_t max_headers = 64;         // header fields
  std::size_t max_target = 2048;        // request target (path and query), bytes
  milliseconds head_timeout{5000};      // whole request head, from its first byte
  milliseconds read_timeout{2000};      // a new connection's first byte; between bytes
  milliseconds write_timeout{2000};
  milliseconds keep_alive_timeout{2000};  // idle between requests
  milliseconds yield_after{100};       // idle time after which a connection yields to waiting ones
  std::size_t keep_alive_max = 10000;  // requests per connection
  std::size_t workers = 64;
  std::size_t queue = 256;      // accepted connections waiting for a worker
  std::size_t shed_queue = 64;  // connections waiting for their 503
  int backlog = 512;            // listen(2) backlog (httplib's compiled-in one is 5)
};

// What the handlers of the request in flight tell the connection loop; thread-local, because a
// worker serves one connection at a time.
struct Exchange {
  std::chrono::steady_clock::time_point start;
  Route route = Route::kOther;
  bool routed = false;          // our pre-routing handler saw the request
  bool close_after = false;     // close the connection after this response
  bool head_too_large = false;  // the stream refused to read past max_request_head
  bool line_complete = false;   // the request line's end was read
  bool timed_out = false;       // the head did not arrive in time
  bool responded = false;       // response bytes were written
  bool shedding = false;        // this connection only gets a 503
  std::size_t head_lines = 0;   // lines of the head read so far: httplib drops some headers
                                // (an empty value), so the field cap counts lines too
};
Exchange& current_exchange();

// Answers a request that passed the transport checks; returns the route it matched.
using Router = std::function<Route(const httplib::Request&, httplib::Response&)>;

void send_problem(httplib::Response& res, const Problem& problem);

class HttpServer final : public httplib::Server {
 public:
  HttpServer(HttpLimits limits, Metrics& metrics, Router router);

  // Binds and listens; returns the port (the kernel's choice for port 0). Throws Error.
  int bind(const std::string& address, int port, std::vector<std::string> allowed_hosts);
  // Serves until stop_accepting(); returns when every worker has finished.
  void serve();
  // Closes the listening socket. Safe from any thread, before or during serve(); idle
  // connections close within a poll slice, requests in flight finish.
  void stop_accepting();
  bool stopping() const { return stop_requested_.load(); }

  Metrics::Gauges gauges() const;
  const HttpLimits& limits() const { return limits_; }

 protected:
  bool process_and_close_socket(socket_t sock) override;

 private:
  HandlerResponse check(const httplib::Request& req, httplib::Response& res);
  bool host_allowed(const std::string& host) const;
  bool wait_for_request(socket_t sock, bool buffered, std::size_t served) const;
  // A new connection whose request head has not fully arrived does not hold a worker while
  // other connections wait: it goes back to the end of the queue (false: parked or closed).
  bool await_head(socket_t sock, std::chrono::steady_clock::time_point accepted);
  void serve_connection(socket_t sock, std::chrono::steady_clock::time_point accepted);
  void write_canned(socket_t sock, const Problem& problem);
  void record(const httplib::Request* req, int status, std::size_t body_bytes);

  HttpLimits limits_;
  Metrics& metrics_;
  Router router_;
  std::vector<std::string> allowed_hosts_;  // lower case, without port
  int port_ = 0;
  std::atomic<bool> stop_requested_{false};
  std::atomic<BoundedTaskQueue*> queue_{nullptr};
};

}  // namespace occtune::service
