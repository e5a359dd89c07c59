// Layout zoo functions: data movement with index arithmetic (transpose, flatten and reshape
// by floordiv/floormod, concat, strided slice, pad).
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

PrimFunc Transpose() {  // (4, 6, 8) -> (8, 4, 6): out[i, j, k] = in[j, k, i]
  Tensor a = Placeholder("A", {4, 6, 8}, kF32);
  Tensor b = Compute({8, 4, 6}, [&](Var i, Var j, Var k) { return a(j, k, i); }, "T_transpose",
                     {"ax0", "ax1", "ax2"});
  return CreatePrimFunc({a, b}, "transpose");
}

PrimFunc Flatten() {  // (4, 6, 8) -> (4, 48)
  Tensor a = Placeholder("A", {4, 6, 8}, kF32);
  Tensor b = Compute({4, 48}, [&](Var i, Var j) { return a(i, FloorDiv(j, 8), FloorMod(j, 8)); },
                     "T_reshape", {"ax0", "ax1"});
  return CreatePrimFunc({a, b}, "flatten");
}

PrimFunc Reshape() {  // (4, 6, 8) -> (12, 16)
  Tensor a = Placeholder("A", {4, 6, 8}, kF32);
  Tensor b =
      Compute({12, 16},
              [&](Var i, Var j) {
                Expr flat = i * 16 + j;
                return a(FloorDiv(flat, 48), FloorMod(FloorDiv(flat, 8), 6), FloorMod(flat, 8));
              },
              "T_reshape", {"ax0", "ax1"});
  return CreatePrimFunc({a, b}, "reshape");
}

PrimFunc Concat() {  // (4, 6) ++ (4, 10) along axis 1
  Tensor a = Placeholder("A", {4, 6}, kF32);
  Tensor b = Placeholder("B", {4, 10}, kF32);
  // Both sides of a Select are evaluated, so each load is clamped into its tensor.
  Tensor c = Compute(
      {4, 16},
      [&](Var i, Var j) { return Select(j < 6, a(i, ir::Min(j, 5)), b(i, ir::Max(j - 6, 0))); },
      "T_concat", {"ax0", "ax1"});
  return CreatePrimFunc({a, b, c}, "concat");
}

PrimFunc StridedSlice() {  // A[2:14:2, 1:20:4] of (16, 20) -> (6, 5)
  Tensor a = Placeholder("A", {16, 20}, kF32);
  Tensor b = Compute({6, 5}, [&](Var i, Var j) { return a(i * 2 + 2, j * 4 + 1); },
                     "T_strided_slice", {"ax0", "ax1"});
  return CreatePrimFunc({a, b}, "strided_slice");
}

PrimFunc Pad() {  // (1, 3, 6, 6) -> (1, 3, 10, 10), two zeros on each side of H and W
  Tensor a = Placeholder("A", {1, 3, 6, 6}, kF32);
  Tensor b = Compute({1, 3, 10, 10},
                     [&](Var n, Var c, Var y, Var x) {
                       return PaddedLoad(a, {n, c, y - 2, x - 2}, Const(kF32, 0));
                     },
                     "T_pad", {"i0", "i1", "i2", "i3"});
  return CreatePrimFunc({a, b}, "pad");
}

}  // namespace

void AddLayoutEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(MakeEntry("transpose", Transpose, RefTranspose, {1}));
  entries.push_back(MakeEntry("flatten", Flatten, RefFlatten, {1}));
  entries.push_back(MakeEntry("reshape", Reshape, RefReshape, {1}));
  entries.push_back(MakeEntry("concat", Concat, RefConcat, {2}));
  entries.push_back(MakeEntry("strided_slice", StridedSlice, RefStridedSlice, {1}));
  entries.push_back(MakeEntry("pad", Pad, RefPad, {1}));
}

}  // namespace kiln::ir::zoo
