// The expression language of source-kernel job files: C precedence, the functions, and every
// error kind (syntax, unknown name, division and modulo by zero, 64-bit overflow), each naming
// the key, the expression and the column.
#include <gtest/gtest.h>

#include <limits>

#include "autotuner/core/error.hpp"
#include "autotuner/source/expr.hpp"
#include "tests/support/usage_error.hpp"

namespace occtune::source {
namespace {

std::int64_t eval(const std::string& text, const Bindings& values = {}) {
  return Expr::parse(text, "launch.smem").eval(values);
}

using testing::usage_error;

TEST(SourceExpr, PrecedenceFollowsC) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("20 - 6 - 4"), 10);  // left-associative
  EXPECT_EQ(eval("64 / 4 / 2"), 8);
  EXPECT_EQ(eval("7 + 10 % 4 * 3"), 13);  // % binds like *
  EXPECT_EQ(eval("-2 * -3"), 6);
  EXPECT_EQ(eval("- (2 + 3)"), -5);
  EXPECT_EQ(eval("1 + 2 < 4"), 1);    // + before <
  EXPECT_EQ(eval("1 < 2 == 1"), 1);   // < before ==
  EXPECT_EQ(eval("1 || 0 && 0"), 1);  // && before ||
  EXPECT_EQ(eval("(1 || 0) && 0"), 0);
  EXPECT_EQ(eval("!0 + 1"), 2);  // unary before binary
  EXPECT_EQ(eval("3 != 3 || 2 >= 2"), 1);
  EXPECT_EQ(eval("2 <= 1"), 0);
  EXPECT_EQ(eval("2 > 1"), 1);
}

TEST(SourceExpr, DivisionAndModuloAreC) {
  EXPECT_EQ(eval("-7 / 2"), -3);  // truncates toward zero
  EXPECT_EQ(eval("-7 % 2"), -1);  // sign of the dividend
  EXPECT_EQ(eval("7 % -2"), 1);
}

TEST(SourceExpr, Functions) {
  EXPECT_EQ(eval("min(3, 2 + 5)"), 3);
  EXPECT_EQ(eval("max(3, 2 + 5)"), 7);
  EXPECT_EQ(eval("ceil_div(4096, 32)"), 128);
  EXPECT_EQ(eval("ceil_div(4097, 32)"), 129);
  EXPECT_EQ(eval("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(eval("ceil_div(7, -2)"), -3);
  EXPECT_EQ(eval("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(eval("max(min(1, 2), ceil_div(9, 4))"), 3);
}

TEST(SourceExpr, NamesAreBoundAndListed) {
  Expr e = Expr::parse("ceil_div(nx, block_x * UNROLL) + threads", "launch.grid[0]");
  EXPECT_EQ(e.names(), (std::set<std::string>{"UNROLL", "block_x", "nx", "threads"}));
  EXPECT_EQ(e.eval({{"nx", 100}, {"block_x", 16}, {"UNROLL", 2}, {"threads", 64}}), 4 + 64);
  e.check_names({"UNROLL", "block_x", "nx", "threads", "extra"});
}

TEST(SourceExpr, UnknownNameNamesKeyAndAllowedNames) {
  const auto msg = usage_error([] {
    Expr::parse("BX * BZ", "kernel[0].launch.block[0]").check_names({"BX", "BY", "nx"});
  });
  EXPECT_NE(msg.find("kernel[0].launch.block[0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'BX * BZ'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown name 'BZ'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("BX, BY, nx"), std::string::npos) << msg;
}

TEST(SourceExpr, SyntaxErrorsNameTheColumn) {
  struct Case {
    const char* text;
    const char* column;
    const char* what;
  };
  for (const Case& c : {
           Case{"", "column 1", "empty"},
           Case{"2 +", "column 4", "ends where a value is expected"},
           Case{"(2 + 3", "column 7", "expected ')'"},
           Case{"2 3", "column 3", "unexpected '3'"},
           Case{"2 & 3", "column 3", "unexpected '&'"},
           Case{"a = 3", "column 3", "unexpected '='"},
           Case{"pow(2, 3)", "column 1", "unknown function 'pow'"},
           Case{"min(2)", "column 6", "expected ','"},
           Case{"max(2, 3, 4)", "column 9", "expected ')'"},
           Case{"0x10", "column 1", "not a decimal integer"},
           Case{"12abc", "column 1", "not a decimal integer"},
           Case{"99999999999999999999", "column 1", "does not fit in 64 bits"},
           Case{"2 * $", "column 5", "unexpected '$'"},
       }) {
    const auto msg = usage_error([&] { Expr::parse(c.text, "launch.smem"); });
    EXPECT_NE(msg.find("launch.smem"), std::string::npos) << c.text << ": " << msg;
    EXPECT_NE(msg.find(c.column), std::string::npos) << c.text << ": " << msg;
    EXPECT_NE(msg.find(c.what), std::string::npos) << c.text << ": " << msg;
  }
}

TEST(SourceExpr, ConstantDivisionByZeroIsRefusedAtParse) {
  auto msg = usage_error([] { Expr::parse("nx / (4 - 4)", "launch.grid[0]"); });
  EXPECT_NE(msg.find("division by zero at column 4"), std::string::npos) << msg;
  msg = usage_error([] { Expr::parse("nx % 0", "launch.grid[0]"); });
  EXPECT_NE(msg.find("modulo by zero"), std::string::npos) << msg;
  msg = usage_error([] { Expr::parse("ceil_div(nx, 0)", "launch.grid[0]"); });
  EXPECT_NE(msg.find("division by zero at column 1"), std::string::npos) << msg;
}

TEST(SourceExpr, DivisionByZeroAtEvaluationNamesTheValues) {
  Expr e = Expr::parse("nx / (BX - 16)", "kernel[0].launch.grid[0]");
  EXPECT_EQ(e.eval({{"nx", 64}, {"BX", 32}}), 4);
  const auto msg = usage_error([&] { e.eval({{"nx", 64}, {"BX", 16}}); });
  EXPECT_NE(msg.find("kernel[0].launch.grid[0] = 'nx / (BX - 16)'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("division by zero at column 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("BX=16, nx=64"), std::string::npos) << msg;
  EXPECT_NE(usage_error([&] {
              Expr::parse("nx % BX", "k").eval({{"nx", 1}, {"BX", 0}});
            }).find("modulo by zero"),
            std::string::npos);
}

TEST(SourceExpr, OverflowIsAnError) {
  const std::string max = std::to_string(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(eval(max), std::numeric_limits<std::int64_t>::max());
  for (const std::string& text : {max + " + 1", "-" + max + " - 2", max + " * 2",
                                  "(-" + max + " - 1) / -1", "-(-" + max + " - 1)"}) {
    const auto msg = usage_error([&] { Expr::parse(text, "launch.smem"); });
    EXPECT_NE(msg.find("overflows a 64-bit integer"), std::string::npos) << text << ": " << msg;
  }
  Expr e = Expr::parse("nx * ny * 4", "args[0].count");
  const auto msg = usage_error([&] { e.eval({{"nx", 1LL << 40}, {"ny", 1LL << 30}}); });
  EXPECT_NE(msg.find("args[0].count"), std::string::npos) << msg;
  EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
}

TEST(SourceExpr, LogicalOperatorsShortCircuit) {
  // The right side is not evaluated when the left decides, as in C.
  Expr e = Expr::parse("BY > 0 && nx / BY > 4", "constraints[0]");
  EXPECT_EQ(e.eval({{"BY", 0}, {"nx", 64}}), 0);
  EXPECT_EQ(e.eval({{"BY", 4}, {"nx", 64}}), 1);
  EXPECT_EQ(Expr::parse("BY == 0 || nx / BY > 4", "c").eval({{"BY", 0}, {"nx", 1}}), 1);
}

TEST(SourceExpr, DeepNestingIsRefusedNotACrash) {
  const std::string deep = std::string(100000, '-') + "1";
  EXPECT_NE(usage_error([&] { Expr::parse(deep, "launch.smem"); }).find("nested too deeply"),
            std::string::npos);
  const std::string parens = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_NE(usage_error([&] { Expr::parse(parens, "launch.smem"); }).find("nested too deeply"),
            std::string::npos);
}

}  // namespace
}  // namespace occtune::source
