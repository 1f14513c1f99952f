// How a run's samples were flushed from L2 (TimingPolicy::flush_l2 and flush_method), in one
// word: "off", "read", or "memset" for a run stored before the method was recorded (wave 22).
// Samples taken with different flushes are not comparable: the memset flush left dirty lines
// that the timed launch wrote back, 3-14% of a memory-bound kernel's time on the H200
// (docs/PERFORMANCE.md, "The L2 flush"). The store never reuses them for one another, and the
// regression gate does not judge one against the other (docs/ci.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "autotuner/core/measurement.hpp"

namespace occtune {

std::string flush_protocol(const TimingPolicy& policy);

// From a stored run's policy JSON; "" when it does not say (not JSON, or no flush_l2).
std::string stored_flush_protocol(const std::string& policy_json);
std::string stored_flush_protocol_of(const nlohmann::json& policy);  // parsed already

}  // namespace occtune
