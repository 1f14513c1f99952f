// An in-memory MeasurementSink for the engine's tests: the engine never sees SQLite, and its
// tests check what it emitted (runs, measurements, the reference, the final status) without a
// store. Reuse across runs is the store's rule (db::Store::reusable_measurements) and is tested
// with a store; this sink offers nothing for reuse.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotuner/core/measurement_sink.hpp"

namespace occtune::testing {

class MemorySink final : public MeasurementSink {
 public:
  struct Run {
    StoredRun run;
    RunSearch search;
    std::vector<StoredMeasurement> measurements;
  };

  std::int64_t begin_run(const RunStart& start, const RunSearch& search) override {
    Run r;
    r.run.id = std::int64_t(runs_.size()) + 1;
    r.run.key = CacheKey::make(start.device, start.kernel, start.build_id, start.shape,
                               start.dtype, start.layout);
    r.run.status = RunStatus::kRunning;
    r.run.tool_version = start.tool_version;
    r.run.strategy = search.strategy;
    r.run.reference_clock_mhz = search.reference_clock_mhz;
    r.search = search;
    runs_.push_back(std::move(r));
    return runs_.back().run.id;
  }
  std::int64_t add_measurement(std::int64_t run_id, const Measurement& m) override {
    auto& rows = at(run_id).measurements;
    rows.push_back(stored_form(m, ++last_measurement_id_, run_id));
    return last_measurement_id_;
  }
  void update_measurement(std::int64_t measurement_id, const Measurement& m) override {
    for (auto& r : runs_)
      for (auto& row : r.measurements)
        if (row.id == measurement_id) {
          // The candidate columns stay as stored, as in the store.
          StoredMeasurement updated = stored_form(m, row.id, row.run_id);
          updated.variant = row.variant;
          updated.params = row.params;
          row = std::move(updated);
          return;
        }
    throw std::out_of_range("no measurement " + std::to_string(measurement_id));
  }
  void set_reference(std::int64_t run_id, const Timing& cublas) override {
    at(run_id).run.cublas = cublas.summary;
  }
  void finish_run(std::int64_t run_id, RunStatus status) override { at(run_id).run.status = status; }
  std::vector<StoredMeasurement> reusable_measurements(const CacheKey&, const TimingPolicy&,
                                                       const std::string&) override {
    return {};
  }

  const std::vector<Run>& runs() const { return runs_; }
  const Run& run(std::int64_t run_id) const { return const_cast<MemorySink*>(this)->at(run_id); }
  // The measurement the search marked as its winner, as Store::best answers for a complete run.
  std::optional<StoredMeasurement> winner(std::int64_t run_id) const {
    for (auto& m : run(run_id).measurements)
      if (m.winner) return m;
    return std::nullopt;
  }

 private:
  Run& at(std::int64_t run_id) {
    if (run_id < 1 || run_id > std::int64_t(runs_.size()))
      throw std::out_of_range("no run " + std::to_string(run_id));
    return runs_[std::size_t(run_id - 1)];
  }
  std::vector<Run> runs_;
  std::int64_t last_measurement_id_ = 0;
};

}  // namespace occtune::testing
