#include "autotuner/output/format.hpp"

#include <fmt/format.h>

namespace occtune::output {

std::string bytes(std::size_t n) {
  if (n >= (1ull << 30)) return fmt::format("{:.1f} GiB", double(n) / double(1ull << 30));
  if (n >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(n) / double(1ull << 20));
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{} KiB", n / 1024);
  return fmt::format("{} B", n);
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100.0); }
std::string fixed(double value, int digits) { return fmt::format("{:.{}f}", value, digits); }
std::string sci(double value) { return value < 0 ? "-" : fmt::format("{:.1e}", value); }

}  // namespace occtune::output
