// occtune import FILE: merges an export into a store in one transaction. Idempotent: a run that
// is already there (same device key, kernel, build, dtype, shape and start time) is skipped.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/export_file.hpp"
#include "autotuner/output/json_output.hpp"
#include "db/exchange.hpp"
#include "db/store.hpp"

namespace occtune::cli {
namespace {

struct ImportOptions {
  std::string file;
  std::string db;
  std::string format = "table";
};

int run_import(const ImportOptions& o) {
  const Format format = resolve_format(o.format, FormatSet::kTableJson);
  const std::string text = read_export_file(o.file);
  db::check_export(text, o.file);  // before the store is opened: a bad file creates nothing
  const std::string db_path = resolve_db(o.db);
  auto store = db::Store::open(db_path);
  const db::ImportSummary s = db::import_runs(store, text, o.file);
  for (auto& field : s.dropped_fields)
    spdlog::warn("'{}' has no column in this database's schema; its values were not imported",
                 field);
  if (format == Format::kJson) {
    std::cout << output::document("import", {{"db", store.path().string()},
                                             {"file", o.file},
                                             {"runs_added", s.runs_added},
                                             {"runs_replaced", s.runs_replaced},
                                             {"runs_skipped", s.runs_skipped},
                                             {"measurements_added", s.measurements_added},
                                             {"dropped_fields", s.dropped_fields}})
                     .dump(2)
              << '\n';
  } else {
    std::cout << fmt::format(
        "imported {} run{} ({} measurements) into {}; {} already present{}\n", s.runs_added,
        s.runs_added == 1 ? "" : "s", s.measurements_added, store.path().string(), s.runs_skipped,
        s.runs_replaced ? fmt::format(", {} unfinished run{} replaced by the "
                                      "finished one",
                                      s.runs_replaced, s.runs_replaced == 1 ? "" : "s")
                        : "");
  }
  return 0;
}

}  // namespace

void add_import_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand("import",
                                 "Merge an export into a store (runs already there "
                                 "are skipped)");
  auto o = std::make_shared<ImportOptions>();
  cmd->add_option("FILE", o->file, "export file (occtune export)")->required();
  add_db_option(*cmd, o->db);
  add_format_option(*cmd, o->format, FormatSet::kTableJson);
  cmd->callback([&action, o] { action = [o] { return run_import(*o); }; });
}

}  // namespace occtune::cli
