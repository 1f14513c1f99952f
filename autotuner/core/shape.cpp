#include "autotuner/core/shape.hpp"

#include <charconv>
#include <fmt/format.h>

#include "autotuner/core/error.hpp"

namespace occtune {

std::string Shape::str() const { return fmt::format("{}x{}x{}", m, n, k); }

std::uint64_t Shape::operand_bytes(std::uint64_t element_size) const {
  auto mm = std::uint64_t(m), nn = std::uint64_t(n), kk = std::uint64_t(k);
  // Each product is < 2^62 because every side is < 2^31; the sum can still wrap for absurd
  // shapes, so saturate instead of wrapping.
  const std::uint64_t elements[] = {mm * kk, kk * nn, mm * nn};
  std::uint64_t total = 0;
  for (auto e : elements) {
    if (e > UINT64_MAX / element_size || total > UINT64_MAX - e * element_size) return UINT64_MAX;
    total += e * element_size;
  }
  return total;
}

Shape parse_shape(std::string_view text) {
  auto bad = [&](std::string_view why) -> Shape {
    fail(ExitCode::kUsage,
         fmt::format("invalid shape '{}': {}; write it as MxNxK with three positive integers, "
                     "e.g. 1024x1024x1024",
                     text, why));
  };
  std::int64_t sides[3] = {0, 0, 0};
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    auto end = text.find_first_of("xX", pos);
    if (i < 2 && end == std::string_view::npos) return bad("expected three sides separated by 'x'");
    if (i == 2) end = text.size();
    auto part = text.substr(pos, end - pos);
    if (part.empty()) return bad("a side is empty");
    if (part.front() == '-') return bad(fmt::format("side '{}' is negative", part));
    if (part.front() == '+') part.remove_prefix(1);
    // from_chars takes a sign itself: "+-5" must not slip through as -5.
    if (!part.empty() && (part.front() < '0' || part.front() > '9'))
      return bad(fmt::format("side '{}' is not a whole number", part));
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > kMaxShapeSide))
      return bad(fmt::format("side '{}' is larger than {}", part, kMaxShapeSide));
    if (ec != std::errc() || ptr != part.data() + part.size())
      return bad(fmt::format("side '{}' is not a whole number", part));
    if (value == 0) return bad("a side is zero");
    sides[i] = value;
    pos = end + 1;
  }
  return Shape{sides[0], sides[1], sides[2]};
}

}  // namespace occtune
