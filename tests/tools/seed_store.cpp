// occtune_seed: fills a database with synthetic complete runs through the Store API, for the
// serve, report and Slurm fleet e2e tests and scripts/loadtest-serve.sh (no GPU needed).
//   occtune_seed DB [DEVICES [SHAPES [FIRST]]]    H100-like devices numbered from FIRST
//                                                 (default 0); prints the first UUID
//   occtune_seed DB --uuid UUID [--profile NAME] [--best-ms MS] SHAPE...
//                    one device of a profile's model (configs/profiles; default H100-like)
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
#include <vector>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/shape.hpp"
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


int usage() {
  std::fprintf(stderr,
               "usage: occtune_seed DB [DEVICES [SHAPES [FIRST]]]\n"
               "       occtune_seed DB --uuid UUID [--profile NAME] [--best-ms MS] SHAPE...\n"
               "       occtune_seed --report DB [EXPECT.json]\n");
  return 2;
}

// The second form: a fleet node of a given model that tuned the given shapes with this build.
int seed_one_device(const std::string& db, int argc, char** argv) {
  std::string uuid, profile;
  double best_ms = 0.1;
  std::vector<occtune::Shape> shapes;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--uuid" && has_value) {
      uuid = argv[++i];
    } else if (arg == "--profile" && has_value) {
      profile = argv[++i];
    } else if (arg == "--best-ms" && has_value) {
      best_ms = std::atof(argv[++i]);
    } else if (arg.rfind("--", 0) == 0) {
      return usage();
    } else {
      shapes.push_back(occtune::parse_shape(arg));
    }
  }
  if (uuid.empty() || shapes.empty() || best_ms <= 0) return usage();
  auto store = occtune::db::Store::open(db);
  occtune::DeviceInfo device = occtune::testing::seed_device(uuid);
  if (!profile.empty()) {
    // The model's published limits, as a GPU of that model would report them.
    device = occtune::load_device_profile(profile);
    device.uuid = uuid;
    device.source = "runtime";
    device.driver_version = device.runtime_version = 13000;
  }
  for (const auto& shape : shapes) occtune::testing::seed_run(store, device, shape, best_ms);
  std::printf("%s\n", uuid.c_str());
  return 0;
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
  if (argc < 2) return usage();
  try {
    if (argc > 2 && std::string(argv[2]) == "--uuid") return seed_one_device(argv[1], argc, argv);
    if (argc > 5) return usage();
    const int devices = argc > 2 ? std::atoi(argv[2]) : 4;
    const int shapes = argc > 3 ? std::atoi(argv[3]) : 8;
    const int first_index = argc > 4 ? std::atoi(argv[4]) : 0;
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
