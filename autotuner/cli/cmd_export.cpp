// occtune export: every run of the store (all candidates, samples, provenance) as one JSON
// document with a schema_version (docs/schema/export.schema.json), read in one snapshot.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/output/gate_output.hpp"
#include "db/exchange.hpp"
#include "db/store.hpp"

namespace occtune::cli {
namespace {

struct ExportOptions {
  std::string db;
  std::string out;
};

int run_export(const ExportOptions& o, const Context& ctx) {
  const std::string db_path = resolve_db(o.db);
  auto store = db::Store::open(db_path, db::OpenMode::kReadOnly);
  const db::ExportResult result = db::export_runs(store, {OCCTUNE_VERSION, ctx.argv});
  if (o.out.empty() || o.out == "-") {
    std::cout << result.json;
  } else {
    output::write_file_atomically(o.out, result.json);
  }
  spdlog::info("exported {} run{} ({} measurements) from {}{}", result.runs,
               result.runs == 1 ? "" : "s", result.measurements, store.path().string(),
               o.out.empty() || o.out == "-" ? "" : " to " + o.out);
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Context& ctx, Action& action) {
  auto* cmd = app.add_subcommand("export",
                                 "Write every stored run (candidates, samples, "
                                 "provenance) as JSON");
  auto o = std::make_shared<ExportOptions>();
  add_db_option(*cmd, o->db);
  cmd->add_option("--out", o->out, "output file (default: stdout)");
  cmd->callback([&action, &ctx, o] { action = [o, &ctx] { return run_export(*o, ctx); }; });
}

}  // namespace occtune::cli
