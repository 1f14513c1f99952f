// occtune::Cache: the read side of an occtune store for applications. It answers "which
// configuration do I launch for this problem on this device?" through the lookup chain (exact
// key, same model, same architecture, nearest measured shape, occupancy heuristic) and never
// touches a GPU: a device is named by its UUID. Answers are kept in memory until another
// process writes the store, so a repeated lookup costs a hash-map probe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "occtune/error.hpp"
#include "occtune/model.hpp"

namespace occtune {

struct LookupOptions {
  // false: only the exact key may answer (no other device, shape or heuristic).
  bool fallback = true;
};

class Cache {
 public:
  // Opens the store read-only (a file or directory without write permission, e.g. a cache
  // shipped in a container image, is fine): OCCTUNE_DB when it is set, else
  // $XDG_CACHE_HOME/occtune/occtune.db, else ~/.cache/occtune/occtune.db. OCCTUNE_DB set but
  // empty is Error(kUsage), as in the CLI.
  // Throws Error: kNotFound when there is no database or it was written by a newer occtune (or
  // is not occtune's); kRuntime for I/O problems or a damaged file. The message names the path.
  static Cache open();
  static Cache open(const std::string& path);

  Cache(Cache&&) noexcept;
  Cache& operator=(Cache&&) noexcept;
  ~Cache();

  // The configuration to launch for `problem` on the device `device_uuid`, and how it was
  // found. Thread-safe. Throws Error: kUsage for a malformed problem (a side below 1 or above
  // 2^31-1, an unknown family, layout or dtype; the message names the value), kNotFound when no
  // step of the chain could answer (e.g. a device this store has never seen, so there are no
  // properties to plan with), kRuntime when the store cannot be read.
  Answer best(const Problem& problem, const std::string& device_uuid,
              const LookupOptions& options = {}) const;
  // The same, with nullopt instead of the kNotFound error.
  std::optional<Answer> find(const Problem& problem, const std::string& device_uuid,
                             const LookupOptions& options = {}) const;

  // The devices the store has records of, newest first.
  std::vector<DeviceIdentity> devices() const;
  const std::string& path() const;

 private:
  struct Impl;
  explicit Cache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace occtune
