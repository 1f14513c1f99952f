// occtune_seed: fills a database with synthetic complete runs through the Store API, for the
// serve e2e test and scripts/loadtest-serve.sh (no GPU needed). Prints the first device's UUID.
//   occtune_seed DB [DEVICES [SHAPES]]
//   occtune_seed --report DB [EXPECT.json]: every family on three shapes, two tune sessions and
//   three checks (tests/support/seed_report.hpp), for the report's tests and screenshots; the
//   optional file gets what a report of it must show (charts, points per family and shape).
#include <fmt/format.h>

#include "tests/support/seed_report.hpp"
#include "tests/support/seed_store.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "db/store.hpp"

namespace {

// What tests/e2e/report_check.py must find in the report of the seeded store.
void write_expectation(const char* path) {
  std::string points;
  for (auto& shape : occtune::testing::report_shapes()) {
    std::string families;
    for (auto& f : occtune::testing::seed_families()) {
      if (!families.empty()) families += ", ";
      families += fmt::format("\"{}\": {}", f, occtune::kernels::variants_of(f).size());
    }
    if (!points.empty()) points += ", ";
    points += fmt::format("\"{}\": {{{}}}", shape.str(), families);
  }
  const std::size_t n = occtune::testing::report_shapes().size();
  std::FILE* f = std::fopen(path, "w");
  if (!f) throw std::runtime_error(std::string("cannot write ") + path);
  std::fprintf(f,
               "{\"scatter_charts\": %zu, \"history_charts\": %zu, \"points\": {%s}, "
               "\"outcomes\": [\"ok\", \"wrong_result\", \"crashed\", \"timeout\"], "
               "\"verdicts\": [\"SAME\", \"SLOW\"]}\n",
               n, n, points.c_str());
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--report") {
    try {
      std::printf("%s\n", occtune::testing::seed_report_store(argv[2]).uuid.c_str());
      if (argc == 4) write_expectation(argv[3]);
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "occtune_seed: %s\n", e.what());
      return 4;
    }
  }
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: occtune_seed DB [DEVICES [SHAPES]] | occtune_seed --report DB\n");
    return 2;
  }
  const int devices = argc > 2 ? std::atoi(argv[2]) : 4;
  const int shapes = argc > 3 ? std::atoi(argv[3]) : 8;
  try {
    auto store = occtune::db::Store::open(argv[1]);
    std::string first;
    for (int d = 0; d < devices; ++d) {
      char uuid[64];
      std::snprintf(uuid, sizeof uuid, "GPU-%08x-0000-4000-8000-%012x", 0x5eed0000u + unsigned(d),
                    unsigned(d));
      if (d == 0) first = uuid;
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
