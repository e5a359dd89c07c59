// Structural equality and hash: equal up to renaming, different when structure differs.
#include <gtest/gtest.h>

#include "ir/structural.h"

namespace kiln::ir {
namespace {

// out[i] = a[i] * scale over a buffer of `n` elements, with fresh variables each call.
PrimFunc Scale(const std::string& prefix, Expr n, double scale, ForKind kind = ForKind::kSerial) {
  Var pa(prefix + "a", DataType::Handle());
  Var pb(prefix + "b", DataType::Handle());
  Buffer a = DeclBuffer(prefix + "A", DataType::Float(32), {n});
  Buffer b = DeclBuffer(prefix + "B", DataType::Float(32), {n});
  Var i(prefix + "i");
  Stmt body = For(i, 0, n, kind,
                  BufferStore(b, BufferLoad(a, {i}) * FloatImm(DataType::Float(32), scale), {i}));
  return MakePrimFunc(prefix + "scale", {pa, pb}, {{pa, a}, {pb, b}}, body);
}

TEST(StructuralTest, EqualUpToNames) {
  PrimFunc f = Scale("x_", 16, 2.0);
  PrimFunc g = Scale("y_", 16, 2.0);
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_EQ(StructuralHash(f), StructuralHash(g));
}

TEST(StructuralTest, DifferentStructureDiffers) {
  PrimFunc f = Scale("", 16, 2.0);
  for (const PrimFunc& g : {Scale("", 17, 2.0), Scale("", 16, 3.0),
                            Scale("", 16, 2.0, ForKind::kParallel)}) {
    EXPECT_FALSE(StructuralEqual(f, g));
    EXPECT_NE(StructuralHash(f), StructuralHash(g));
  }
}

TEST(StructuralTest, SymbolicShapesMatchBySharing) {
  // Two parameters sharing one shape var differ from two parameters with distinct vars.
  Var n("n"), m("m");
  auto make = [](Expr d0, Expr d1) {
    Var pa("a", DataType::Handle()), pb("b", DataType::Handle());
    Buffer a = DeclBuffer("A", DataType::Float(32), {d0});
    Buffer b = DeclBuffer("B", DataType::Float(32), {d1});
    Var i("i");
    Stmt body = For(i, 0, d0, ForKind::kSerial, BufferStore(b, BufferLoad(a, {i}), {i}));
    return MakePrimFunc("copy", {pa, pb}, {{pa, a}, {pb, b}}, body);
  };
  PrimFunc shared = make(n, n);
  PrimFunc distinct = make(n, m);
  EXPECT_FALSE(StructuralEqual(shared, distinct));
  Var k("k");
  EXPECT_TRUE(StructuralEqual(shared, make(k, k)));
}

TEST(StructuralTest, ExpressionAlphaEquivalence) {
  Var x("x"), y("y"), z("z");
  EXPECT_TRUE(StructuralEqual(x + y, y + x));  // free vars map on first appearance
  EXPECT_FALSE(StructuralEqual(x + x, x + y));
  EXPECT_FALSE(StructuralEqual(x + y, x - y));
  EXPECT_TRUE(StructuralEqual(Let(z, x + 1, z * 2), Let(y, x + 1, y * 2)));
}

}  // namespace
}  // namespace kiln::ir
