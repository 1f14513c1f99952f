// occtune_seed: fills a database with synthetic complete runs through the Store API, for the
// serve e2e test and scripts/loadtest-serve.sh (no GPU needed). Prints the first device's UUID.
//   occtune_seed DB [DEVICES [SHAPES [FIRST]]]
// FIRST numbers the first device (default 0), so separate calls can add distinct devices.
#include "tests/support/seed_store.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "db/store.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 5) {
    std::fprintf(stderr, "usage: occtune_seed DB [DEVICES [SHAPES [FIRST]]]\n");
    return 2;
  }
  const int devices = argc > 2 ? std::atoi(argv[2]) : 4;
  const int shapes = argc > 3 ? std::atoi(argv[3]) : 8;
  const int first_index = argc > 4 ? std::atoi(argv[4]) : 0;
  try {
    auto store = occtune::db::Store::open(argv[1]);
    std::string first;
    for (int d = first_index; d < first_index + devices; ++d) {
      char uuid[64];
      std::snprintf(uuid, sizeof uuid, "GPU-%08x-0000-4000-8000-%012x", 0x5eed0000u + unsigned(d),
                    unsigned(d));
      if (d == first_index) first = uuid;
      const auto device = occtune::testing::seed_device(uuid);
      for (int s = 0; s < shapes; ++s) {
        const std::int64_t side = 256 << (s % 5);
        const occtune::Shape shape{side, side + s, side};
        occtune::testing::seed_run(store, device, shape, 0.1 * double(s + 1));
      }
    }
    std::printf("%s\n", first.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "occtune_seed: %s\n", e.what());
    return 4;
  }
  return 0;
}
