// Structural equality and hashing of Relax functions: blind to variable and function names,
// sensitive to ops, attributes, shapes and constant bytes.
#include "ir/relax/structural.h"

#include <gtest/gtest.h>

#include "ir/relax/block_builder.h"
#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Tensor;

struct Options {
  std::string prefix = "";
  int64_t hidden = 128;
  int64_t softmax_axis = -1;
  double bias_value = 0.5;
};

// Linear -> softmax over a symbolic batch, with every name prefixed.
Function Build(const Options& o) {
  PrimVar n = SymbolicDim(o.prefix + "n");
  Var x = Tensor(o.prefix + "x", {n, 64});
  Var w = Tensor(o.prefix + "w", {DimConst(o.hidden), 64});
  HostTensor bias(DataType::Float(32), {o.hidden});
  for (int64_t i = 0; i < o.hidden; ++i) bias.SetDouble(i, o.bias_value);
  BlockBuilder bb;
  bb.BeginFunction(o.prefix + "f", {x, w});
  bb.BeginDataflow();
  Var h = bb.Emit(Call("linear", {x, w, Constant(bias)}), o.prefix + "h");
  Var y = bb.EmitOutput(Call("nn.softmax", {h}, Attrs().Set("axis", o.softmax_axis)));
  bb.EndDataflow();
  GlobalVar g = bb.EndFunction(y);
  return *bb.module().LookupFunction(g.name());
}

TEST(RelaxStructuralTest, NamesDoNotMatter) {
  Function a = Build({});
  Function b = Build({.prefix = "other_"});
  EXPECT_TRUE(StructuralEqual(a, b));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_EQ(CanonicalForm(a), CanonicalForm(b));
}

TEST(RelaxStructuralTest, OpsShapesAttributesAndConstantsDo) {
  Function base = Build({});
  for (const Options& o :
       {Options{.hidden = 256}, Options{.softmax_axis = 0}, Options{.bias_value = 0.25}}) {
    Function other = Build(o);
    EXPECT_FALSE(StructuralEqual(base, other));
    EXPECT_NE(StructuralHash(base), StructuralHash(other));
  }
}

TEST(RelaxStructuralTest, VariablesMustCorrespondConsistently) {
  // f(x, y) = x + x versus g(x, y) = x + y: same ops, different wiring.
  Var x = Tensor("x", {4}), y = Tensor("y", {4});
  Function same = MakeFunction({x, y}, Call("add", {x, x}));
  Function mixed = MakeFunction({x, y}, Call("add", {x, y}));
  EXPECT_FALSE(StructuralEqual(same, mixed));
  // Shape variables too: (n, n) against (n, m).
  PrimVar n = SymbolicDim("n"), m = SymbolicDim("m");
  Var square = Tensor("a", {n, n}), rect = Tensor("a", {n, m});
  EXPECT_FALSE(StructuralEqual(MakeFunction({square}, square), MakeFunction({rect}, rect)));
}

}  // namespace
}  // namespace kiln::ir::relax
