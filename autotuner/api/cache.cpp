// occtune::Cache (include/occtune/cache.hpp): the lookup chain of db/lookup.hpp behind a small
// value API, with the answers kept in memory until the store changes. Whether anyone committed
// is read from the WAL index (db/wal_watch.hpp: a memory read, no lock, no system call), so a
// repeated lookup is a hash-map probe; without a WAL index (a read-only copy, journal mode
// DELETE) SQLite's data_version is asked at most every kRecheckInterval.
#include "occtune/cache.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "autotuner/api/conversions.hpp"
#include "autotuner/core/layout.hpp"
#include "autotuner/core/shape.hpp"
#include "autotuner/core/user_family.hpp"
#include "db/lookup.hpp"
#include "db/store.hpp"
#include "db/store_path.hpp"
#include "db/wal_watch.hpp"
#include "kernels/kernel_manifest.hpp"
#include "kernels/registry.hpp"

namespace occtune {

namespace {

constexpr auto kRecheckInterval = std::chrono::milliseconds(100);
constexpr std::size_t kMemoEntries = 4096;

std::string memo_key(const Problem& p, const std::string& uuid, bool fallback) {
  return fmt::format("{}|{}|{}|{}|{}|{}x{}x{}", uuid, p.family,
                     layout_name(*parse_layout(p.layout)), p.dtype, fallback ? 1 : 0, p.m, p.n,
                     p.k);
}

void validate(const Problem& p, const std::string& uuid) {
  auto side = [](const char* name, std::int64_t v) {
    if (v < 1 || v > kMaxShapeSide)
      fail(ExitCode::kUsage, fmt::format("problem dimension {} = {} is out of range; use 1 to {}",
                                         name, v, kMaxShapeSide));
  };
  side("m", p.m);
  side("n", p.n);
  side("k", p.k);
  if (!p.family.empty() && !kernels::find_family(p.family))
    fail(ExitCode::kUsage, fmt::format("unknown kernel family '{}'; known families: {} (or leave "
                                       "it empty for the fastest of any)",
                                       p.family, kernels::family_names()));
  if (p.dtype != "f32")
    fail(ExitCode::kUsage, fmt::format("dtype '{}' is not supported; use f32", p.dtype));
  if (!parse_layout(p.layout)) fail(ExitCode::kUsage, layout_error(p.layout));
  if (uuid.empty())
    fail(ExitCode::kUsage, "the device UUID is empty; pass the GPU-... UUID of the device");
}

}  // namespace

struct Cache::Impl {
  std::string path;
  mutable std::mutex store_mutex;  // one SQLite connection, used by one thread at a time
  mutable db::Store store;
  std::unique_ptr<db::WalWatch> watch;  // null: no WAL index, ask data_version instead

  mutable std::shared_mutex memo_mutex;
  mutable std::unordered_map<std::string, Answer> memo;
  mutable std::unordered_map<std::string, DeviceInfo> devices;  // by UUID
  mutable std::optional<db::WalWatch::Header> seen_header;
  mutable std::int64_t seen_version = -1;
  mutable std::atomic<std::int64_t> next_check_ns{0};  // steady clock, for data_version

  Impl(std::string p, db::Store s) : path(std::move(p)), store(std::move(s)) {
    store.data_version();  // a first read maps the WAL index, so it can be watched
    watch = db::WalWatch::open(path);
    if (watch) seen_header = watch->header();
  }

  // Drops remembered answers when another connection committed since they were derived.
  void forget_if_changed() const {
    if (watch) {
      const auto header = watch->header();
      {
        std::shared_lock lock(memo_mutex);
        if (header && header == seen_header) return;
      }
      std::unique_lock lock(memo_mutex);
      seen_header = header;
      memo.clear();
      devices.clear();
      return;
    }
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    if (now < next_check_ns.load(std::memory_order_relaxed)) return;
    std::int64_t version = 0;
    {
      std::lock_guard store_lock(store_mutex);
      version = store.data_version();
    }
    std::unique_lock lock(memo_mutex);
    next_check_ns.store(now + std::chrono::nanoseconds(kRecheckInterval).count(),
                        std::memory_order_relaxed);
    if (version != seen_version) {
      seen_version = version;
      memo.clear();
      devices.clear();
    }
  }

  std::optional<Answer> lookup(const Problem& p, const std::string& uuid, bool fallback) const {
    std::lock_guard store_lock(store_mutex);
    std::optional<DeviceInfo> device;
    {
      std::shared_lock lock(memo_mutex);
      if (auto it = devices.find(uuid); it != devices.end()) device = it->second;
    }
    if (!device) {
      device = store.device_by_uuid(uuid);
      if (!device) return std::nullopt;
      std::unique_lock lock(memo_mutex);
      devices.emplace(uuid, *device);
    }
    const auto key =
        db::CacheKey::make(*device, p.family, family_build_id(p.family, kernels::kernel_build_id()),
                           Shape{p.m, p.n, p.k}, p.dtype, layout_name(*parse_layout(p.layout)));
    db::LookupOptions options;
    options.fallback = fallback;
    options.device = &*device;
    const db::LookupResult result = db::lookup(store, key, options);
    if (!result.hit()) return std::nullopt;
    return api::to_answer(result, Shape{p.m, p.n, p.k});
  }
};

Cache::Cache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;
Cache::~Cache() = default;

Cache Cache::open() {
  return open(db::resolve_store_path().path.string());
}

Cache Cache::open(const std::string& path) {
  auto store = db::Store::open(path, db::OpenMode::kReadOnly);
  return Cache(std::make_unique<Impl>(path, std::move(store)));
}

std::optional<Answer> Cache::find(const Problem& problem, const std::string& device_uuid,
                                  const LookupOptions& options) const {
  validate(problem, device_uuid);
  impl_->forget_if_changed();
  const std::string key = memo_key(problem, device_uuid, options.fallback);
  {
    std::shared_lock lock(impl_->memo_mutex);
    if (auto it = impl_->memo.find(key); it != impl_->memo.end()) return it->second;
  }
  auto answer = impl_->lookup(problem, device_uuid, options.fallback);
  if (answer) {
    std::unique_lock lock(impl_->memo_mutex);
    if (impl_->memo.size() >= kMemoEntries) impl_->memo.clear();  // bounded; refilled on use
    impl_->memo.emplace(key, *answer);
  }
  return answer;
}

Answer Cache::best(const Problem& problem, const std::string& device_uuid,
                   const LookupOptions& options) const {
  auto answer = find(problem, device_uuid, options);
  if (!answer)
    fail(ExitCode::kNotFound,
         fmt::format("no configuration for {} {}x{}x{} on {} in {}{}; run `occtune tune` on that "
                     "device first",
                     problem.family.empty() ? "any kernel" : problem.family, problem.m, problem.n,
                     problem.k, device_uuid, impl_->path,
                     options.fallback ? " at any step of the lookup chain" : " (exact key only)"));
  return *answer;
}

std::vector<DeviceIdentity> Cache::devices() const {
  std::lock_guard store_lock(impl_->store_mutex);
  std::vector<DeviceIdentity> out;
  for (const auto& d : impl_->store.devices()) out.push_back(api::to_identity(d));
  return out;
}

const std::string& Cache::path() const { return impl_->path; }

const char* to_string(LookupStep step) {
  // The store's spelling (the same steps in the same order: autotuner/api/conversions.cpp), a
  // string literal, so data() is terminated.
  return db::to_string(static_cast<db::LookupStep>(step)).data();
}

}  // namespace occtune
