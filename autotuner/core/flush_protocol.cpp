#include "autotuner/core/flush_protocol.hpp"

#include <nlohmann/json.hpp>

namespace occtune {

std::string flush_protocol(const TimingPolicy& policy) {
  return policy.flush_l2 ? policy.flush_method : "off";
}

std::string stored_flush_protocol(const std::string& policy_json) {
  return stored_flush_protocol_of(nlohmann::json::parse(policy_json, nullptr, false));
}

std::string stored_flush_protocol_of(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("flush_l2") || !j.at("flush_l2").is_boolean()) return "";
  if (!j.at("flush_l2").get<bool>()) return "off";
  const auto method = j.find("flush_method");
  return method != j.end() && method->is_string() ? method->get<std::string>() : "memset";
}

}  // namespace occtune
