// Tests of SignatureOf: slot order and kinds, shape variables, and what cannot be passed.
#include "codegen/kernel_abi.h"

#include <gtest/gtest.h>

#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;

TEST(KernelAbiTest, ParamsThenShapeVariablesInOrderOfFirstAppearance) {
  Var n("n"), m("m", DataType::Int(64));
  Buffer a = DeclBuffer("A", DataType::Float(16), {n, 4});
  Buffer b = DeclBuffer("B", DataType::Int(8), {m, n});
  Var alpha("alpha", DataType::Float(32)), k("k", DataType::Int(32));
  PrimFunc f = testing::MakeFunc("f", {a, b}, Evaluate(0), {alpha, k});
  KernelSignature sig = SignatureOf(f, "kern");
  EXPECT_EQ(sig.symbol, "kern");
  ASSERT_EQ(sig.slots.size(), 6u);
  EXPECT_EQ(sig.slots[0].kind, SlotKind::kBufferData);
  EXPECT_EQ(sig.slots[0].dtype, DataType::Float(16));
  EXPECT_EQ(sig.slots[1].kind, SlotKind::kBufferData);
  EXPECT_EQ(sig.slots[1].param_index, 1);
  EXPECT_EQ(sig.slots[2].kind, SlotKind::kScalarFloat);
  EXPECT_EQ(sig.slots[2].name, "alpha");
  EXPECT_EQ(sig.slots[3].kind, SlotKind::kScalarInt);
  EXPECT_EQ(sig.slots[4].kind, SlotKind::kShapeVar);
  EXPECT_EQ(sig.slots[4].name, "n");
  EXPECT_EQ(sig.slots[4].param_index, 0);
  EXPECT_EQ(sig.slots[4].dim, 0);
  EXPECT_EQ(sig.slots[5].name, "m");
  EXPECT_EQ(sig.slots[5].dtype, DataType::Int(64));
  EXPECT_EQ(sig.slots[5].param_index, 1);
  EXPECT_EQ(sig.slots[5].dim, 0);
}

TEST(KernelAbiTest, ScalarParamUsedAsShapeNeedsNoSlot) {
  Var n("n");
  Buffer a = DeclBuffer("A", DataType::Float(32), {n});
  KernelSignature sig = SignatureOf(testing::MakeFunc("f", {a}, Evaluate(0), {n}), "f");
  ASSERT_EQ(sig.slots.size(), 2u);
  EXPECT_EQ(sig.slots[1].kind, SlotKind::kScalarInt);
}

TEST(KernelAbiTest, VariableOnlyInsideAShapeExpressionIsRejected) {
  Var n("n");
  Buffer a = DeclBuffer("A", DataType::Float(32), {n * 2});
  try {
    SignatureOf(testing::MakeFunc("f", {a}, Evaluate(0)), "f");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("variable n"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::codegen
