// libFuzzer harness for the service's query parameters (autotuner/service/params): any bytes as
// the query of GET /v1/best or /v1/configs (the first byte picks the route), parsed by httplib
// as the server does, then the raw-target repeat check and the route's validation. Invariants:
// only BadParameter (a 400) escapes, with a name and a one-line detail, and an accepted request
// has the same cache key as its canonical query, so no two different questions share an answer.
#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "autotuner/service/params.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using occtune::fuzz::violation;
using occtune::service::BadParameter;

occtune::service::QueryParams::Multimap parse(const std::string& query) {
  occtune::service::QueryParams::Multimap params;
  httplib::detail::parse_query_text(query, params);
  return params;
}

template <class F>
void validated(F&& check) {
  try {
    check();
  } catch (const BadParameter& e) {
    if (e.name.empty() && e.detail.empty()) violation("a BadParameter naming nothing", "");
    if (e.detail.find('\n') != std::string::npos)
      violation("a multi-line detail", e.detail.c_str());
  } catch (const std::exception& e) {
    violation("an exception that is not BadParameter", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool best = data[0] % 2 == 0;
  const std::string query(reinterpret_cast<const char*>(data) + 1, size - 1);
  validated([&] {
    occtune::service::reject_repeated_names((best ? "/v1/best?" : "/v1/configs?") + query);
    const auto params = parse(query);
    if (best) {
      const auto r = occtune::service::parse_best(params);
      const std::string canonical =
          "device=" + r.device + "&kernel=" + r.kernel + "&m=" + std::to_string(r.shape.m) +
          "&n=" + std::to_string(r.shape.n) + "&k=" + std::to_string(r.shape.k) +
          "&dtype=" + r.dtype + "&fallback=" + (r.fallback ? "true" : "false");
      if (occtune::service::parse_best(parse(canonical)).cache_key() != r.cache_key())
        violation("a best request whose cache key differs from its canonical form's",
                  r.cache_key().c_str());
    } else {
      const auto r = occtune::service::parse_configs(params);
      std::string canonical = "limit=" + std::to_string(r.limit);
      if (r.cursor) canonical += "&cursor=" + std::to_string(r.cursor);
      if (r.device) canonical += "&device=" + *r.device;
      if (r.kernel) canonical += "&kernel=" + *r.kernel;
      if (occtune::service::parse_configs(parse(canonical)).cache_key() != r.cache_key())
        violation("a configs request whose cache key differs from its canonical form's",
                  r.cache_key().c_str());
    }
  });
  return 0;
}
