// The fixed catalogue of problem types and the JSON they are sent as.
#include "autotuner/service/problem.hpp"

#include <fmt/format.h>

namespace occtune::service {
namespace {

Problem make(int status, std::string type, std::string title, std::string detail) {
  Problem p;
  p.status = status;
  p.type = std::move(type);
  p.title = std::move(title);
  p.detail = std::move(detail);
  return p;
}

}  // namespace

std::string Problem::body() const {
  nlohmann::json j = {{"type", "urn:occtune:problem:" + type},
                      {"title", title},
                      {"status", status},
                      {"detail", detail}};
  for (auto& [k, v] : extensions.items()) j[k] = v;
  // Details are built from printable() text, but never let a stray byte turn into an exception.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

Problem bad_parameter(const std::string& parameter, const std::string& detail) {
  Problem p = make(400, "bad-parameter", "Invalid query parameter",
                   fmt::format("parameter '{}': {}", printable(parameter, 32), detail));
  p.extensions["parameter"] = printable(parameter, 32);
  return p;
}

Problem not_found(const std::string& path) {
  return make(
      404, "not-found", "No such resource",
      fmt::format("'{}' is not a route of this service; see /openapi.json", printable(path)));
}

Problem unknown_device(const std::string& uuid) {
  return make(404, "unknown-device", "Unknown device",
              fmt::format("device {} has no records in the store; run `occtune tune` on it, or "
                          "list the known devices at /v1/devices",
                          uuid));
}

Problem no_configuration(const std::string& detail, nlohmann::json chain) {
  Problem p = make(404, "no-configuration", "No cached configuration", detail);
  p.extensions["chain"] = std::move(chain);
  return p;
}

Problem method_not_allowed(const std::string& method) {
  Problem p = make(405, "method-not-allowed", "Method not allowed",
                   fmt::format("method '{}' is not allowed; this service is read-only and "
                               "answers GET and HEAD",
                               printable(method, 16)));
  p.headers.emplace_back("Allow", "GET, HEAD");
  return p;
}

Problem body_not_accepted(const std::string& detail) {
  return make(413, "body-not-accepted", "Request bodies are not accepted", detail);
}

Problem misdirected(const std::string& detail) {
  return make(421, "misdirected-request", "Host not served here", detail);
}

Problem bad_request(const std::string& detail) {
  return make(400, "bad-request", "Malformed request", detail);
}

Problem uri_too_long(std::size_t limit) {
  return make(414, "uri-too-long", "Request target too long",
              fmt::format("the request target is longer than {} bytes", limit));
}

Problem headers_too_large(std::size_t limit) {
  return make(431, "headers-too-large", "Request header fields too large",
              fmt::format("the request line and headers exceed {} bytes or the header count "
                          "limit",
                          limit));
}

Problem request_timeout() {
  return make(408, "request-timeout", "Request timeout",
              "the request line and headers did not arrive in time");
}

Problem expectation_failed() {
  return make(417, "expectation-failed", "Expectation not supported",
              "this service accepts no request bodies, so it does not answer Expect");
}

Problem overloaded() {
  Problem p = make(503, "overloaded", "Service overloaded",
                   "every worker is busy and the waiting queue is full; retry shortly");
  p.headers.emplace_back("Retry-After", "1");
  return p;
}

Problem store_busy() {
  Problem p = make(503, "store-busy", "Store busy",
                   "the database is locked by another process; retry shortly");
  p.headers.emplace_back("Retry-After", "1");
  return p;
}

Problem store_unavailable() {
  // Not 500: the file was readable at start, so this is most likely passing (locked while a
  // connection opens, replaced on disk); the log has the store's own message.
  Problem p = make(503, "store-unavailable", "Store unavailable",
                   "the database could not be opened or read; retry shortly (the server log "
                   "says why)");
  p.headers.emplace_back("Retry-After", "1");
  return p;
}

Problem internal_error() {
  return make(500, "internal-error", "Internal error",
              "the request failed inside the service; the server log says why");
}

Problem for_status(int status) {
  switch (status) {
    case 405:
      return method_not_allowed("?");
    case 408:
      return request_timeout();
    case 413:
      return body_not_accepted("request bodies are not accepted");
    case 414:
      return uri_too_long(8192);
    case 416:
      return make(416, "bad-range", "Range not satisfiable", "the Range header is not valid");
    case 417:
      return expectation_failed();
    case 431:
      return headers_too_large(8192);
    default:
      break;
  }
  if (status >= 500) return internal_error();
  Problem p = bad_request("the request could not be parsed as HTTP/1.1");
  p.status = status;
  return p;
}

}  // namespace occtune::service
