// Struct info and fusion pattern of the trigonometric and hyperbolic ops (tan, asin, ...).
#include <gtest/gtest.h>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

TEST(RelaxTrigonometricTest, FloatInFloatOutSameShape) {
  PrimVar n = SymbolicDim("n");
  for (const char* op :
       {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}) {
    EXPECT_EQ(Info(Call(op, {Tensor("x", {n, 3}, "float16")})), "R.Tensor((n, 3), \"float16\")")
        << op;
    EXPECT_EQ(OpRegistry::Global().Find(op)->pattern, OpPattern::kElemWise) << op;
    try {
      Call(op, {Tensor("i", {2}, "int32")});
      ADD_FAILURE() << op << " accepted an int32 tensor";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kType);
      EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::ir::relax
