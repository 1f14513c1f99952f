// Export and import (db/exchange.hpp): a full round trip keeps every column and sample exactly,
// importing twice adds nothing, an unfinished run is replaced by its finished copy, bad documents
// are refused whole with the documented exit codes, and read_export gives the gate what the
// store holds. Temporary files only (export and import use a store file like the CLI does).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "autotuner/core/error.hpp"
#include "autotuner/core/model_json.hpp"
#include "db/exchange.hpp"
#include "tests/support/gate_fixtures.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune::db {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::add_tuning_run;
using testing::FakeCandidate;
using testing::gate_device;

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("occtune_exchange_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  Store store(const std::string& name) { return Store::open(path / name); }
};

// Two devices (one with another driver), two shapes, failing candidates among the passing ones.
void fill(Store& store) {
  std::mt19937_64 rng(42);
  const testing::NoiseModel noise{0.01, 0.02, 0.5};
  add_tuning_run(store, gate_device(), {1024, 1024, 1024},
                 {{32, 0.26}, {16, 0.29}, {8, 0.43}, {4, 1.37, Outcome::kWrongResult}}, rng, noise);
  add_tuning_run(store, gate_device(), {3001, 1000, 4097}, {{32, 2.9}, {16, 3.1}}, rng, noise);
  add_tuning_run(store, gate_device("GPU-99999999-2222-3333-4444-555555555555", 12080),
                 {1024, 1024, 1024}, {{32, 0.27}, {16, 0.30}}, rng, noise, 10);
}

// Row ids of the exporting store mean nothing in another one.
json without_ids(json doc) {
  for (auto& run : doc["runs"]) {
    run.erase("id");
    for (auto& m : run["measurements"]) {
      m.erase("id");
      m.erase("run_id");
    }
  }
  return doc;
}

TEST(Exchange, ExportCarriesEveryRunCandidateAndSample) {
  TempDir tmp;
  Store store = tmp.store("a.db");
  fill(store);
  const ExportResult result = export_runs(store, {"0.1.0-test", {"occtune", "export"}});
  EXPECT_EQ(result.runs, 3);
  EXPECT_EQ(result.measurements, 8);
  const json doc = json::parse(result.json);
  EXPECT_EQ(doc["schema_version"], kExportSchemaVersion);
  EXPECT_EQ(doc["kind"], "export");
  EXPECT_EQ(doc["store_schema_version"], store.schema_version());
  EXPECT_EQ(doc["argv"], json({"occtune", "export"}));
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_TRUE(doc["devices"][0]["properties"].is_object());
  ASSERT_EQ(doc["runs"].size(), 3u);

  // Samples travel as numbers with round-trip precision: exactly what the store holds.
  const auto runs = store.runs();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& run = doc["runs"][i];
    EXPECT_EQ(run["id"], runs[i].id);
    EXPECT_EQ(run["started_at"], runs[i].started_at);
    EXPECT_EQ(run["device"]["uuid"], runs[i].key.device_uuid);
    EXPECT_EQ(run["device"]["driver_version"], runs[i].key.driver_version);
    EXPECT_TRUE(run["argv"].is_array());
    EXPECT_TRUE(run["policy"].is_object());
    const auto stored = store.measurements(runs[i].id);
    ASSERT_EQ(run["measurements"].size(), stored.size());
    for (std::size_t j = 0; j < stored.size(); ++j) {
      const json& m = run["measurements"][j];
      EXPECT_EQ(m["outcome"], std::string(to_string(stored[j].outcome)));
      EXPECT_EQ(m["label"], stored[j].params);
      EXPECT_EQ(m["id"], stored[j].id);
      EXPECT_EQ(m["samples_ms"].get<std::vector<double>>(), stored[j].samples_ms);
      if (stored[j].rel_error < 0) {
        EXPECT_TRUE(m["rel_error"].is_null());
      } else {
        EXPECT_EQ(m["rel_error"].get<double>(), stored[j].rel_error);
      }
    }
  }
}

TEST(Exchange, ImportIsExactAndIdempotent) {
  TempDir tmp;
  Store a = tmp.store("a.db");
  fill(a);
  const std::string text = export_runs(a, {"t", {}}).json;

  Store b = tmp.store("b.db");
  const ImportSummary first = import_runs(b, text, "a.json");
  EXPECT_EQ(first.runs_added, 3);
  EXPECT_EQ(first.runs_skipped, 0);
  EXPECT_EQ(first.measurements_added, 8);
  EXPECT_TRUE(first.dropped_fields.empty());

  const ImportSummary second = import_runs(b, text, "a.json");
  EXPECT_EQ(second.runs_added, 0);
  EXPECT_EQ(second.runs_skipped, 3);
  EXPECT_EQ(second.measurements_added, 0);
  EXPECT_EQ(b.runs().size(), 3u);
  EXPECT_EQ(b.devices().size(), 2u);

  // Importing a store's own export into it adds nothing either.
  EXPECT_EQ(import_runs(a, text, "a.json").runs_added, 0);
  EXPECT_EQ(a.runs().size(), 3u);

  // Full fidelity: exporting the copy gives the same document, run ids aside.
  json again = json::parse(export_runs(b, {"t", {}}).json);
  json original = json::parse(text);
  EXPECT_EQ(without_ids(again)["runs"], without_ids(original)["runs"]);
  EXPECT_EQ(again["devices"], original["devices"]);

  // The copy answers lookups like the original.
  const auto key = CacheKey::make(gate_device(), "tiled_dynamic", "build-a", {1024, 1024, 1024});
  ASSERT_TRUE(a.best(key) && b.best(key));
  EXPECT_EQ(b.best(key)->best.params, a.best(key)->best.params);
  EXPECT_EQ(b.best(key)->best.samples_ms, a.best(key)->best.samples_ms);
}

// Every run of a store with all its measurements in the model's encoding, row ids left out: two
// stores with equal documents hold equal records (the codec lists every member of both types).
json records_json(Store& store) {
  json out = json::array();
  for (auto& run : store.runs())
    out.push_back(model::to_json(RunRecord{run, store.measurements(run.id)}));
  return without_ids(json{{"runs", out}})["runs"];
}

TEST(Exchange, ANewExportImportsIntoAnEqualStore) {
  TempDir tmp;
  Store a = tmp.store("a.db");
  fill(a);
  Store b = tmp.store("b.db");
  import_runs(b, export_runs(a, {"t", {}}).json, "a.json");
  const json left = records_json(a), right = records_json(b);
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left, right);
  // Not vacuous: the records carry what the store keeps beyond the gate's view.
  EXPECT_FALSE(left[0]["cublas"]["samples_ms"].empty());
  EXPECT_GT(left[0]["measurements"][0]["flops"].get<double>(), 0.0);
}

// An export of the previous layout (schema_version 1), written by `occtune export` before the
// typed codec (tests/unit/data/README.md): import reads it field by field, by its old names.
TEST(Exchange, TheOldLayoutStillImportsFieldByField) {
  const std::string text =
      testing::slurp(std::string(OCCTUNE_SOURCE_DIR) + "/tests/unit/data/export-v1.json");
  const json old = json::parse(text);
  ASSERT_EQ(old["schema_version"], 1);
  TempDir tmp;
  Store b = tmp.store("b.db");
  const ImportSummary s = import_runs(b, text, "export-v1.json");
  EXPECT_EQ(s.runs_added, int(old["runs"].size()));
  EXPECT_TRUE(s.dropped_fields.empty()) << s.dropped_fields.front();
  EXPECT_EQ(import_runs(b, text, "export-v1.json").runs_skipped, int(old["runs"].size()));

  std::size_t measurements = 0, failed = 0;
  for (auto& o : old["runs"]) {
    const auto runs = b.runs();
    const auto it = std::find_if(runs.begin(), runs.end(), [&](const StoredRun& r) {
      return r.key.kernel == o["kernel"] && r.key.shape.m == o["m"] && r.started_at == o["started_at"];
    });
    ASSERT_NE(it, runs.end()) << o["kernel"] << " " << o["started_at"];
    const StoredRun& r = *it;
    EXPECT_EQ(r.key.device_uuid, o["device"]["uuid"]);
    EXPECT_EQ(r.key.build_id, o["build_id"]);
    EXPECT_EQ(r.key.layout, o["layout"]);
    EXPECT_EQ(to_string(r.status), o["status"]);
    EXPECT_EQ(r.finished_at, o["finished_at"]);
    EXPECT_EQ(json::parse(r.policy_json), o["policy"]);
    EXPECT_EQ(json::parse(r.argv_json), o["argv"]);
    EXPECT_EQ(r.strategy, o["strategy"]);
    EXPECT_EQ(r.reference_clock_mhz, o["reference_clock_mhz"]);
    EXPECT_EQ(r.cublas.count, o["cublas_count"]);
    EXPECT_EQ(r.cublas.median, o["cublas_median_ms"]);
    EXPECT_EQ(r.cublas_samples_ms, o["cublas_samples"].get<std::vector<double>>());
    EXPECT_EQ(r.cublas_sm_clock_mhz, o["cublas_sm_clock_mhz"]);
    const auto stored = b.measurements(r.id);
    ASSERT_EQ(stored.size(), o["measurements"].size());
    for (std::size_t j = 0; j < stored.size(); ++j) {
      const StoredMeasurement& m = stored[j];
      const json& v = o["measurements"][j];
      SCOPED_TRACE(v["variant"].get<std::string>());
      EXPECT_EQ(m.variant, v["variant"]);
      EXPECT_EQ(m.params, v["params"]);
      EXPECT_EQ(m.threads, v["threads"]);
      EXPECT_EQ(m.tile, v["tile"]);
      EXPECT_EQ(m.dynamic_smem, v["dynamic_smem"]);
      EXPECT_EQ(m.grid_x, v["grid_x"]);
      EXPECT_EQ(m.grid_y, v["grid_y"]);
      EXPECT_EQ(m.origin, v["origin"]);
      EXPECT_EQ(m.step, v["step"]);
      EXPECT_EQ(m.suggested_block, v["suggested_block"]);
      EXPECT_EQ(m.block_limit, v["block_limit"]);
      EXPECT_EQ(m.registers, v["registers"]);
      EXPECT_EQ(m.active_blocks_per_sm, v["active_blocks_per_sm"]);
      EXPECT_EQ(m.occupancy, v["occupancy"]);
      EXPECT_EQ(m.limiter, v["limiter"]);
      EXPECT_EQ(m.waves, v["waves"]);
      EXPECT_EQ(to_string(m.outcome), v["outcome"]);
      EXPECT_EQ(m.error, v["error"] == "" ? v["rejection"] : v["error"]);
      EXPECT_EQ(m.rel_error, v["rel_error"].is_null() ? -1.0 : v["rel_error"].get<double>());
      EXPECT_EQ(m.summary.count, v["sample_count"]);
      EXPECT_EQ(m.summary.min, v["min_ms"]);
      EXPECT_EQ(m.summary.median, v["median_ms"]);
      EXPECT_EQ(m.summary.mean, v["mean_ms"]);
      EXPECT_EQ(m.samples_ms, v["samples"].get<std::vector<double>>());
      EXPECT_EQ(m.flops, v["flops"]);
      EXPECT_EQ(m.gflops, v["gflops"]);
      EXPECT_EQ(m.sm_clock_mhz, v["sm_clock_mhz"]);
      EXPECT_EQ(m.sm_clock_max_mhz, v["sm_clock_max_mhz"]);
      EXPECT_EQ(m.noise, v["noise"]);
      EXPECT_EQ(m.median_ci.high, v["ci_high_ms"]);
      EXPECT_EQ(m.throttled, v["throttled"] == 1);
      EXPECT_EQ(m.stop_reason, v["stop_reason"]);
      EXPECT_EQ(m.tie, v["tie"] == 1);
      EXPECT_EQ(m.winner, v["winner"] == 1);
      ++measurements;
      failed += m.outcome != Outcome::kOk;
    }
  }
  EXPECT_GE(measurements, 100u);
  EXPECT_GE(failed, 4u);  // wrong results, a crash, a timeout and a refusal before launch

  // The gate reads the old file as the store holds it, and the copy's new export imports into
  // an equal store.
  const auto records = read_export(text, "export-v1.json");
  ASSERT_EQ(records.size(), old["runs"].size());
  EXPECT_EQ(records.front().measurements.front().samples_ms,
            old["runs"][0]["measurements"][0]["samples"].get<std::vector<double>>());
  Store c = tmp.store("c.db");
  import_runs(c, export_runs(b, {"t", {}}).json, "b.json");
  EXPECT_EQ(records_json(b), records_json(c));
}

TEST(Exchange, UnfinishedRunIsReplacedByItsFinishedCopy) {
  TempDir tmp;
  Store source = tmp.store("src.db");
  RunStart start;
  start.device = gate_device();
  start.kernel = "tiled_dynamic";
  start.build_id = "build-a";
  start.shape = {512, 512, 512};
  const auto run = source.begin_run(start);
  std::mt19937_64 rng(1);
  Measurement m;
  m.candidate.variant = kernels::find_tile_variant("tiled_dynamic", 16);
  m.candidate.threads = 256;
  m.rel_error = 1e-7;  // an `ok` result was checked against cuBLAS (import validation)
  m.timing.samples_ms = testing::gpu_like_samples(rng, 0.1, 10, {});
  m.timing.summary = summarize(m.timing.samples_ms);
  source.add_measurement(run, m);
  const std::string running = export_runs(source, {"t", {}}).json;
  source.add_measurement(run, m);
  source.finish_run(run, RunStatus::kComplete);
  const std::string finished = export_runs(source, {"t", {}}).json;

  Store copy = tmp.store("copy.db");
  EXPECT_EQ(import_runs(copy, running, "running.json").runs_added, 1);
  EXPECT_EQ(copy.runs().front().status, RunStatus::kRunning);
  const ImportSummary s = import_runs(copy, finished, "finished.json");
  EXPECT_EQ(s.runs_replaced, 1);
  EXPECT_EQ(s.runs_added, 0);
  ASSERT_EQ(copy.runs().size(), 1u);
  EXPECT_EQ(copy.runs().front().status, RunStatus::kComplete);
  EXPECT_EQ(copy.measurements(copy.runs().front().id).size(), 2u);
  // ...and the older, unfinished copy never replaces the finished one.
  EXPECT_EQ(import_runs(copy, running, "running.json").runs_skipped, 1);
  EXPECT_EQ(copy.runs().front().status, RunStatus::kComplete);
}

void expect_refused(Store& store, const std::string& text, ExitCode code,
                    const std::string& mention) {
  try {
    import_runs(store, text, "bad.json");
    ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(store.runs().empty()) << "a refused document must leave the store untouched";
}

TEST(Exchange, BadDocumentsAreRefusedWhole) {
  TempDir tmp;
  Store a = tmp.store("a.db");
  fill(a);
  json good = json::parse(export_runs(a, {"t", {}}).json);
  Store b = tmp.store("b.db");

  expect_refused(b, "{not json", ExitCode::kUsage, "not valid JSON");
  expect_refused(b, "[1, 2]", ExitCode::kUsage, "not a JSON object");
  expect_refused(b, R"({"schema_version": 1, "kind": "tune", "runs": []})", ExitCode::kUsage,
                 "\"kind\": \"export\"");
  json newer = good;
  newer["schema_version"] = kExportSchemaVersion + 1;
  expect_refused(b, newer.dump(), ExitCode::kNotFound, "upgrade occtune");
  json no_kernel = good;
  no_kernel["runs"][1].erase("kernel");
  expect_refused(b, no_kernel.dump(), ExitCode::kUsage, "runs[1]");
  json bad_shape = good;
  bad_shape["runs"][0]["m"] = 0;
  expect_refused(b, bad_shape.dump(), ExitCode::kUsage, "runs[0].m");
  // Refused by validation before the transaction (db/import_validation): nothing is kept.
  json bad_outcome = good;
  bad_outcome["runs"][0]["measurements"][0]["outcome"] = "bogus";
  expect_refused(b, bad_outcome.dump(), ExitCode::kUsage, "runs[0].measurements[0].outcome");
}

TEST(Exchange, FieldsUnknownToThisSchemaAreDroppedAndNamed) {
  TempDir tmp;
  Store a = tmp.store("a.db");
  fill(a);
  json doc = json::parse(export_runs(a, {"t", {}}).json);
  doc["runs"][0]["from_the_future"] = 7;
  doc["runs"][0]["measurements"][0]["also_new"] = "x";
  Store b = tmp.store("b.db");
  const ImportSummary s = import_runs(b, doc.dump(), "future.json");
  EXPECT_EQ(s.runs_added, 3);
  EXPECT_EQ(s.dropped_fields,
            (std::vector<std::string>{"measurements.also_new", "runs.from_the_future"}));
}

TEST(Exchange, ReadExportGivesTheGateWhatTheStoreHolds) {
  TempDir tmp;
  Store a = tmp.store("a.db");
  fill(a);
  const auto records = read_export(export_runs(a, {"t", {}}).json, "a.json");
  const auto runs = a.runs();
  ASSERT_EQ(records.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(records[i].run.id, runs[i].id);
    EXPECT_EQ(records[i].run.key.device_uuid, runs[i].key.device_uuid);
    EXPECT_EQ(records[i].run.key.driver_version, runs[i].key.driver_version);
    EXPECT_EQ(records[i].run.key.shape, runs[i].key.shape);
    EXPECT_EQ(records[i].run.key.build_id, runs[i].key.build_id);
    EXPECT_EQ(records[i].run.status, runs[i].status);
    EXPECT_DOUBLE_EQ(records[i].run.cublas.median, runs[i].cublas.median);
    const auto stored = a.measurements(runs[i].id);
    ASSERT_EQ(records[i].measurements.size(), stored.size());
    for (std::size_t j = 0; j < stored.size(); ++j) {
      EXPECT_EQ(records[i].measurements[j].params, stored[j].params);
      EXPECT_EQ(records[i].measurements[j].threads, stored[j].threads);
      EXPECT_EQ(records[i].measurements[j].outcome, stored[j].outcome);
      EXPECT_EQ(records[i].measurements[j].samples_ms, stored[j].samples_ms);
      EXPECT_DOUBLE_EQ(records[i].measurements[j].summary.median, stored[j].summary.median);
      EXPECT_DOUBLE_EQ(records[i].measurements[j].rel_error, stored[j].rel_error);
    }
  }
}

}  // namespace
}  // namespace occtune::db
