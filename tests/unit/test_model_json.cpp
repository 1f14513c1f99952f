// The model's one JSON codec (autotuner/core/model_json) and the typed records: every type
// round-trips with every field set away from its default; a peer's missing or unusable field is
// an error naming it; a stored row's missing or unusable field keeps its default.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

}  // namespace
}  // namespace occtune
