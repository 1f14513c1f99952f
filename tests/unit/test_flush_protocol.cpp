// The L2 flush a run was timed with, read back from its stored policy (autotuner/core/
// flush_protocol.hpp): the method it names, "off", and "memset" for runs stored before the
// method was recorded, which the store and the regression gate must not mix with "read".
#include <gtest/gtest.h>

#include "autotuner/core/flush_protocol.hpp"
#include "autotuner/core/model_json.hpp"

namespace occtune {
namespace {

TEST(FlushProtocol, StoredPolicyNamesItsFlush) {
  TimingPolicy policy;
  EXPECT_EQ(flush_protocol(policy), "read");
  EXPECT_EQ(stored_flush_protocol(model::to_json(policy).dump()), "read");
  policy.flush_l2 = false;
  EXPECT_EQ(flush_protocol(policy), "off");
  EXPECT_EQ(stored_flush_protocol(model::to_json(policy).dump()), "off");
}

TEST(FlushProtocol, RunsStoredBeforeTheMethodWasRecordedFlushedWithAMemset) {
  auto j = model::to_json(TimingPolicy{});
  j.erase("flush_method");
  EXPECT_EQ(stored_flush_protocol(j.dump()), "memset");
  j["flush_l2"] = false;
  EXPECT_EQ(stored_flush_protocol(j.dump()), "off");
}

TEST(FlushProtocol, APolicyThatDoesNotSayIsUnknown) {
  for (const char* text : {"", "{}", "not json", "[]", R"({"flush_l2": "yes"})"})
    EXPECT_EQ(stored_flush_protocol(text), "") << text;
}

}  // namespace
}  // namespace occtune
