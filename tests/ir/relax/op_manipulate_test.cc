// Struct info of shape manipulation, reductions, creation and shape-value ops, on constant and
// symbolic shapes.
#include <gtest/gtest.h>

#include <limits>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

class RelaxManipulateTest : public ::testing::Test {
 protected:
  PrimVar n = SymbolicDim("n");
  PrimVar m = SymbolicDim("m");
  PrimVar b = SymbolicDim("b");
  PrimVar seq = SymbolicDim("seq");
  static constexpr int64_t kEnd = std::numeric_limits<int32_t>::max();
};

TEST_F(RelaxManipulateTest, ReshapeInfersMinusOne) {
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {2, 3, 4}), ShapeExpr({4, -1})})),
            "R.Tensor((4, 6), \"float32\")");
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {b, n, 12, 64}), ShapeExpr({b, n, -1})})),
            "R.Tensor((b, n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {n, 12, 64}), ShapeExpr({-1})})),
            "R.Tensor((n * 768,), \"float32\")");
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {n, 6}), ShapeExpr({n, 2, -1})})),
            "R.Tensor((n, 2, 3), \"float32\")");
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {n, 7}), ShapeExpr({-1, 2})})),
            "R.Tensor((n * 7 // 2, 2), \"float32\")");
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {b, n, 768}), ShapeExpr({b, n, 12, 64})})),
            "R.Tensor((b, n, 12, 64), \"float32\")");
  Var target("s", ShapeStructInfo(3));
  EXPECT_EQ(Info(Call("reshape", {Tensor("x", {n, 4}), target})), "R.Tensor(\"float32\", ndim=3)");
}

TEST_F(RelaxManipulateTest, PermuteFlattenSqueezeExpand) {
  Var x = Tensor("x", {b, n, 12, 64});
  EXPECT_EQ(Info(Call("permute_dims", {x}, Attrs().Set("axes", {0, 2, 1, 3}))),
            "R.Tensor((b, 12, n, 64), \"float32\")");
  EXPECT_EQ(Info(Call("permute_dims", {x})), "R.Tensor((64, 12, n, b), \"float32\")");
  Var y = Tensor("y", {n, 3, 4});
  EXPECT_EQ(Info(Call("flatten", {y})), "R.Tensor((n * 12,), \"float32\")");
  EXPECT_EQ(Info(Call("flatten", {y}, Attrs().Set("start_axis", 1))),
            "R.Tensor((n, 12), \"float32\")");
  Var z = Tensor("z", {1, n, 1, 4});
  EXPECT_EQ(Info(Call("squeeze", {z})), "R.Tensor((n, 4), \"float32\")");
  EXPECT_EQ(Info(Call("squeeze", {z}, Attrs().Set("axis", {0}))),
            "R.Tensor((n, 1, 4), \"float32\")");
  EXPECT_EQ(Info(Call("expand_dims", {Tensor("v", {n, 4})}, Attrs().Set("axis", {0, -1}))),
            "R.Tensor((1, n, 4, 1), \"float32\")");
}

TEST_F(RelaxManipulateTest, ConcatSumsTheAxis) {
  Expr c = Call("concat", {Tuple({Tensor("a", {n, 4}), Tensor("b", {m, 4})})});
  EXPECT_EQ(Info(c), "R.Tensor((m + n, 4), \"float32\")");
  Expr d = Call("concat", {Tuple({Tensor("a", {2, n}), Tensor("b", {2, n * 2})})},
                Attrs().Set("axis", -1));
  EXPECT_EQ(Info(d), "R.Tensor((2, n * 3), \"float32\")");
}

TEST_F(RelaxManipulateTest, SplitIntoTuple) {
  Var x = Tensor("x", {n, 12});
  EXPECT_EQ(Info(Call("split", {x}, Attrs().Set("indices_or_sections", 3).Set("axis", 1))),
            "R.Tuple(R.Tensor((n, 4), \"float32\"), R.Tensor((n, 4), \"float32\"), "
            "R.Tensor((n, 4), \"float32\"))");
  EXPECT_EQ(Info(Call("split", {x}, Attrs().Set("indices_or_sections", {2, 5}).Set("axis", 1))),
            "R.Tuple(R.Tensor((n, 2), \"float32\"), R.Tensor((n, 3), \"float32\"), "
            "R.Tensor((n, 7), \"float32\"))");
  EXPECT_EQ(Info(Call("split", {Tensor("q", {seq * 2, 4})}, Attrs().Set("indices_or_sections", 2))),
            "R.Tuple(R.Tensor((seq, 4), \"float32\"), R.Tensor((seq, 4), \"float32\"))");
  EXPECT_EQ(Info(Call("split", {Tensor("q", {n, 4})}, Attrs().Set("indices_or_sections", 2))),
            "R.Tuple(R.Tensor(((n + 1) // 2, 4), \"float32\"), "
            "R.Tensor((n - (n + 1) // 2, 4), \"float32\"))");
  Expr qkv = Call("split", {Tensor("qkv", {b, seq, 2304})},
                  Attrs().Set("indices_or_sections", 3).Set("axis", 2));
  EXPECT_EQ(Info(TupleGetItem(qkv, 2)), "R.Tensor((b, seq, 768), \"float32\")");
}

TEST_F(RelaxManipulateTest, StridedSlice) {
  Var x = Tensor("x", {n, 10});
  auto slice = [&](const Expr& t, std::vector<int64_t> axes, std::vector<int64_t> begin,
                   std::vector<int64_t> end, std::vector<int64_t> strides) {
    return Info(Call("strided_slice", {t},
                     Attrs()
                         .Set("axes", std::move(axes))
                         .Set("begin", std::move(begin))
                         .Set("end", std::move(end))
                         .Set("strides", std::move(strides))));
  };
  EXPECT_EQ(slice(x, {1}, {2}, {8}, {1}), "R.Tensor((n, 6), \"float32\")");
  EXPECT_EQ(slice(x, {1}, {2}, {8}, {2}), "R.Tensor((n, 3), \"float32\")");
  EXPECT_EQ(slice(x, {1}, {-3}, {kEnd}, {1}), "R.Tensor((n, 3), \"float32\")");
  EXPECT_EQ(slice(x, {1}, {0}, {100}, {1}), "R.Tensor((n, 10), \"float32\")");
  EXPECT_EQ(slice(x, {1}, {9}, {-kEnd - 1}, {-1}), "R.Tensor((n, 10), \"float32\")");
  EXPECT_EQ(slice(x, {0}, {1}, {kEnd}, {1}), "R.Tensor((n - 1, 10), \"float32\")");
  EXPECT_EQ(slice(x, {0}, {0}, {-1}, {1}), "R.Tensor((n - 1, 10), \"float32\")");
}

TEST_F(RelaxManipulateTest, StridedSliceWithBoundsAsArguments) {
  // Bounds known only as dims, already inside the axis: the length is end - begin over the
  // stride, clamped at 0 unless the bounds are provably in order.
  Var x = Tensor("x", {n, 10});
  auto slice = [&](std::vector<PrimExpr> begin, std::vector<PrimExpr> end,
                   std::vector<int64_t> axes, std::vector<int64_t> strides) {
    return Info(Call("strided_slice", {x, ShapeExpr(std::move(begin)), ShapeExpr(std::move(end))},
                     Attrs().Set("axes", std::move(axes)).Set("strides", std::move(strides))));
  };
  EXPECT_EQ(slice({0}, {n}, {0}, {1}), "R.Tensor((n, 10), \"float32\")");
  EXPECT_EQ(slice({Min(PrimExpr(2), n)}, {n}, {0}, {1}),
            "R.Tensor((n - T.min(2, n), 10), \"float32\")");
  EXPECT_EQ(slice({0}, {Min(seq, PrimExpr(8))}, {1}, {3}),
            "R.Tensor((n, (T.min(seq, 8) + 2) // 3), \"float32\")");
  EXPECT_EQ(slice({n - 1}, {PrimExpr(-1)}, {0}, {-1}), "R.Tensor((n, 10), \"float32\")");
  EXPECT_EQ(slice({PrimExpr(1)}, {m}, {0}, {1}), "R.Tensor((T.max(m - 1, 0), 10), \"float32\")");
  // Not both forms, and begin with end.
  EXPECT_THROW(Call("strided_slice", {x, ShapeExpr({0}), ShapeExpr({n})},
                    Attrs().Set("axes", {0}).Set("begin", {0}).Set("end", {1})),
               Error);
  EXPECT_THROW(Call("strided_slice", {x, ShapeExpr({0})}, Attrs().Set("axes", {0})), Error);
  EXPECT_THROW(Call("strided_slice", {x}, Attrs().Set("axes", {0})), Error);
}

TEST_F(RelaxManipulateTest, GatherND) {
  Var data = Tensor("data", {b, 5, 6, 7});
  EXPECT_EQ(Info(Call("gather_nd", {data, Tensor("i", {b, 3, 2}, "int64")},
                      Attrs().Set("batch_dims", 1))),
            "R.Tensor((b, 3, 7), \"float32\")");
  EXPECT_EQ(Info(Call("gather_nd", {data, Tensor("i", {4, 4}, "int64")})),
            "R.Tensor((4,), \"float32\")");
  EXPECT_THROW(Call("gather_nd", {data, Tensor("i", {4, 5}, "int64")}), Error);
  EXPECT_THROW(Call("gather_nd", {data, Tensor("i", {4, seq}, "int64")}), Error);
  EXPECT_THROW(Call("gather_nd", {data, Tensor("i", {4, 1}, "float32")}), Error);
}

TEST_F(RelaxManipulateTest, TakeGatherBroadcastTile) {
  Var table = Tensor("table", {50257, 768});
  Var ids = Tensor("ids", {b, seq}, "int64");
  EXPECT_EQ(Info(Call("take", {table, ids})), "R.Tensor((b, seq, 768), \"float32\")");
  EXPECT_EQ(
      Info(Call("take", {Tensor("x", {n, 5}), Tensor("i", {3}, "int32")}, Attrs().Set("axis", 1))),
      "R.Tensor((n, 3), \"float32\")");
  EXPECT_EQ(Info(Call("gather_elements", {Tensor("x", {n, 4}), Tensor("i", {n, 2}, "int64")},
                      Attrs().Set("axis", 1))),
            "R.Tensor((n, 2), \"float32\")");
  EXPECT_EQ(Info(Call("broadcast_to", {Tensor("x", {1, 768}), ShapeExpr({n, 768})})),
            "R.Tensor((n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("tile", {Tensor("x", {n, 3})}, Attrs().Set("repeats", {2, 1}))),
            "R.Tensor((n * 2, 3), \"float32\")");
}

TEST_F(RelaxManipulateTest, Reductions) {
  Var x = Tensor("x", {b, n, 768});
  EXPECT_EQ(Info(Call("sum", {x}, Attrs().Set("axis", {-1}))), "R.Tensor((b, n), \"float32\")");
  EXPECT_EQ(Info(Call("sum", {x}, Attrs().Set("axis", {-1}).Set("keepdims", true))),
            "R.Tensor((b, n, 1), \"float32\")");
  for (const char* op : {"sum", "max", "min", "prod", "mean", "variance", "std"}) {
    EXPECT_EQ(Info(Call(op, {x})), "R.Tensor((), \"float32\")") << op;
    EXPECT_EQ(Info(Call(op, {x}, Attrs().Set("axis", {0, 2}))), "R.Tensor((n,), \"float32\")")
        << op;
  }
  EXPECT_EQ(Info(Call("argmin", {x}, Attrs().Set("axis", -1).Set("keepdims", true))),
            "R.Tensor((b, n, 1), \"int64\")");
  EXPECT_EQ(Info(Call("argmax", {x})), "R.Tensor((), \"int64\")");
  EXPECT_EQ(Info(Call("cumprod", {x}, Attrs().Set("axis", 0).Set("dtype", "float64"))),
            "R.Tensor((b, n, 768), \"float64\")");
  EXPECT_EQ(Info(Call("mean", {x}, Attrs().Set("axis", {1, 2}).Set("keepdims", true))),
            "R.Tensor((b, 1, 1), \"float32\")");
  EXPECT_EQ(Info(Call("prod", {x}, Attrs().Set("axis", 0))), "R.Tensor((n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("argmax", {x}, Attrs().Set("axis", 1))), "R.Tensor((b, 768), \"int64\")");
  EXPECT_EQ(Info(Call("cumsum", {x}, Attrs().Set("axis", 1))),
            "R.Tensor((b, n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("cumsum", {x})), "R.Tensor((b * n * 768,), \"float32\")");
  EXPECT_EQ(Info(Call("variance", {x}, Attrs().Set("axis", {2}))), "R.Tensor((b, n), \"float32\")");
}

TEST_F(RelaxManipulateTest, Creation) {
  EXPECT_EQ(Info(Call("zeros", {ShapeExpr({n, 4})})), "R.Tensor((n, 4), \"float32\")");
  EXPECT_EQ(Info(Call("full", {ShapeExpr({2, n})},
                      Attrs().Set("fill_value", 1.5).Set("dtype", "float16"))),
            "R.Tensor((2, n), \"float16\")");
  Var x = Tensor("x", {n, 8});
  EXPECT_EQ(Info(Call("ones_like", {x}, Attrs().Set("dtype", "int32"))),
            "R.Tensor((n, 8), \"int32\")");
  EXPECT_EQ(Info(Call("zeros_like", {x})), "R.Tensor((n, 8), \"float32\")");
  EXPECT_EQ(Info(Call("full_like", {x}, Attrs().Set("fill_value", 2))),
            "R.Tensor((n, 8), \"float32\")");
  EXPECT_EQ(Info(Call("ones", {ShapeExpr({n})}, Attrs().Set("dtype", "int8"))),
            "R.Tensor((n,), \"int8\")");
  EXPECT_EQ(Info(Call("triu", {x}, Attrs().Set("k", 1))), "R.Tensor((n, 8), \"float32\")");
  EXPECT_EQ(Info(Call("arange", {}, Attrs().Set("end", 10))), "R.Tensor((10,), \"int64\")");
  EXPECT_EQ(Info(Call("arange", {}, Attrs().Set("start", 0).Set("end", 5).Set("step", 2))),
            "R.Tensor((3,), \"int64\")");
  EXPECT_EQ(Info(Call("arange", {PrimValue(seq)})), "R.Tensor((seq,), \"int64\")");
  EXPECT_EQ(
      Info(Call("arange", {PrimValue(PrimExpr(2)), PrimValue(seq * 2), PrimValue(PrimExpr(2))})),
      "R.Tensor((T.max(seq - 1, 0),), \"int64\")");  // no elements when seq is 0
  EXPECT_EQ(Info(Call("arange", {PrimValue(seq), PrimValue(PrimExpr(0)), PrimValue(PrimExpr(-1))})),
            "R.Tensor((seq,), \"int64\")");
  EXPECT_EQ(Info(Call("tril", {Tensor("mask", {seq, seq})})), "R.Tensor((seq, seq), \"float32\")");
}

TEST_F(RelaxManipulateTest, ShapeArithmeticFeedsReshape) {
  // What an exported model does: x.reshape(x.shape[:2] + (12, 64)).
  Var x = Tensor("x", {b, seq, 768});
  Expr shape = Call("shape_of", {x});
  EXPECT_EQ(Info(shape), "R.Shape([b, seq, 768])");
  Expr head = Call("shape_slice", {shape}, Attrs().Set("begin", 0).Set("end", 2));
  EXPECT_EQ(Info(head), "R.Shape([b, seq])");
  Expr target = Call("shape_concat", {head, PrimValue(PrimExpr(12)), PrimValue(PrimExpr(64))});
  EXPECT_EQ(Info(target), "R.Shape([b, seq, 12, 64])");
  EXPECT_EQ(Info(Call("reshape", {x, target})), "R.Tensor((b, seq, 12, 64), \"float32\")");
  EXPECT_EQ(Info(Call("shape_to_tensor", {shape})), "R.Tensor((3,), \"int64\")");
  EXPECT_EQ(Info(Call("tensor_to_shape", {Tensor("t", {3}, "int64")})), "R.Shape(ndim=3)");
  EXPECT_EQ(Info(Call("shape_get", {shape}, Attrs().Set("index", -2))), "R.Prim(value=seq)");
}

}  // namespace
}  // namespace kiln::ir::relax
