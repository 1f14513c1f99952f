// occtune report: one self-contained HTML file of what the store holds (README "The report"): per
// device and shape the occupancy-versus-time chart of every candidate, the textbook pick and the
// winner, tuned/cuBLAS and the share of the FMA limit, history with check verdicts, provenance.
// Reads the store only; needs no GPU.
#include <iostream>
#include <memory>

#include "autotuner/cli/commands.hpp"
#include "autotuner/cli/shared_options.hpp"
#include "autotuner/cli/report_file.hpp"
#include "db/store.hpp"

namespace occtune::cli {
namespace {

struct ReportOptions {
  std::string db;
  std::string device;
  std::string out = "report.html";
};

int run_report(const ReportOptions& o) {
  const std::string db_path = resolve_db(o.db);
  auto store = db::Store::open(db_path, db::OpenMode::kReadOnly);
  std::cout << write_report(store, o.device, o.out) << '\n';
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Context&, Action& action) {
  auto* cmd = app.add_subcommand(
      "report", "Write an HTML report of the store: occupancy against time of every candidate, "
                "winners, history and check verdicts (no GPU needed)");
  auto o = std::make_shared<ReportOptions>();
  add_db_option(*cmd, o->db);
  cmd->add_option("--device", o->device,
                  "only this stored device: a UUID prefix or the index it was tuned as "
                  "(default: every device)");
  cmd->add_option("--out", o->out, "HTML file to write (default report.html); its path is printed");
  cmd->callback([&action, o] { action = [o] { return run_report(*o); }; });
}

}  // namespace occtune::cli
