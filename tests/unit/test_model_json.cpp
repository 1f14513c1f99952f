// The model's one JSON codec (autotuner/core/model_json) and the typed records: every type
// round-trips with every field set away from its default; a peer's missing or unusable field is
// an error naming it; a stored row's missing or unusable field keeps its default.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "autotuner/core/error.hpp"
#include "autotuner/core/model_json.hpp"
#include "autotuner/core/records.hpp"
#include "tests/support/seed_store.hpp"

namespace occtune {
namespace {

using model::Missing;
using nlohmann::json;

// The seeded H100 with the fields seed_device leaves at their defaults set too.
DeviceInfo every_device_field_set() {
  DeviceInfo d = testing::seed_device("GPU-12345678-1234-1234-1234-123456789abc");
  d.index = 3;
  d.max_grid_x = 2147483000;
  d.max_grid_y = 65000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width = 5120;
  d.pci_bus_id = "0000:19:00.0";
  return d;
}

TEST(ModelJson, DeviceRoundTripsEveryField) {
  const DeviceInfo d = every_device_field_set();
  const json j = model::to_json(d);
  // Through text, as every user of the codec sends it.
  const DeviceInfo back = model::device_from_json(json::parse(j.dump()), Missing::kRequired);
  EXPECT_EQ(model::to_json(back), j);
  EXPECT_EQ(back.global_mem_bytes, d.global_mem_bytes);
  EXPECT_EQ(back.pci_bus_id, d.pci_bus_id);
  EXPECT_EQ(j.size(), 27u) << "a DeviceInfo field is not in OCCTUNE_DEVICE_FIELDS";
}

TEST(ModelJson, DeviceKeyHasTheKeyFieldsUnderTheSameNames) {
  const DeviceInfo d = every_device_field_set();
  const json key = model::device_key_json(d);
  const json full = model::to_json(d);
  for (const char* f : {"uuid", "name", "cc_major", "cc_minor", "sm_count", "driver_version",
                        "runtime_version"})
    EXPECT_EQ(key.at(f), full.at(f)) << f;
  EXPECT_EQ(key.at("compute_capability"), "9.0");
}

TEST(ModelJson, PolicyCandidateAndSummaryRoundTrip) {
  TimingPolicy p;
  p.warmup = 7;
  p.samples = 33;
  p.min_time_s = 0.25;
  p.target_noise = 0.015;
  p.max_seconds_per_candidate = 3.5;
  p.max_samples = 400;
  p.batch = 4;
  p.flush_l2 = false;
  p.tolerance = 2e-6;
  p.seed = 18446744073709551615ull;  // the largest seed survives as an unsigned integer
  p.settle_ms = 10;
  p.settle_timeout_ms = 900;
  p.throttle_ratio = 0.6;
  p.throttle_retries = 5;
  p.timer = "cupti";
  p.flush_method = "memset";
  const json pj = model::to_json(p);
  EXPECT_EQ(model::to_json(model::policy_from_json(json::parse(pj.dump()), Missing::kRequired)), pj);

  Candidate c;
  c.origin = "occupancy-api";
  c.step = 2;
  c.suggested_block = 768;
  c.block_limit = 1024;
  c.threads = 256;
  c.tile = 16;
  c.dynamic_smem = 8192;
  c.registers = 40;
  c.active_blocks_per_sm = 6;
  c.occupancy = 0.75;
  c.limiter = "registers";
  c.grid_x = 257;
  c.grid_y = 3;
  c.grid_z = 2;
  c.waves = 1.09;
  c.rejection = "";
  const json cj = model::to_json(c);
  Candidate cb;
  model::candidate_fields_from_json(json::parse(cj.dump()), cb, Missing::kRequired);
  EXPECT_EQ(model::to_json(cb), cj);

  Summary s{21, 0.5, 0.6, 0.7, 0.8, 0.9, 0.71};
  const json sj = model::to_json(s);
  EXPECT_EQ(sj.at("median_ms"), 0.7);
  EXPECT_EQ(model::to_json(model::summary_from_json(json::parse(sj.dump()), Missing::kRequired)), sj);
}

TEST(ModelJson, NonFiniteDoublesTravelAsText) {
  Candidate c;
  c.occupancy = std::numeric_limits<double>::quiet_NaN();
  c.waves = std::numeric_limits<double>::infinity();
  const json j = json::parse(model::to_json(c).dump());
  EXPECT_EQ(j.at("occupancy"), "nan");
  Candidate back;
  model::candidate_fields_from_json(j, back, Missing::kRequired);
  EXPECT_TRUE(std::isnan(back.occupancy));
  EXPECT_TRUE(std::isinf(back.waves));
}

TEST(ModelJson, APeersMissingOrUnusableFieldIsNamed) {
  json j = model::to_json(every_device_field_set());
  j.erase("sm_count");
  try {
    model::device_from_json(j, Missing::kRequired);
    FAIL() << "a device without sm_count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sm_count"), std::string::npos) << e.what();
  }
  j["sm_count"] = 9.2e27;  // a float where an int belongs: never cast (undefined behaviour)
  EXPECT_THROW(model::device_from_json(j, Missing::kRequired), Error);
  j["sm_count"] = 4294967296;  // does not fit an int
  EXPECT_THROW(model::device_from_json(j, Missing::kRequired), Error);
  EXPECT_THROW(model::device_from_json(json::array(), Missing::kRequired), Error);
}

TEST(ModelJson, AStoredRowsMissingOrUnusableFieldKeepsItsDefault) {
  json j = {{"uuid", "GPU-x"}, {"sm_count", 9.2e27}, {"max_grid_y", "many"}, {"name", nullptr}};
  const DeviceInfo d = model::device_from_json(j, Missing::kDefault);
  EXPECT_EQ(d.uuid, "GPU-x");
  EXPECT_EQ(d.sm_count, 0);
  EXPECT_EQ(d.max_grid_y, 65535);
  EXPECT_EQ(d.name, "");
  EXPECT_EQ(d.warp_size, 32);
}

TEST(Records, StatusesRoundTripAndUnknownTextIsRefused) {
  for (RunStatus s : {RunStatus::kRunning, RunStatus::kComplete, RunStatus::kInterrupted,
                      RunStatus::kFailed})
    EXPECT_EQ(run_status_from_string(to_string(s)), s);
  EXPECT_FALSE(run_status_from_string("Complete").has_value());
  EXPECT_FALSE(run_status_from_string("").has_value());
}

TEST(Records, StoredFormKeepsTheCandidateAndTheResult) {
  Measurement m;
  m.candidate.threads = 256;
  m.candidate.origin = "registered";
  m.candidate.rejection = "needs 300 KiB of shared memory";
  m.outcome = Outcome::kExceedsLimits;
  m.timing.stop = StopReason::kConverged;
  m.tie = true;
  m.reused_from = 9;
  const StoredMeasurement s = stored_form(m, 5, 2);
  EXPECT_EQ(s.id, 5);
  EXPECT_EQ(s.run_id, 2);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.outcome, Outcome::kExceedsLimits);
  // A refusal before launch is the row's error, as the store reads it back.
  EXPECT_EQ(s.error, "needs 300 KiB of shared memory");
  EXPECT_EQ(s.stop_reason, "converged");
  EXPECT_TRUE(s.tie);
  EXPECT_EQ(s.reused_from, 9);
}

// A measurement with every member away from its default (a distinct value each, so a field
// decoded into the wrong member shows).
StoredMeasurement every_measurement_field_set() {
  StoredMeasurement m;
  m.id = 41;
  m.run_id = 7;
  m.variant = "RegBlocked<64,128,8,8,8>";
  m.params = "bm=64,bn=128,bk=8,tm=8,tn=8";  // not in alphabetical order
  m.threads = 128;
  m.tile = 12;
  m.dynamic_smem = 49152;
  m.registers = 96;
  m.active_blocks_per_sm = 3;
  m.occupancy = 0.375;
  m.limiter = "registers";
  m.origin = "registered";
  m.step = 4;
  m.suggested_block = 512;
  m.block_limit = 256;
  m.grid_x = 64;
  m.grid_y = 33;
  m.waves = 1.75;
  m.outcome = Outcome::kWrongResult;
  m.error = "relative Frobenius error 3.1e-01";
  m.rel_error = 0.31;
  m.summary = {11, 0.5, 0.6, 0.7, 0.8, 0.9, 0.71};
  m.samples_ms = {0.5, 0.6, 0.7, 0.8, 0.9};
  m.flops = 2.5e11;
  m.gflops = 3571.4;
  m.sm_clock_mhz = 1980;
  m.noise = 0.012;
  m.median_ci = {0.65, 0.75};
  m.sm_clock_min_mhz = 1755;
  m.sm_clock_max_mhz = 1985;
  m.throttled = true;
  m.throttled_batches = 2;
  m.stop_reason = "converged";
  m.search_round = 3;
  m.tie = true;
  m.winner = true;
  m.reused_from = 17;
  return m;
}

RunRecord every_run_field_set() {
  RunRecord r;
  StoredRun& run = r.run;
  run.id = 7;
  run.key = CacheKey::make(every_device_field_set(), "regblocked", "0123456789abcdef",
                           {3001, 1000, 4097}, "f32", "tn");
  run.status = RunStatus::kInterrupted;
  run.started_at = "2026-11-24T09:59:34.773Z";
  run.finished_at = "2026-11-24T10:00:01.002Z";
  run.tool_version = "0.1.0";
  run.argv_json = R"(["occtune","tune","--shape","3001x1000x4097"])";
  run.policy_json = model::to_json(TimingPolicy{}).dump();
  run.strategy = "halving";
  run.reference_clock_mhz = 1980;
  run.cublas = {4, 0.4, 0.41, 0.42, 0.43, 0.44, 0.42};
  run.cublas_samples_ms = {0.4, 0.41, 0.43, 0.44};
  run.cublas_sm_clock_mhz = 1970;
  r.measurements = {every_measurement_field_set(), every_measurement_field_set()};
  r.measurements[1].id = 42;
  r.measurements[1].outcome = Outcome::kOk;
  r.measurements[1].error.clear();
  r.measurements[1].rel_error = -1;  // not checked: null
  r.measurements[1].tile = 0;        // no square tile: null
  r.measurements[1].reused_from = 0;
  return r;
}

TEST(ModelJson, MeasurementAndRunRoundTripEveryField) {
  const RunRecord r = every_run_field_set();
  const json j = json::parse(model::to_json(r).dump());  // through text
  const RunRecord back = model::run_record_from_json(j, Missing::kRequired);
  EXPECT_EQ(model::to_json(back), model::to_json(r));
  // Spot checks that the round trip is not the codec agreeing with itself about nothing.
  EXPECT_EQ(back.run.key.layout, "tn");
  EXPECT_EQ(back.run.key.shape, (Shape{3001, 1000, 4097}));
  EXPECT_EQ(back.run.status, RunStatus::kInterrupted);
  EXPECT_EQ(back.run.cublas_samples_ms, r.run.cublas_samples_ms);
  EXPECT_EQ(back.run.argv_json, r.run.argv_json);
  const StoredMeasurement& m = back.measurements[0];
  EXPECT_EQ(m.params, "bm=64,bn=128,bk=8,tm=8,tn=8");
  EXPECT_EQ(m.outcome, Outcome::kWrongResult);
  EXPECT_EQ(m.median_ci.high, 0.75);
  EXPECT_EQ(m.block_limit, 256);
  EXPECT_EQ(m.reused_from, 17);
  EXPECT_EQ(back.measurements[1].rel_error, -1);
  EXPECT_EQ(back.measurements[1].tile, 0);

  // The field names readers see, in one place.
  const json& mj = j["measurements"][0];
  EXPECT_EQ(mj["family"], "regblocked");
  EXPECT_EQ(mj["label"], "bm=64,bn=128,bk=8,tm=8,tn=8");
  EXPECT_EQ(mj["params"], (json{{"bm", 64}, {"bn", 128}, {"bk", 8}, {"tm", 8}, {"tn", 8}}));
  EXPECT_EQ(mj["outcome"], "wrong_result");
  EXPECT_EQ(mj["timing"]["median_ms"], 0.7);
  EXPECT_EQ(mj["timing"]["ci_high_ms"], 0.75);
  EXPECT_EQ(mj["samples_ms"].size(), 5u);
  EXPECT_EQ(mj["grid_x"], 64);
  EXPECT_FALSE(mj.contains("grid"));
  EXPECT_FALSE(mj.contains("status"));
  EXPECT_TRUE(j["measurements"][1]["rel_error"].is_null());
  EXPECT_TRUE(j["measurements"][1]["tile"].is_null());
  EXPECT_TRUE(j["measurements"][1]["reused_from"].is_null());
  EXPECT_EQ(j["device"]["uuid"], r.run.key.device_uuid);
  EXPECT_EQ(j["device"]["compute_capability"], "9.0");
  EXPECT_EQ(j["cublas"]["timing"]["count"], 4);
  EXPECT_EQ(j["policy"]["min_time_s"], TimingPolicy{}.min_time_s);
  // Every member has a field: a measurement has 37 at its top level and 10 in its timing.
  EXPECT_EQ(mj.size(), 37u);
  EXPECT_EQ(mj["timing"].size(), 10u);
  std::set<std::string> unknown;
  model::unknown_fields(j, unknown);
  EXPECT_TRUE(unknown.empty()) << *unknown.begin();
}

TEST(ModelJson, AMeasurementsNaNAndInfinitiesTravelAsText) {
  StoredMeasurement m = every_measurement_field_set();
  m.rel_error = std::numeric_limits<double>::quiet_NaN();  // a poisoned output
  m.gflops = std::numeric_limits<double>::infinity();
  m.waves = -std::numeric_limits<double>::infinity();
  const json j = json::parse(model::to_json(m, "naive").dump());
  EXPECT_EQ(j["rel_error"], "nan");
  EXPECT_EQ(j["gflops"], "inf");
  const StoredMeasurement back = model::measurement_from_json(j, Missing::kRequired);
  EXPECT_TRUE(std::isnan(back.rel_error));
  EXPECT_TRUE(std::isinf(back.gflops) && back.gflops > 0);
  EXPECT_TRUE(std::isinf(back.waves) && back.waves < 0);
}

TEST(ModelJson, AMeasurementsOrRunsMissingOrUnusableFieldIsNamed) {
  const json good = model::to_json(every_run_field_set());
  auto refused = [](const json& j, const std::string& name) {
    try {
      model::run_record_from_json(j, Missing::kRequired);
      ADD_FAILURE() << name << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  json j = good;
  j["measurements"][1]["timing"].erase("median_ms");
  refused(j, "measurements[1]: the field 'timing.median_ms' is missing");
  j = good;
  j["measurements"][0]["outcome"] = "exploded";
  refused(j, "'outcome' has an unusable value \"exploded\"");
  j = good;
  j["measurements"][0]["samples_ms"] = {0.5, "fast"};
  refused(j, "'samples_ms'");
  j = good;
  j["device"].erase("sm_count");
  refused(j, "'device.sm_count' is missing");
  j = good;
  j["status"] = "done";
  refused(j, "'status' has an unusable value");
  j = good;
  j["cublas"]["timing"]["count"] = 2.5;  // never cast
  refused(j, "'cublas.timing.count'");
  j = good;
  j.erase("policy");
  refused(j, "'policy'");
  j = good;
  j["measurements"][0]["tile"] = nullptr;  // null is "absent" for a tile: allowed
  EXPECT_EQ(model::run_record_from_json(j, Missing::kRequired).measurements[0].tile, 0);
  j["measurements"][0]["threads"] = nullptr;  // but not for threads
  refused(j, "'threads' is missing");
}

TEST(ModelJson, AMeasurementMissingFieldsKeepsItsDefaultsWhenAsked) {
  const StoredMeasurement m = model::measurement_from_json(
      json{{"variant", "Naive"}, {"threads", 256}, {"outcome", "crashed"}, {"winner", "yes"}},
      Missing::kDefault);
  EXPECT_EQ(m.variant, "Naive");
  EXPECT_EQ(m.threads, 256);
  EXPECT_EQ(m.outcome, Outcome::kCrashed);
  EXPECT_FALSE(m.winner);
  EXPECT_EQ(m.rel_error, -1);
  EXPECT_EQ(m.summary.count, 0u);
}

TEST(ModelJson, UnknownFieldsAreNamedWithWhereTheyAre) {
  json j = model::to_json(every_run_field_set());
  j["colour"] = "green";
  j["device"]["fan"] = 3;
  j["measurements"][1]["mood"] = "ok";
  j["measurements"][0]["timing"]["p99_ms"] = 1.0;
  std::set<std::string> unknown;
  model::unknown_fields(j, unknown);
  EXPECT_EQ(unknown, (std::set<std::string>{"measurements.mood", "measurements.timing.p99_ms",
                                            "runs.colour", "runs.device.fan"}));
}

}  // namespace
}  // namespace occtune
