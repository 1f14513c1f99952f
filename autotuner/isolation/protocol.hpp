// The wire format between occtune and its worker process (docs/architecture.md, "Worker
// isolation"): one JSON object per line. The parent sends requests {"op": ..., ...}; the worker
// answers each with {"ok": true, ...} or {"ok": false, "code": N, "message": "..."}, plus
// "context_lost": true when a sticky CUDA error made it exit after answering. Encodings are
// exact (doubles round-trip; NaN and infinities travel as strings) so a measurement taken in the
// worker is the one the parent stores.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "autotuner/core/backend.hpp"
#include "autotuner/core/candidate.hpp"
#include "autotuner/core/candidate_generation.hpp"
#include "autotuner/core/device_info.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/layout.hpp"
#include "autotuner/core/measurement.hpp"
#include "autotuner/core/shape.hpp"

namespace occtune::isolation {

using nlohmann::json;

inline constexpr int kProtocolVersion = 1;

// One message as it goes on the wire: compact, one line; bytes that are not UTF-8 (a quoted bad
// input in an error message) are replaced rather than failing the send.
inline std::string wire(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

json encode(const DeviceInfo& device);
json encode(const TimingPolicy& policy);
json encode(const Shape& shape);
// A layout crosses as its name ("nt"), as it is written everywhere else.
json encode(Layout layout);
// A candidate travels with its variant's manifest symbol; the other side looks the variant up
// in its own registry (both sides run the same executable).
json encode(const Candidate& candidate);
json encode(const Plan& plan);
json encode(const SampleBatch& batch);
// What check() adds to the candidate: outcome, error, relative error, flops.
json encode_check(const Measurement& measurement);

// Decoders throw Error(kRuntime) naming the field when the message is not what was sent.
DeviceInfo decode_device(const json& j);
TimingPolicy decode_policy(const json& j);
Shape decode_shape(const json& j);
Layout decode_layout(const json& j);
Candidate decode_candidate(const json& j);
Plan decode_plan(const json& j);
SampleBatch decode_batch(const json& j);
// Fills the check fields of `m` (whose candidate the caller already holds).
void decode_check(const json& j, Measurement& m);

// Runs `body`, turning a JSON access error into Error(kRuntime) that names `what`.
template <class F>
auto decoding(const char* what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const json::exception& e) {
    throw Error(ExitCode::kRuntime, std::string("worker protocol: malformed ") + what + ": " +
                                        e.what() +
                                        "; rerun, or measure in-process with "
                                        "--no-isolation");
  }
}

}  // namespace occtune::isolation
