// Tuning a missing shape for occtune::sgemm (autotuner/api/on_miss_tuner.hpp).
#include "autotuner/api/on_miss_tuner.hpp"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "autotuner/core/error.hpp"
#include "autotuner/core/user_family.hpp"
#include "autotuner/cuda/in_process_backend.hpp"
#include "autotuner/engine/tuner.hpp"
#include "db/store.hpp"
#include "db/store_path.hpp"
#include "kernels/kernel_manifest.hpp"
#include "occtune/version.hpp"

namespace occtune::api {

namespace {

constexpr double kDefaultBudgetMs = 2000;

double budget_ms() {
  const char* v = std::getenv("OCCTUNE_TUNE_BUDGET_MS");
  if (v == nullptr || *v == '\0') return kDefaultBudgetMs;
  const std::string_view text(v);
  double ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec != std::errc() || end != text.data() + text.size() || !(ms > 0) || ms > 3.6e6)
    fail(ExitCode::kUsage, fmt::format("OCCTUNE_TUNE_BUDGET_MS='{}' is not a time budget; use "
                                       "milliseconds from 1 to 3600000",
                                       text));
  return ms;
}

}  // namespace

void tune_on_miss(const DeviceInfo& device, const RowMajorGemm& g) {
  auto store = db::Store::open(db::resolve_store_path().path, db::OpenMode::kReadWrite);
  auto backend = cuda::make_in_process_backend(device.uuid);
  TuneRequest request;
  request.kernels = gemm_tuning_families(g.layout);
  request.shapes = {Shape{g.m, g.n, g.k}};
  request.layout = g.layout;
  request.search.time_budget_s = budget_ms() / 1000.0;
  request.reference_clock_mhz = backend->throttle_reference_clock_mhz();
  request.argv = {"occtune::sgemm", "OCCTUNE_TUNE=on_miss"};
  request.tool_version = version();
  request.build_id = std::string(kernels::kernel_build_id());
  const std::atomic<bool> never_interrupted{false};
  run_tune(*backend, store, request, TuneEvents{}, never_interrupted);
}

}  // namespace occtune::api
