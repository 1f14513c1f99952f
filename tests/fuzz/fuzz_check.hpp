// What every occtune parser harness asserts besides "no crash, no leak, no undefined behaviour":
// bad input comes back only as occtune::Error with the usage exit code and a one-line message.
// Anything else (another exception type, another code, a multi-line message) aborts the run.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "autotuner/core/error.hpp"

namespace occtune::fuzz {

[[noreturn]] inline void violation(const char* what, const char* detail) {
  std::fprintf(stderr, "fuzz invariant violated: %s: %s\n", what, detail);
  std::abort();
}

// Runs `parse`; returns true when it accepted the input.
template <class F>
bool accepts(F&& parse) {
  try {
    parse();
    return true;
  } catch (const Error& e) {
    if (e.code() != ExitCode::kUsage) violation("error with a code other than usage (2)", e.what());
    if (std::string_view(e.what()).find('\n') != std::string_view::npos)
      violation("error message spans more than one line", e.what());
    if (std::string_view(e.what()).empty()) violation("empty error message", "");
    return false;
  } catch (const std::exception& e) {
    violation("exception that is not occtune::Error", e.what());
  }
}

}  // namespace occtune::fuzz
