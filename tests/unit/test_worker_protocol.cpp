// The worker protocol (autotuner/isolation): every value the parent and worker exchange comes
// back exactly as it was sent (NaN and infinities included), malformed messages are runtime
// errors that say so, and the line transport survives dead peers without SIGPIPE.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "autotuner/core/device_profile.hpp"
#include "autotuner/core/error.hpp"
#include "autotuner/core/offline_occupancy.hpp"
#include "autotuner/isolation/line_channel.hpp"
#include "autotuner/isolation/protocol.hpp"

namespace occtune {
namespace {

using isolation::json;

template <class T>
T through_wire(const json& j, T (*decode)(const json&)) {
  return decode(json::parse(isolation::wire(j)));
}

TEST(WorkerProtocol, DeviceRoundTripsEveryField) {
  DeviceInfo d = load_device_profile("h100");
  d.index = 3;
  d.uuid = "GPU-12345678-1111-2222-3333-444455556666";
  d.source = "runtime";
  d.clock_khz = 1980000;
  d.driver_version = 13000;
  d.runtime_version = 13010;
  d.pci_bus_id = "00000000:19:00.0";
  const DeviceInfo back = through_wire(isolation::encode(d), &isolation::decode_device);
  EXPECT_EQ(isolation::encode(back), isolation::encode(d));
  EXPECT_EQ(back.uuid, d.uuid);
  EXPECT_EQ(back.shared_mem_per_block_optin, d.shared_mem_per_block_optin);
  EXPECT_EQ(back.global_mem_bytes, d.global_mem_bytes);
  EXPECT_EQ(back.pci_bus_id, d.pci_bus_id);
}

TEST(WorkerProtocol, PolicyRoundTripsEveryField) {
  TimingPolicy p;
  p.warmup = 7;
  p.samples = 33;
  p.min_time_s = 0.125;
  p.target_noise = 0.0123456789012345;
  p.max_seconds_per_candidate = 3.5;
  p.max_samples = 999;
  p.batch = 4;
  p.flush_l2 = false;
  p.tolerance = 3e-6;
  p.seed = 18446744073709551557ull;  // above INT64_MAX: must stay unsigned
  p.settle_ms = 11;
  p.settle_timeout_ms = 1234;
  p.throttle_ratio = 0.5;
  p.throttle_retries = 9;
  p.timer = "cuda_event";
  p.flush_method = "memset";
  const TimingPolicy back = through_wire(isolation::encode(p), &isolation::decode_policy);
  EXPECT_EQ(isolation::encode(back), isolation::encode(p));
  EXPECT_EQ(back.seed, p.seed);
  EXPECT_EQ(back.target_noise, p.target_noise);  // bit-exact, not approximately
  EXPECT_FALSE(back.flush_l2);
  EXPECT_EQ(back.flush_method, "memset");
}

TEST(WorkerProtocol, PlanRoundTripsWithVariantsLookedUpBySymbol) {
  const DeviceInfo d = load_device_profile("a100");
  OfflineOccupancy oracle(d);
  for (const char* family : {"tiled_dynamic", "naive"}) {
    const Plan plan = plan_family(*kernels::find_family(family), d, Shape{1000, 17, 4097}, oracle);
    ASSERT_FALSE(plan.candidates.empty());
    const Plan back = through_wire(isolation::encode(plan), &isolation::decode_plan);
    EXPECT_EQ(isolation::encode(back), isolation::encode(plan));
    ASSERT_EQ(back.candidates.size(), plan.candidates.size());
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
      // The same registry entry, not a copy: the engine compares variants by pointer.
      EXPECT_EQ(back.candidates[i].variant, plan.candidates[i].variant);
      EXPECT_EQ(back.candidates[i].occupancy, plan.candidates[i].occupancy);
      EXPECT_EQ(back.candidates[i].waves, plan.candidates[i].waves);
    }
    EXPECT_EQ(back.notes, plan.notes);
  }
}

// A layout crosses as its name and comes back as itself.
TEST(WorkerProtocol, LayoutsCrossAsTheirNames) {
  for (Layout l : kAllLayouts) {
    const json j = isolation::encode(l);
    EXPECT_EQ(j.get<std::string>(), layout_name(l));
    EXPECT_EQ(isolation::decode_layout(j), l);
  }
}

TEST(WorkerProtocol, NonFiniteNumbersSurvive) {
  SampleBatch b;
  b.outcome = Outcome::kOk;
  b.samples_ms = {0.1, std::numeric_limits<double>::infinity(), 1e-300, 12345.678901234567};
  b.sm_clock_mhz = 1980;
  const SampleBatch back = through_wire(isolation::encode(b), &isolation::decode_batch);
  EXPECT_EQ(back.samples_ms, b.samples_ms);
  EXPECT_EQ(back.sm_clock_mhz, 1980);

  Measurement m;
  m.outcome = Outcome::kWrongResult;
  m.error = "relative Frobenius error nan exceeds the tolerance";
  m.rel_error = std::numeric_limits<double>::quiet_NaN();
  m.flops = 2.0 * 1000 * 17 * 4097;
  Measurement got;
  isolation::decode_check(json::parse(isolation::wire(isolation::encode_check(m))), got);
  EXPECT_EQ(got.outcome, Outcome::kWrongResult);
  EXPECT_TRUE(std::isnan(got.rel_error));
  EXPECT_EQ(got.flops, m.flops);
  EXPECT_EQ(got.error, m.error);
}

TEST(WorkerProtocol, MalformedMessagesAreRuntimeErrors) {
  auto expect_runtime = [](auto&& f, const std::string& mention) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kRuntime);
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  };
  expect_runtime([] { isolation::decode_shape(json::array({1, 2})); }, "shape");
  expect_runtime([] { isolation::decode_shape(json::array({0, 2, 3})); }, "shape");
  expect_runtime([] { isolation::decode_device(json::object()); }, "device");
  expect_runtime([] { isolation::decode_layout(json("xt")); }, "unknown layout 'xt'");
  expect_runtime([] { isolation::decode_layout(json(3)); }, "layout");
  expect_runtime([] { isolation::decode_batch({{"outcome", "exploded"}}); }, "exploded");
  json c = isolation::encode(Candidate{});
  c["variant"] = "NoSuchKernel<1>";
  expect_runtime([&] { isolation::decode_candidate(c); }, "NoSuchKernel<1>");
  json bad_number = isolation::encode(SampleBatch{});
  bad_number["samples_ms"] = json::array({"fast"});
  expect_runtime([&] { isolation::decode_batch(bad_number); }, "fast");
}

TEST(WorkerProtocol, WireIsOneLineEvenForBytesThatAreNotUtf8) {
  json j = {{"message", std::string("bad \xff\xfe input\nsecond line")}};
  const std::string line = isolation::wire(j);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NO_THROW(json::parse(line));
}

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
};

TEST(LineChannel, CarriesLinesAndReportsTimeoutAndClose) {
  SocketPair p;
  isolation::LineChannel a(p.fd[0]), b(p.fd[1]);
  ASSERT_TRUE(a.send("first"));
  ASSERT_TRUE(a.send(std::string(200000, 'x')));  // longer than one read
  std::string line;
  ASSERT_EQ(b.receive(line, 5), isolation::LineChannel::Status::kLine);
  EXPECT_EQ(line, "first");
  ASSERT_EQ(b.receive(line, 5), isolation::LineChannel::Status::kLine);
  EXPECT_EQ(line.size(), 200000u);
  EXPECT_EQ(b.receive(line, 0.05), isolation::LineChannel::Status::kTimeout);
  ::close(p.fd[0]);
  p.fd[0] = -1;
  EXPECT_EQ(b.receive(line, 5), isolation::LineChannel::Status::kClosed);
  // Writing to a peer that is gone is an answer, not a SIGPIPE that ends this process.
  EXPECT_FALSE(b.send("anyone there?"));
}

}  // namespace
}  // namespace occtune
