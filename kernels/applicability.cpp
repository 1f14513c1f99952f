// The applicability rule of registered variants (kernels/applicability.hpp): architecture and
// operand alignment, from the data each variant carries (VariantInfo).
#include "kernels/applicability.hpp"

#include <utility>
#include <vector>

namespace occtune::kernels {
namespace {

std::string sm(int cc) { return "sm_" + std::to_string(cc); }

std::string why(const VariantInfo& v) {
  return v.requirement.empty() ? std::string() : " (" + v.requirement + ")";
}

// "K and N" from {"K", "N"}; names already listed are dropped.
std::string joined(const std::vector<std::pair<std::string, std::int64_t>>& bad,
                   bool with_values) {
  std::vector<std::pair<std::string, std::int64_t>> unique;
  for (const auto& b : bad) {
    bool seen = false;
    for (const auto& u : unique) seen = seen || u.first == b.first;
    if (!seen) unique.push_back(b);
  }
  std::string out;
  for (std::size_t i = 0; i < unique.size(); ++i) {
    if (i > 0) out += i + 1 == unique.size() ? " and " : ", ";
    out += unique[i].first;
    if (with_values) out += " = " + std::to_string(unique[i].second);
  }
  return out;
}

// The leading dimensions that are not multiples of the variant's alignment, named.
std::vector<std::pair<std::string, std::int64_t>> misaligned(
    const VariantInfo& v, const std::vector<std::pair<std::string, std::int64_t>>& lds) {
  std::vector<std::pair<std::string, std::int64_t>> bad;
  for (const auto& ld : lds)
    if (ld.second % v.operand_alignment != 0) bad.push_back(ld);
  return bad;
}

std::string alignment_message(const VariantInfo& v,
                              const std::vector<std::pair<std::string, std::int64_t>>& bad) {
  return "needs " + joined(bad, false) + " multiples of " + std::to_string(v.operand_alignment) +
         (v.requirement.empty() ? "" : " (" + v.requirement + " strides)") + "; here " +
         joined(bad, true);
}

}  // namespace

std::string arch_violation(const VariantInfo& v, int cc) {
  if (v.required_compute_capability <= 0 || cc == v.required_compute_capability) return {};
  return "needs " + sm(v.required_compute_capability) + why(v) + "; the device is " + sm(cc);
}

std::string operand_violation(const VariantInfo& v, const OperandLayout& o) {
  if (v.operand_alignment <= 1) return {};
  // C is not constrained (VariantInfo::operand_alignment).
  const auto bad = misaligned(v, {{"lda", o.lda}, {"ldb", o.ldb}});
  if (!bad.empty()) return alignment_message(v, bad);
  const std::uintptr_t bytes = std::uintptr_t(v.operand_alignment) * sizeof(float);
  std::string pointers;
  for (const auto& [name, address] : {std::pair{"A", o.a}, std::pair{"B", o.b}})
    if (address % bytes != 0) pointers += (pointers.empty() ? "" : ", ") + std::string(name);
  if (pointers.empty()) return {};
  return "needs A and B aligned to " + std::to_string(bytes) + " bytes" + why(v) +
         "; not aligned: " + pointers;
}

std::string shape_violation(const VariantInfo& v, std::int64_t m, std::int64_t n,
                            std::int64_t k) {
  if (v.operand_alignment <= 1) return {};
  // The dense operands' leading dimensions in the variant's layout (include/occtune/layout.hpp).
  const bool ta = transposes_a(v.layout), tb = transposes_b(v.layout);
  const auto bad = misaligned(v, {{ta ? "M" : "K", ta ? m : k}, {tb ? "K" : "N", tb ? k : n}});
  return bad.empty() ? std::string() : alignment_message(v, bad);
}

}  // namespace occtune::kernels
