// docs/schema/export.schema.json against real exports: `occtune export` of stores that hold
// every kind of row (passing, failing and unchecked candidates, unfinished runs, two devices)
// must validate, and damaged copies must not (so the schema is not vacuous). Validation uses the
// Debian-packaged python3-jsonschema (scripts/validate-json-schema.py); skipped without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "tests/support/gate_fixtures.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSchema = std::string(OCCTUNE_SOURCE_DIR) + "/docs/schema/export.schema.json";
const std::string kValidator = std::string(OCCTUNE_SOURCE_DIR) + "/scripts/validate-json-schema.py";

struct Dir {
  fs::path path = fs::temp_directory_path() / ("occtune_schema_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
};

// Exit status of the validator: 0 valid, 1 invalid, 77 jsonschema missing.
int validate(const fs::path& document) {
  const std::string cmd = "python3 " + kValidator + " " + kSchema + " " + document.string() + " >" +
                          document.string() + ".log 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write(const fs::path& path, const json& doc) { std::ofstream(path) << doc.dump(); }

TEST(ExportSchema, RealExportsValidateAndDamagedOnesDoNot) {
  Dir dir;
  const fs::path db = dir.path / "store.db";
  {
    auto store = db::Store::open(db);
    std::mt19937_64 rng(3);
    const testing::NoiseModel noise;
    testing::add_tuning_run(store, testing::gate_device(), {1024, 1024, 1024},
                            {{32, 0.26},
                             {16, 0.29},
                             {4, 1.3, Outcome::kWrongResult},
                             {8, 0.4, Outcome::kExceedsLimits}},
                            rng, noise);
    testing::add_tuning_run(store, testing::gate_device("GPU-2", 12080), {17, 1000, 33},
                            {{16, 0.01}}, rng, noise, 5, "build-b", "tiled_dynamic",
                            db::RunStatus::kInterrupted);
    db::RunStart unfinished;
    unfinished.device = testing::gate_device();
    unfinished.kernel = "tiled_static";
    unfinished.build_id = "build-a";
    unfinished.shape = {64, 64, 64};
    store.begin_run(unfinished);  // still `running`: finished_at is null, no reference
  }
  const fs::path exported = dir.path / "export.json";
  const auto r = testing::run_cli("export --db " + db.string() + " --out " + exported.string());
  ASSERT_EQ(r.code, 0) << r.err;

  const int status = validate(exported);
  if (status == 77) GTEST_SKIP() << "python3-jsonschema is not installed (scripts/setup.sh)";
  EXPECT_EQ(status, 0) << testing::slurp(exported.string() + ".log");

  const json good = json::parse(testing::slurp(exported.string()));
  ASSERT_EQ(good["runs"].size(), 3u);
  struct Damage {
    const char* what;
    void (*apply)(json&);
  };
  const Damage damages[] = {
      {"no schema_version", [](json& d) { d.erase("schema_version"); }},
      {"a run without kernel", [](json& d) { d["runs"][0].erase("kernel"); }},
      {"an unknown status", [](json& d) { d["runs"][0]["status"] = "done"; }},
      {"a text shape", [](json& d) { d["runs"][0]["m"] = "1024"; }},
      {"an unknown outcome",
       [](json& d) { d["runs"].back()["measurements"][0]["outcome"] = "meh"; }},
      {"a negative sample",
       [](json& d) { d["runs"].back()["measurements"][0]["samples_ms"][0] = -1.0; }},
      {"a text label of params",
       [](json& d) { d["runs"].back()["measurements"][0]["params"] = "tile=32"; }},
      {"an integer winner", [](json& d) { d["runs"].back()["measurements"][0]["winner"] = 1; }},
      {"a bad timestamp", [](json& d) { d["runs"][0]["started_at"] = "yesterday"; }},
      {"an extra device key field", [](json& d) { d["runs"][0]["device"]["colour"] = "green"; }},
  };
  for (auto& damage : damages) {
    json bad = good;
    damage.apply(bad);
    const fs::path path = dir.path / "bad.json";
    write(path, bad);
    EXPECT_EQ(validate(path), 1) << damage.what << " was accepted";
  }
}

}  // namespace
}  // namespace occtune
