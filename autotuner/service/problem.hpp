// Error responses as RFC 9457 problem details (application/problem+json). Every error the
// service sends is built here, so none can carry SQL text or an internal exception string:
// titles are fixed per type and details are written by the service itself.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace occtune::service {

inline constexpr std::string_view kProblemContentType = "application/problem+json";

struct Problem {
  int status = 500;
  std::string type;    // slug; the document says "urn:occtune:problem:<slug>"
  std::string title;   // fixed per type
  std::string detail;  // this occurrence, in the service's own words
  nlohmann::json extensions = nlohmann::json::object();      // e.g. {"parameter": "m"}
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Allow, Retry-After

  std::string body() const;
};

// The problem types (listed in docs/openapi.json and the README).
Problem bad_parameter(const std::string& parameter, const std::string& detail);
Problem not_found(const std::string& path);
Problem unknown_device(const std::string& uuid);
Problem no_configuration(const std::string& detail, nlohmann::json chain);
Problem method_not_allowed(const std::string& method);
Problem body_not_accepted(const std::string& detail);
Problem misdirected(const std::string& detail);
Problem bad_request(const std::string& detail);
Problem uri_too_long(std::size_t limit);
Problem headers_too_large(std::size_t limit);
Problem request_timeout();
Problem expectation_failed();
Problem overloaded();
Problem store_busy();
Problem store_unavailable();
Problem internal_error();
// A problem for a status httplib produced on its own (a request it could not parse).
Problem for_status(int status);

// Printable ASCII only, at most `limit` characters: values from a request are echoed through
// this, so a detail never carries control characters or invalid UTF-8.
std::string printable(std::string_view text, std::size_t limit = 64);

}  // namespace occtune::service
