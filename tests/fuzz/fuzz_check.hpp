// What every occtune parser harness asserts besides "no crash, no leak, no undefined behaviour":
// bad input comes back only as occtune::Error with the expected exit code (usage, unless the
// harness allows more) and a one-line message.
// Anything else (another exception type, another code, a multi-line message) aborts the run.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <string_view>

#include "autotuner/core/error.hpp"

namespace occtune::fuzz {

[[noreturn]] inline void violation(const char* what, const char* detail) {
  std::fprintf(stderr, "fuzz invariant violated: %s: %s\n", what, detail);
  std::abort();
}

// Runs `parse`; returns true when it accepted the input. `allowed`: the exit codes a refusal
// may carry (usage alone for a parser; an importer may also answer "incompatible").
template <class F>
bool accepts(F&& parse, std::initializer_list<ExitCode> allowed = {ExitCode::kUsage}) {
  try {
    parse();
    return true;
  } catch (const Error& e) {
    bool known = false;
    for (ExitCode code : allowed) known = known || e.code() == code;
    if (!known) violation("error with an exit code this input may not cause", e.what());
    if (std::string_view(e.what()).find('\n') != std::string_view::npos)
      violation("error message spans more than one line", e.what());
    if (std::string_view(e.what()).empty()) violation("empty error message", "");
    return false;
  } catch (const std::exception& e) {
    violation("exception that is not occtune::Error", e.what());
  }
}

}  // namespace occtune::fuzz
