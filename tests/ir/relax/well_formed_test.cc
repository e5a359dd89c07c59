// The A-normal form part of the well-formedness check: a call, tuple or projection nested in an
// argument, a tuple field, a projection or the returned value is rejected with a message naming
// the function, the binding and the place; the same values built by the block builder pass.
#include "ir/relax/well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/relax/block_builder.h"
#include "ir/relax/op/registry.h"
#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Tensor;

// main(x) { with dataflow: y = value; R.output(y) } return y
IRModule BindAndReturn(const Var& x, const Expr& value) {
  Var y("y", value.struct_info());
  IRModule m;
  m.Add("main", MakeFunction({x}, SeqExpr({BindingBlock{{VarBinding(y, value)}, true}}, y)));
  return m;
}

std::string Rejection(const IRModule& m) {
  try {
    CheckWellFormed(m);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    return e.what();
  }
  return "accepted";
}

TEST(RelaxWellFormedTest, NestedValuesAreRejected) {
  Var x = Tensor("x", {4, 6});
  Expr silu = Call("nn.silu", {x});
  EXPECT_THAT(Rejection(BindAndReturn(x, Call("multiply", {silu, x}))),
              ::testing::StartsWith("function main, binding of y: argument 0 of R.multiply is a "
                                    "call of R.nn.silu, not a leaf; in A-normal form"));
  EXPECT_THAT(Rejection(BindAndReturn(x, Tuple({x, silu}))),
              ::testing::HasSubstr("binding of y: field 1 of a tuple is a call of R.nn.silu"));
  EXPECT_THAT(Rejection(BindAndReturn(x, Call("concat", {Tuple({x, silu})}))),
              ::testing::HasSubstr("argument 0 of R.concat is a tuple that holds a non-leaf"));
  Expr split = Call("split", {x}, Attrs().Set("indices_or_sections", 2));
  EXPECT_THAT(Rejection(BindAndReturn(x, TupleGetItem(split, 0))),
              ::testing::HasSubstr("the tuple of a projection (x[i]) is a call of R.split"));
  IRModule returns_call;
  returns_call.Add("main", MakeFunction({x}, SeqExpr({}, silu)));
  EXPECT_THAT(Rejection(returns_call),
              ::testing::HasSubstr("function main, the returned value: the returned value is a "
                                   "call of R.nn.silu, not a leaf"));
  IRModule body_call;
  body_call.Add("main", MakeFunction({x}, silu));
  EXPECT_THAT(Rejection(body_call), ::testing::HasSubstr("the returned value is a call"));
}

TEST(RelaxWellFormedTest, LeavesAndValuesOfLeavesAreAccepted) {
  Var x = Tensor("x", {4, 6});
  EXPECT_EQ(Rejection(BindAndReturn(
                x, Call("add", {x, Constant(HostTensor::Random(DataType::Float(32), {6}, 1))}))),
            "accepted");
  EXPECT_EQ(Rejection(BindAndReturn(x, Tuple({x, Tuple({x, ShapeExpr({DimConst(2)})})}))),
            "accepted");
  EXPECT_EQ(Rejection(BindAndReturn(x, Call("reshape", {x, ShapeExpr({DimConst(24)})}))),
            "accepted");
  // The block builder normalizes the rejected forms above into accepted ones.
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Expr split = Call("split", {x}, Attrs().Set("indices_or_sections", 2));
  Var y = bb.EmitOutput(Call("multiply", {Call("nn.silu", {x}), x}));
  Var half = bb.EmitOutput(TupleGetItem(split, 0));
  bb.EndDataflow();
  bb.EndFunction(Tuple({y, half, Call("exp", {y})}));
  EXPECT_EQ(Rejection(bb.Finalize()), "accepted");
}

}  // namespace
}  // namespace kiln::ir::relax
