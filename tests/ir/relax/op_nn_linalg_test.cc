// Struct info of matmul and linear (numpy rules, 1-D operands, batch broadcasting) and of the
// nn ops: conv2d and pooling with symbolic spatial dims, normalizations, softmax.
#include <gtest/gtest.h>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

class RelaxNNTest : public ::testing::Test {
 protected:
  PrimVar n = SymbolicDim("n");
  PrimVar m = SymbolicDim("m");
  PrimVar h = SymbolicDim("h");
  PrimVar w = SymbolicDim("w");
  PrimVar b = SymbolicDim("b");
};

TEST_F(RelaxNNTest, MatmulTwoD) {
  EXPECT_EQ(Info(Call("matmul", {Tensor("x", {n, 768}), Tensor("w", {768, 512})})),
            "R.Tensor((n, 512), \"float32\")");
  // Symbolic inner dims that cannot be proven different are accepted.
  EXPECT_EQ(Info(Call("matmul", {Tensor("x", {n, m}), Tensor("w", {b, 4})})),
            "R.Tensor((n, 4), \"float32\")");
}

TEST_F(RelaxNNTest, MatmulBatchedBroadcast) {
  EXPECT_EQ(Info(Call("matmul", {Tensor("q", {2, 1, n, 64}), Tensor("k", {12, 64, n})})),
            "R.Tensor((2, 12, n, n), \"float32\")");
  EXPECT_EQ(Info(Call("matmul", {Tensor("a", {b, n, 64}), Tensor("w", {64, 32})})),
            "R.Tensor((b, n, 32), \"float32\")");
}

TEST_F(RelaxNNTest, MatmulOneDRules) {
  EXPECT_EQ(Info(Call("matmul", {Tensor("v", {768}), Tensor("w", {768, 10})})),
            "R.Tensor((10,), \"float32\")");
  EXPECT_EQ(Info(Call("matmul", {Tensor("x", {b, n, 768}), Tensor("v", {768})})),
            "R.Tensor((b, n), \"float32\")");
  EXPECT_EQ(Info(Call("matmul", {Tensor("u", {5}), Tensor("v", {5})})),
            "R.Tensor((), \"float32\")");
  EXPECT_EQ(Info(Call("matmul", {Tensor("v", {n}), Tensor("w", {4, n, 3})})),
            "R.Tensor((4, 3), \"float32\")");
}

TEST_F(RelaxNNTest, MatmulDtypesAndUnknownShapes) {
  Expr c = Call("matmul", {Tensor("a", {4, 8}, "int8"), Tensor("b", {8, 2}, "int8")},
                Attrs().Set("out_dtype", "int32"));
  EXPECT_EQ(Info(c), "R.Tensor((4, 2), \"int32\")");
  Var unknown("u", TensorStructInfo(DataType::Float(32), 3));
  EXPECT_EQ(Info(Call("matmul", {unknown, Tensor("w", {64, 32})})),
            "R.Tensor(\"float32\", ndim=3)");
}

TEST_F(RelaxNNTest, Linear) {
  Var x = Tensor("x", {n, 768});
  Var weight = Tensor("w", {3072, 768});
  EXPECT_EQ(Info(Call("linear", {x, weight, Tensor("bias", {3072})})),
            "R.Tensor((n, 3072), \"float32\")");
  EXPECT_EQ(Info(Call("linear", {Tensor("x3", {b, n, 768}), weight})),
            "R.Tensor((b, n, 3072), \"float32\")");
}

TEST_F(RelaxNNTest, Conv2dConstant) {
  Expr c = Call("nn.conv2d", {Tensor("x", {1, 3, 224, 224}), Tensor("w", {64, 3, 7, 7})},
                Attrs().Set("strides", {2, 2}).Set("padding", {3, 3, 3, 3}));
  EXPECT_EQ(Info(c), "R.Tensor((1, 64, 112, 112), \"float32\")");
  // Depthwise, and a single padding value for all four sides.
  Expr dw = Call("nn.conv2d", {Tensor("x", {1, 32, 56, 56}), Tensor("w", {32, 1, 3, 3})},
                 Attrs().Set("groups", 32).Set("padding", {1}));
  EXPECT_EQ(Info(dw), "R.Tensor((1, 32, 56, 56), \"float32\")");
  Expr dil = Call("nn.conv2d", {Tensor("x", {1, 8, 32, 32}), Tensor("w", {8, 8, 3, 3})},
                  Attrs().Set("dilation", {2, 2}));
  EXPECT_EQ(Info(dil), "R.Tensor((1, 8, 28, 28), \"float32\")");
}

TEST_F(RelaxNNTest, Conv2dSymbolicSpatialDims) {
  Var x = Tensor("x", {n, 3, h, w});
  Var k = Tensor("k", {16, 3, 3, 3});
  EXPECT_EQ(Info(Call("nn.conv2d", {x, k}, Attrs().Set("padding", {1, 1, 1, 1}))),
            "R.Tensor((n, 16, h, w), \"float32\")");
  EXPECT_EQ(Info(Call("nn.conv2d", {x, k}, Attrs().Set("padding", {1, 1}).Set("strides", {2}))),
            "R.Tensor((n, 16, (h - 1) // 2 + 1, (w - 1) // 2 + 1), \"float32\")");
  EXPECT_EQ(Info(Call("nn.conv2d", {x, k})), "R.Tensor((n, 16, h - 2, w - 2), \"float32\")");
}

TEST_F(RelaxNNTest, Conv2dTransposeAndPad) {
  Expr up = Call("nn.conv2d_transpose", {Tensor("x", {1, 16, h, w}), Tensor("k", {16, 8, 4, 4})},
                 Attrs().Set("strides", {2}).Set("padding", {1}));
  EXPECT_EQ(Info(up), "R.Tensor((1, 8, h * 2, w * 2), \"float32\")");
  EXPECT_EQ(
      Info(Call("nn.pad", {Tensor("x", {n, 3, 4})}, Attrs().Set("pad_width", {0, 0, 1, 1, 2, 0}))),
      "R.Tensor((n, 5, 6), \"float32\")");
}

TEST_F(RelaxNNTest, Pooling) {
  Expr mp = Call("nn.max_pool2d", {Tensor("x", {1, 64, 112, 112})},
                 Attrs().Set("pool_size", {3, 3}).Set("strides", {2, 2}).Set("padding", {1}));
  EXPECT_EQ(Info(mp), "R.Tensor((1, 64, 56, 56), \"float32\")");
  Attrs floor_attrs = Attrs().Set("pool_size", {2}).Set("strides", {2});
  Attrs ceil_attrs = floor_attrs;
  ceil_attrs.Set("ceil_mode", true);
  EXPECT_EQ(Info(Call("nn.max_pool2d", {Tensor("x", {1, 1, 5, 5})}, floor_attrs)),
            "R.Tensor((1, 1, 2, 2), \"float32\")");
  EXPECT_EQ(Info(Call("nn.max_pool2d", {Tensor("x", {1, 1, 5, 5})}, ceil_attrs)),
            "R.Tensor((1, 1, 3, 3), \"float32\")");
  // With ceil_mode a last window that would start in the end padding is dropped, as ONNX and
  // PyTorch define it: 5 + 1 + 1 padded, windows of 2 every 2 start at 0, 2, 4 (6 would
  // start in the padding), so 3, not ceil(5 / 2) + 1 = 4.
  Attrs padded = ceil_attrs;
  padded.Set("padding", {1});
  EXPECT_EQ(Info(Call("nn.avg_pool2d", {Tensor("x", {1, 1, 5, 5})}, padded)),
            "R.Tensor((1, 1, 3, 3), \"float32\")");
  EXPECT_EQ(Info(Call("nn.avg_pool2d", {Tensor("x", {n, 8, h, h})}, floor_attrs)),
            "R.Tensor((n, 8, h // 2, h // 2), \"float32\")");
  EXPECT_EQ(Info(Call("nn.adaptive_avg_pool2d", {Tensor("x", {n, 8, h, w})},
                      Attrs().Set("output_size", {1}))),
            "R.Tensor((n, 8, 1, 1), \"float32\")");
  EXPECT_EQ(Info(Call("nn.adaptive_avg_pool2d", {Tensor("x", {n, 8, h, w})})),
            "R.Tensor((n, 8, h, w), \"float32\")");
  EXPECT_EQ(Info(Call("nn.global_avg_pool2d", {Tensor("x", {n, 2048, 7, 7})})),
            "R.Tensor((n, 2048, 1, 1), \"float32\")");
}

TEST_F(RelaxNNTest, Normalizations) {
  Var x = Tensor("x", {n, 64, h, w});
  Var c = Tensor("c", {64});
  EXPECT_EQ(Info(Call("nn.batch_norm", {x, c, c, c, c},
                      Attrs().Set("epsilon", 1e-3).Set("training", false))),
            "R.Tuple(R.Tensor((n, 64, h, w), \"float32\"), R.Tensor((64,), \"float32\"), "
            "R.Tensor((64,), \"float32\"))");
  Var t = Tensor("t", {b, n, 768});
  Var g = Tensor("g", {768});
  EXPECT_EQ(Info(Call("nn.layer_norm", {t, g, g}, Attrs().Set("axes", {-1}))),
            "R.Tensor((b, n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("nn.rms_norm", {t, g})), "R.Tensor((b, n, 768), \"float32\")");
  Var c32 = Tensor("c32", {32});
  EXPECT_EQ(Info(Call("nn.group_norm", {Tensor("y", {n, 32, h, w}), c32, c32},
                      Attrs().Set("num_groups", 8))),
            "R.Tensor((n, 32, h, w), \"float32\")");
  EXPECT_THROW(
      Call("nn.group_norm", {Tensor("y", {n, 32, h, w}), c32, c32}, Attrs().Set("num_groups", 5)),
      Error);
  EXPECT_EQ(Info(Call("nn.softmax", {t}, Attrs().Set("axis", 1))),
            "R.Tensor((b, n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("nn.log_softmax", {t})), "R.Tensor((b, n, 768), \"float32\")");
  EXPECT_EQ(Info(Call("nn.dropout", {t}, Attrs().Set("rate", 0.1))),
            "R.Tuple(R.Tensor((b, n, 768), \"float32\"), R.Tensor((b, n, 768), \"float32\"))");
}

}  // namespace
}  // namespace kiln::ir::relax
