// The message of the occtune::Error that `f` throws, checked to be a usage error (exit 2);
// "accepted" (and a test failure) when it throws nothing.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "autotuner/core/error.hpp"

namespace occtune::testing {

template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "accepted";
}

}  // namespace occtune::testing
