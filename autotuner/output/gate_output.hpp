// The regression gate's report in every form CI reads: a table for the log, JSON and CSV (with
// schema_version), JUnit XML (one test case per key) and a markdown summary for a CI comment.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "autotuner/engine/gate.hpp"

namespace occtune::output {

void print_gate_table(std::ostream& out, const gate::GateReport& report);
nlohmann::json gate_json(const gate::GateReport& report);
std::string gate_junit(const gate::GateReport& report);
std::string gate_markdown(const gate::GateReport& report);
// One RFC 4180 record per key: verdict, key, configuration, both medians and counts, ratio, p.
void print_gate_csv(std::ostream& out, const gate::GateReport& report);

// Shared wording: "2 SAME, 1 SLOW" in severity order, and the rule in one sentence.
std::string verdict_counts(const gate::GateReport& report);
std::string verdict_rule(const gate::GateReport& report);
// Whether a verdict fails this report (SLOW, WRONG; DRIFT with strict).
bool is_failure(const gate::GateReport& report, Verdict verdict);
bool is_unjudged(Verdict verdict);  // MISSING, INCOMPATIBLE

// Writes `text` to `path` through a temporary file and a rename, so a reader never sees half a
// report; Error(kRuntime) naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace occtune::output
