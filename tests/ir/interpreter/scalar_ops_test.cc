// Lane arithmetic: wrapping, rounding, division rules and saturating casts.
#include "ir/interpreter/scalar_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/error.h"

namespace kiln::ir::interp {
namespace {

int64_t IntOp(NodeKind kind, DataType t, int64_t a, int64_t b) {
  return BinaryOp(kind, t, Scalar::Int(a), Scalar::Int(b)).i;
}

TEST(ScalarOpsTest, WrapIntFollowsTheWidth) {
  EXPECT_EQ(WrapInt(200, DataType::Int(8)), -56);
  EXPECT_EQ(WrapInt(-1, DataType::UInt(8)), 255);
  EXPECT_EQ(WrapInt(int64_t{1} << 31, DataType::Int(32)), INT32_MIN);
  EXPECT_EQ(WrapInt(70000, DataType::UInt(16)), 70000 - 65536);
  EXPECT_EQ(WrapInt(5, DataType::Bool()), 1);
  EXPECT_EQ(WrapInt(INT64_MIN, DataType::Int(64)), INT64_MIN);
}

TEST(ScalarOpsTest, IntegerArithmeticWraps) {
  EXPECT_EQ(IntOp(NodeKind::kAdd, DataType::Int(8), 100, 100), -56);
  EXPECT_EQ(IntOp(NodeKind::kMul, DataType::Int(32), 65536, 65536), 0);
  EXPECT_EQ(IntOp(NodeKind::kSub, DataType::UInt(8), 3, 5), 254);
  EXPECT_EQ(IntOp(NodeKind::kAdd, DataType::Int(64), INT64_MAX, 1), INT64_MIN);
  EXPECT_EQ(IntOp(NodeKind::kDiv, DataType::Int(32), INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(IntOp(NodeKind::kDiv, DataType::Int(64), INT64_MIN, -1), INT64_MIN);
}

TEST(ScalarOpsTest, TruncatingAndFlooringDivision) {
  DataType t = DataType::Int(32);
  EXPECT_EQ(IntOp(NodeKind::kDiv, t, -7, 2), -3);
  EXPECT_EQ(IntOp(NodeKind::kMod, t, -7, 2), -1);
  EXPECT_EQ(IntOp(NodeKind::kFloorDiv, t, -7, 2), -4);
  EXPECT_EQ(IntOp(NodeKind::kFloorMod, t, -7, 2), 1);
  EXPECT_EQ(IntOp(NodeKind::kDiv, t, 7, -2), -3);
  EXPECT_EQ(IntOp(NodeKind::kMod, t, 7, -2), 1);
  EXPECT_EQ(IntOp(NodeKind::kFloorDiv, t, 7, -2), -4);
  EXPECT_EQ(IntOp(NodeKind::kFloorMod, t, 7, -2), -1);
  EXPECT_EQ(IntOp(NodeKind::kFloorDiv, t, 6, 3), 2);
  EXPECT_EQ(IntOp(NodeKind::kFloorMod, t, -6, 3), 0);
}

TEST(ScalarOpsTest, Unsigned64UsesUnsignedOrder) {
  DataType t = DataType::UInt(64);
  int64_t big = -2;  // 2^64 - 2
  EXPECT_EQ(IntOp(NodeKind::kLT, t, 1, big), 1);
  EXPECT_EQ(IntOp(NodeKind::kDiv, t, big, 2), static_cast<int64_t>(~uint64_t{0} / 2));
  EXPECT_EQ(IntOp(NodeKind::kMax, t, 1, big), big);
}

TEST(ScalarOpsTest, IntegerDivisionByZeroThrows) {
  for (NodeKind kind : {NodeKind::kDiv, NodeKind::kMod, NodeKind::kFloorDiv, NodeKind::kFloorMod}) {
    try {
      IntOp(kind, DataType::Int(32), 5, 0);
      FAIL() << "no error for " << NodeKindName(kind);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
      EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos);
    }
  }
  // Floats follow IEEE instead.
  EXPECT_TRUE(std::isinf(
      BinaryOp(NodeKind::kDiv, DataType::Float(32), Scalar::Float(1), Scalar::Float(0)).f));
}

TEST(ScalarOpsTest, FloatOpsRoundToTheirDtype) {
  // 1 + 2^-11 is not a float16: it rounds to even (1); 1 + 3 * 2^-11 rounds up.
  DataType f16 = DataType::Float(16);
  EXPECT_EQ(BinaryOp(NodeKind::kAdd, f16, Scalar::Float(1), Scalar::Float(0x1p-11)).f, 1.0);
  EXPECT_EQ(BinaryOp(NodeKind::kAdd, f16, Scalar::Float(1), Scalar::Float(3 * 0x1p-11)).f,
            1.0 + 0x1p-9);
  EXPECT_EQ(BinaryOp(NodeKind::kAdd, DataType::Float(32), Scalar::Float(1), Scalar::Float(1e-8)).f,
            1.0);
  EXPECT_EQ(BinaryOp(NodeKind::kAdd, DataType::Float(64), Scalar::Float(1), Scalar::Float(1e-8)).f,
            1.0 + 1e-8);
  EXPECT_EQ(RoundFloat(1.00390625, DataType::BFloat16()), 1.0);  // 1 + 2^-8 ties to even
  EXPECT_EQ(RoundFloat(70000, f16), INFINITY);
}

TEST(ScalarOpsTest, MinMaxPropagateNaN) {
  DataType t = DataType::Float(32);
  EXPECT_TRUE(std::isnan(BinaryOp(NodeKind::kMax, t, Scalar::Float(1), Scalar::Float(NAN)).f));
  EXPECT_TRUE(std::isnan(BinaryOp(NodeKind::kMin, t, Scalar::Float(NAN), Scalar::Float(1)).f));
  EXPECT_EQ(BinaryOp(NodeKind::kMin, t, Scalar::Float(-2), Scalar::Float(1)).f, -2);
}

TEST(ScalarOpsTest, FloatToIntCastsTruncateAndSaturate) {
  DataType f32 = DataType::Float(32);
  auto cast = [&](double v, DataType to) { return CastScalar(Scalar::Float(v), f32, to).i; };
  EXPECT_EQ(cast(-2.7, DataType::Int(32)), -2);
  EXPECT_EQ(cast(2.7, DataType::Int(32)), 2);
  EXPECT_EQ(cast(300, DataType::Int(8)), 127);
  EXPECT_EQ(cast(-300, DataType::Int(8)), -128);
  EXPECT_EQ(cast(-5, DataType::UInt(8)), 0);
  EXPECT_EQ(cast(1e30, DataType::Int(64)), INT64_MAX);
  EXPECT_EQ(cast(-1e30, DataType::Int(64)), INT64_MIN);
  EXPECT_EQ(cast(1e30, DataType::UInt(32)), 4294967295);
  EXPECT_EQ(cast(NAN, DataType::Int(32)), 0);
  EXPECT_EQ(cast(0.5, DataType::Bool()), 1);
  EXPECT_EQ(cast(0.0, DataType::Bool()), 0);
}

TEST(ScalarOpsTest, IntCastsWrapAndRound) {
  EXPECT_EQ(CastScalar(Scalar::Int(300), DataType::Int(32), DataType::Int(8)).i, 44);
  EXPECT_EQ(CastScalar(Scalar::Int(-1), DataType::Int(32), DataType::UInt(16)).i, 65535);
  EXPECT_EQ(CastScalar(Scalar::Int(2049), DataType::Int(32), DataType::Float(16)).f, 2048);
  EXPECT_EQ(CastScalar(Scalar::Int(-1), DataType::UInt(64), DataType::Float(64)).f, 0x1p64);
  EXPECT_EQ(CastScalar(Scalar::Int(1), DataType::Bool(), DataType::Float(32)).f, 1.0);
}

TEST(ScalarOpsTest, ResolvesEveryListedIntrinsicAndRejectsOthers) {
  EXPECT_EQ(ResolveIntrinsic("exp"), Intrinsic::kExp);
  EXPECT_EQ(ResolveIntrinsic("copysign"), Intrinsic::kCopysign);
  try {
    ResolveIntrinsic("softplus");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("softplus"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::ir::interp
