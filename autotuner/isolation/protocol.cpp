#include "autotuner/isolation/protocol.hpp"

#include <cmath>
#include <limits>

#include "kernels/registry.hpp"

namespace occtune::isolation {
namespace {

// Field lists: one list serves the encoder and the decoder, so the two cannot drift apart. When a
// struct gains a field, the size check below fails the build until the field is listed here.
// clang-format off
#define OCCTUNE_DEVICE_FIELDS(X)                                                              \
  X(index) X(uuid) X(name) X(source) X(cc_major) X(cc_minor) X(sm_count) X(warp_size)         \
  X(max_threads_per_block) X(max_threads_per_sm) X(max_blocks_per_sm) X(regs_per_block)       \
  X(regs_per_sm) X(shared_mem_per_block) X(shared_mem_per_block_optin) X(shared_mem_per_sm)   \
  X(reserved_shared_mem_per_block) X(max_grid_x) X(max_grid_y) X(l2_bytes)                    \
  X(global_mem_bytes) X(clock_khz) X(memory_clock_khz) X(memory_bus_width) X(driver_version)  \
  X(runtime_version) X(pci_bus_id)
#define OCCTUNE_POLICY_FIELDS(X)                                                              \
  X(warmup) X(samples) X(min_time_s) X(target_noise) X(max_seconds_per_candidate)             \
  X(max_samples) X(batch) X(flush_l2) X(tolerance) X(seed) X(settle_ms) X(settle_timeout_ms)  \
  X(throttle_ratio) X(throttle_retries) X(timer)
#define OCCTUNE_CANDIDATE_FIELDS(X)                                                           \
  X(origin) X(step) X(suggested_block) X(block_limit) X(threads) X(tile) X(dynamic_smem)      \
  X(registers) X(active_blocks_per_sm) X(occupancy) X(limiter) X(grid_x) X(grid_y) X(grid_z)  \
  X(waves) X(rejection)
// clang-format on

static_assert(sizeof(DeviceInfo) == 256,
              "DeviceInfo changed: list the new field in OCCTUNE_DEVICE_FIELDS, then update "
              "this size");
static_assert(sizeof(TimingPolicy) == 120,
              "TimingPolicy changed: list the new field in OCCTUNE_POLICY_FIELDS, then update "
              "this size");
static_assert(sizeof(Candidate) == 184,
              "Candidate changed: list the new field in OCCTUNE_CANDIDATE_FIELDS, then update "
              "this size");
static_assert(sizeof(SampleBatch) == 72,
              "SampleBatch changed: encode the new field in encode/decode_batch, then update "
              "this size");

// Doubles round-trip through JSON numbers; NaN and infinities (a poisoned output's error) are
// not JSON numbers and travel as strings.
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double to_double(const json& j) {
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw Error(ExitCode::kRuntime, "worker protocol: '" + s + "' is not a number");
  }
  return j.get<double>();
}

template <class T>
void put(json& j, const char* key, const T& v) {
  if constexpr (std::is_same_v<T, double>)
    j[key] = number(v);
  else
    j[key] = v;
}

template <class T>
void take(const json& j, const char* key, T& v) {
  if constexpr (std::is_same_v<T, double>)
    v = to_double(j.at(key));
  else
    v = j.at(key).get<T>();
}

Outcome to_outcome(const json& j) {
  const auto text = j.get<std::string>();
  auto o = outcome_from_string(text);
  if (!o) throw Error(ExitCode::kRuntime, "worker protocol: unknown outcome '" + text + "'");
  return *o;
}

}  // namespace

json encode(const DeviceInfo& d) {
  json j = json::object();
#define X(f) put(j, #f, d.f);
  OCCTUNE_DEVICE_FIELDS(X)
#undef X
  return j;
}

DeviceInfo decode_device(const json& j) {
  return decoding("device", [&] {
    DeviceInfo d;
#define X(f) take(j, #f, d.f);
    OCCTUNE_DEVICE_FIELDS(X)
#undef X
    return d;
  });
}

json encode(const TimingPolicy& p) {
  json j = json::object();
#define X(f) put(j, #f, p.f);
  OCCTUNE_POLICY_FIELDS(X)
#undef X
  return j;
}

TimingPolicy decode_policy(const json& j) {
  return decoding("timing policy", [&] {
    TimingPolicy p;
#define X(f) take(j, #f, p.f);
    OCCTUNE_POLICY_FIELDS(X)
#undef X
    return p;
  });
}

json encode(const Shape& s) { return json::array({s.m, s.n, s.k}); }

Shape decode_shape(const json& j) {
  return decoding("shape", [&] {
    Shape s{j.at(0).get<std::int64_t>(), j.at(1).get<std::int64_t>(), j.at(2).get<std::int64_t>()};
    if (s.m < 1 || s.n < 1 || s.k < 1 || j.size() != 3)
      throw Error(ExitCode::kRuntime, "worker protocol: invalid shape " + j.dump());
    return s;
  });
}

json encode(Layout layout) { return layout_name(layout); }

Layout decode_layout(const json& j) {
  return decoding("layout", [&] {
    const auto text = j.get<std::string>();
    const auto layout = parse_layout(text);
    if (!layout) throw Error(ExitCode::kRuntime, "worker protocol: " + layout_error(text));
    return *layout;
  });
}

json encode(const Candidate& c) {
  json j = json::object();
  j["variant"] = c.variant ? c.variant->symbol : std::string();
#define X(f) put(j, #f, c.f);
  OCCTUNE_CANDIDATE_FIELDS(X)
#undef X
  return j;
}

Candidate decode_candidate(const json& j) {
  return decoding("candidate", [&] {
    Candidate c;
    const auto symbol = j.at("variant").get<std::string>();
    for (auto& v : kernels::variants())
      if (v.symbol == symbol) c.variant = &v;
    if (!c.variant)
      throw Error(ExitCode::kRuntime,
                  "worker protocol: kernel variant '" + symbol +
                      "' is not registered on this side (is OCCTUNE_TEST_KERNELS set on one "
                      "side only?)");
#define X(f) take(j, #f, c.f);
    OCCTUNE_CANDIDATE_FIELDS(X)
#undef X
    return c;
  });
}

json encode(const Plan& plan) {
  json candidates = json::array();
  for (auto& c : plan.candidates) candidates.push_back(encode(c));
  return {{"family", plan.family},
          {"oracle", plan.oracle},
          {"candidates", candidates},
          {"notes", plan.notes}};
}

Plan decode_plan(const json& j) {
  return decoding("plan", [&] {
    Plan plan;
    plan.family = j.at("family").get<std::string>();
    plan.oracle = j.at("oracle").get<std::string>();
    for (auto& c : j.at("candidates")) plan.candidates.push_back(decode_candidate(c));
    plan.notes = j.at("notes").get<std::vector<std::string>>();
    return plan;
  });
}

json encode(const SampleBatch& b) {
  json samples = json::array();
  for (double s : b.samples_ms) samples.push_back(number(s));
  return {{"outcome", std::string(to_string(b.outcome))},
          {"error", b.error},
          {"samples_ms", samples},
          {"sm_clock_mhz", b.sm_clock_mhz}};
}

SampleBatch decode_batch(const json& j) {
  return decoding("sample batch", [&] {
    SampleBatch b;
    b.outcome = to_outcome(j.at("outcome"));
    b.error = j.at("error").get<std::string>();
    for (auto& s : j.at("samples_ms")) b.samples_ms.push_back(to_double(s));
    b.sm_clock_mhz = j.at("sm_clock_mhz").get<int>();
    return b;
  });
}

json encode_check(const Measurement& m) {
  return {{"outcome", std::string(to_string(m.outcome))},
          {"error", m.error},
          {"rel_error", number(m.rel_error)},
          {"flops", number(m.flops)}};
}

void decode_check(const json& j, Measurement& m) {
  decoding("check result", [&] {
    m.outcome = to_outcome(j.at("outcome"));
    m.error = j.at("error").get<std::string>();
    m.rel_error = to_double(j.at("rel_error"));
    m.flops = to_double(j.at("flops"));
  });
}

}  // namespace occtune::isolation
