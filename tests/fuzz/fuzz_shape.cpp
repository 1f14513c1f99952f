// libFuzzer harness for the shape parser (autotuner/core/shape.cpp): any bytes as an MxNxK
// argument. An accepted shape must print back to text that parses to the same shape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "autotuner/core/shape.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  occtune::Shape shape;
  if (occtune::fuzz::accepts([&] { shape = occtune::parse_shape(text); })) {
    for (auto side : {shape.m, shape.n, shape.k})
      if (side < 1 || side > occtune::kMaxShapeSide)
        occtune::fuzz::violation("accepted shape", "side out of range");
    if (!(occtune::parse_shape(shape.str()) == shape))
      occtune::fuzz::violation("round trip", shape.str().c_str());
    (void)shape.operand_bytes(4);
  }
  return 0;
}
