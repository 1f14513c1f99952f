// libFuzzer harness for stored device properties through planning: any bytes as the
// properties_json of a device row (db/codec), then the heuristic lookup step's plan of every
// kernel family for a few shapes (db/lookup, core/offline_occupancy, core/candidate_generation).
// A forged warp size of 0 used to end in SIGFPE and thread limits of 2^31-1 in a walk of
// minutes (-timeout catches that); refusals must be usage (2) or not-found (3) errors.
#include <cstddef>
#include <cstdint>
#include <string>

#include "autotuner/core/shape.hpp"
#include "db/codec.hpp"
#include "db/lookup.hpp"
#include "kernels/registry.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const occtune::DeviceInfo device = occtune::db::codec::device_from_json(text);
  for (const auto& family : occtune::kernels::families())
    for (occtune::Shape shape : {occtune::Shape{1024, 1024, 1024}, occtune::Shape{1, 4097, 3}})
      occtune::fuzz::accepts(
          [&] { (void)occtune::db::occupancy_heuristic(device, family.name, shape); },
          {occtune::ExitCode::kUsage, occtune::ExitCode::kNotFound});
  return 0;
}
