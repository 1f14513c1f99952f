// The write transactions of a tuning run (begin, add and update measurements, the reference,
// finish). Each is its own BEGIN IMMEDIATE transaction; GPU work happens between them.
#include "db/store.hpp"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/codec.hpp"
#include "db/run_owner.hpp"
#include "db/store_sql.hpp"

namespace occtune::db {

using namespace sql;  // the shared SQL plumbing of db/store_sql.hpp

std::int64_t Store::begin_run(const RunStart& start, const RunSearch& search) {
  return write_transaction(*db_, path_, "starting a run", [&] {
    std::int64_t device_id = 0;
    {
      SQLite::Statement upsert(
          *db_, fmt::format("INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, "
                            "driver_version, runtime_version, properties_json, first_seen_at, "
                            "last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, {0}, {0}) "
                            "ON CONFLICT (uuid, name, cc_major, cc_minor, sm_count, "
                            "driver_version, runtime_version) DO UPDATE SET "
                            "properties_json = excluded.properties_json, "
                            "last_seen_at = excluded.last_seen_at RETURNING id",
                            kNow));
      const DeviceInfo& d = start.device;
      Binder{upsert}(d.uuid)(d.name)(d.cc_major)(d.cc_minor)(d.sm_count)(d.driver_version)(
          d.runtime_version)(codec::device_json(d));
      upsert.executeStep();
      device_id = upsert.getColumn(0).getInt64();
    }
    SQLite::Statement insert(
        *db_, fmt::format("INSERT INTO runs (device_id, kernel, build_id, dtype, m, n, k, layout, "
                          "status, started_at, tool_version, argv_json, policy_json, strategy, "
                          "reference_clock_mhz) VALUES "
                          "(?, ?, ?, ?, ?, ?, ?, ?, 'running', {}, ?, ?, ?, ?, ?)",
                          kNow));
    Binder{insert}(device_id)(start.kernel)(start.build_id)(start.dtype)(start.shape.m)(
        start.shape.n)(start.shape.k)(start.layout)(start.tool_version)(
        codec::strings_json(start.argv))(codec::policy_json(start.policy))(search.strategy)(
        search.reference_clock_mhz);
    insert.exec();
    const std::int64_t run_id = db_->getLastInsertRowid();
    owner::stamp(*db_, run_id);  // lets a later open tell an abandoned run from a live one
    return run_id;
  });
}

std::int64_t Store::add_measurement(std::int64_t run_id, const Measurement& m) {
  return write_transaction(*db_, path_, "storing a measurement", [&] {
    SQLite::Statement insert(
        *db_,
        fmt::format("INSERT INTO measurements (run_id, variant, params, origin, step, "
                    "suggested_block, block_limit, threads, tile, dynamic_smem, registers, "
                    "active_blocks_per_sm, occupancy, limiter, grid_x, grid_y, waves, rejection, "
                    "{}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {})",
                    kResultColumns, kResultPlaceholders));
    const Candidate& c = m.candidate;
    const std::string symbol = c.variant ? c.variant->symbol : std::string();
    const std::string params = c.variant ? c.variant->label() : std::string();
    Binder bind(insert);
    bind(run_id)(symbol)(params)(c.origin)(c.step)(c.suggested_block)(c.block_limit);
    bind(c.threads)(c.tile)(c.dynamic_smem)(c.registers)(c.active_blocks_per_sm)(c.occupancy);
    bind(c.limiter)(c.grid_x)(c.grid_y)(c.waves)(c.rejection);
    bind_result(bind, m);
    try {
      insert.exec();
    } catch (const SQLite::Exception& e) {
      if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_FOREIGNKEY) no_such_run(path_, run_id);
      throw;
    }
    return db_->getLastInsertRowid();
  });
}

void Store::update_measurement(std::int64_t measurement_id, const Measurement& m) {
  write_transaction(*db_, path_, "updating a measurement", [&] {
    std::string set;
    for (std::string_view rest = kResultColumns; !rest.empty();) {
      const auto comma = rest.find(',');
      std::string_view column = rest.substr(0, comma);
      while (!column.empty() && column.front() == ' ') column.remove_prefix(1);
      set += fmt::format("{}{} = ?", set.empty() ? "" : ", ", column);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    SQLite::Statement update(*db_, fmt::format("UPDATE measurements SET {} WHERE id = ?", set));
    Binder bind(update);
    bind_result(bind, m);
    bind(measurement_id);
    if (update.exec() == 0)
      fail(ExitCode::kNotFound, fmt::format("no measurement with id {} in database '{}'",
                                            measurement_id, path_.string()));
  });
}

void Store::set_reference(std::int64_t run_id, const Timing& cublas) {
  write_transaction(*db_, path_, "storing the cuBLAS reference", [&] {
    SQLite::Statement update(
        *db_,
        "UPDATE runs SET cublas_count = ?, cublas_min_ms = ?, cublas_q1_ms = ?, "
        "cublas_median_ms = ?, cublas_q3_ms = ?, cublas_max_ms = ?, cublas_mean_ms = ?, "
        "cublas_samples_json = ?, cublas_sm_clock_mhz = ? WHERE id = ?");
    const Summary& s = cublas.summary;
    Binder{update}(s.count)(s.min)(s.q1)(s.median)(s.q3)(s.max)(s.mean)(
        codec::samples_json(cublas.samples_ms))(cublas.sm_clock_mhz)(run_id);
    if (update.exec() == 0) no_such_run(path_, run_id);
  });
}

void Store::finish_run(std::int64_t run_id, RunStatus status) {
  write_transaction(*db_, path_, "finishing a run", [&] {
    SQLite::Statement update(
        *db_, fmt::format("UPDATE runs SET status = ?1, finished_at = CASE WHEN ?1 = 'running' "
                          "THEN NULL ELSE {} END WHERE id = ?2",
                          kNow));
    Binder{update}(to_string(status))(run_id);
    if (update.exec() == 0) no_such_run(path_, run_id);
  });
}

}  // namespace occtune::db
