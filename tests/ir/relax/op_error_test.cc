// Shape and dtype mismatches are rejected where the graph is built, with a message that names
// the op and the dims at fault.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Tensor;

struct ErrorCase {
  std::string name;
  std::function<void()> build;
  std::string message;  // expected substring, starting with the op's name
  ErrorKind kind = ErrorKind::kType;
};

class RelaxOpErrorTest : public ::testing::Test {
 protected:
  PrimVar n = SymbolicDim("n");

  void Expect(const ErrorCase& c) {
    SCOPED_TRACE(c.name);
    try {
      c.build();
      ADD_FAILURE() << "no error; expected: " << c.message;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(c.message));
      EXPECT_EQ(e.kind(), c.kind) << e.what();
    }
  }
};

TEST_F(RelaxOpErrorTest, MismatchesNameTheOpAndDims) {
  std::vector<ErrorCase> cases = {
      {"broadcast",
       [&] {
         Call("add", {Tensor("a", {n, 768}), Tensor("b", {n, 512})});
       },
       "add: cannot broadcast dims (n, 768) and (n, 512): dim 1 is 768 vs 512"},
      {"broadcast symbolic",
       [&] {
         Call("multiply", {Tensor("a", {n, 4}), Tensor("b", {n + 1, 4})});
       },
       "multiply: cannot broadcast dims (n, 4) and (n + 1, 4): dim 0 is n vs n + 1, which differ"},
      {"dtype",
       [&] {
         Call("add", {Tensor("a", {4}), Tensor("b", {4}, "float16")});
       },
       "add: dtypes differ: float32 vs float16"},
      {"matmul inner",
       [&] {
         Call("matmul", {Tensor("a", {n, 768}), Tensor("b", {512, 10})});
       },
       "matmul: inner dims differ: 768 vs 512"},
      {"matmul scalar",
       [&] {
         Call("matmul", {Tensor("a", {}), Tensor("b", {4, 4})});
       },
       "matmul: argument 0 must have at least 1 dimension, got a 0-D tensor"},
      {"matmul batch",
       [&] {
         Call("matmul", {Tensor("a", {2, 3, 4}), Tensor("b", {5, 4, 6})});
       },
       "matmul: cannot broadcast dims (2,) and (5,): dim 0 is 2 vs 5"},
      {"reshape -1",
       [&] {
         Call("reshape", {Tensor("x", {2, 3, 4}), ShapeExpr({5, -1})});
       },
       "reshape: 24 elements cannot become (5, -1)"},
      {"reshape count",
       [&] {
         Call("reshape", {Tensor("x", {2, 3, 4}), ShapeExpr({5, 4})});
       },
       "reshape: 24 elements cannot become (5, 4)"},
      {"reshape two -1",
       [&] {
         Call("reshape", {Tensor("x", {6}), ShapeExpr({-1, -1})});
       },
       "reshape: more than one -1 in (-1, -1)"},
      {"conv2d channels",
       [&] {
         Call("nn.conv2d", {Tensor("x", {1, 3, 32, 32}), Tensor("w", {8, 4, 3, 3})});
       },
       "nn.conv2d: input channels 3 differ from weight in-channels 4 * groups 1"},
      {"conv2d kernel",
       [&] {
         Call("nn.conv2d", {Tensor("x", {1, 3, 2, 2}), Tensor("w", {8, 3, 5, 5})});
       },
       "nn.conv2d: input height 2 with padding 0 is smaller than the kernel 5"},
      {"conv2d rank",
       [&] {
         Call("nn.conv2d", {Tensor("x", {3, 32, 32}), Tensor("w", {8, 3, 3, 3})});
       },
       "nn.conv2d: argument 0 must be 4-D (NCHW), got 3-D"},
      {"conv2d padding",
       [&] {
         Call("nn.conv2d", {Tensor("x", {1, 3, 8, 8}), Tensor("w", {8, 3, 3, 3})},
              Attrs().Set("padding", {1, 1, 1}));
       },
       "nn.conv2d: attribute 'padding' needs 1, 2 or 4 values, got (1, 1, 1)"},
      {"sum axis",
       [&] {
         Call("sum", {Tensor("x", {n, 4})}, Attrs().Set("axis", {3}));
       },
       "sum: axis 3 is out of range for a 2-D tensor"},
      {"repeated axis",
       [&] {
         Call("mean", {Tensor("x", {n, 4})}, Attrs().Set("axis", {1, -1}));
       },
       "mean: axis -1 is repeated in (1, -1)"},
      {"concat",
       [&] {
         Call("concat", {Tuple({Tensor("a", {n, 4}), Tensor("b", {n, 5})})});
       },
       "concat: dim 1 of input 1 is 5, input 0 has 4"},
      {"split", [&] { Call("split", {Tensor("x", {10})}, Attrs().Set("indices_or_sections", 3)); },
       "split: dim 10 is not divisible into 3 sections"},
      {"squeeze",
       [&] {
         Call("squeeze", {Tensor("x", {n, 768})}, Attrs().Set("axis", {1}));
       },
       "squeeze: dim 1 is 768, not 1"},
      {"permute",
       [&] {
         Call("permute_dims", {Tensor("x", {2, 3, 4})}, Attrs().Set("axes", {0, 1}));
       },
       "permute_dims: axes (0, 1) do not permute a 3-D tensor"},
      {"layer_norm",
       [&] {
         Call("nn.layer_norm", {Tensor("x", {n, 768}), Tensor("g", {512}), Tensor("b", {768})},
              Attrs().Set("axes", {-1}));
       },
       "nn.layer_norm: gamma has shape (512,), expected (768,)"},
      {"broadcast_to",
       [&] {
         Call("broadcast_to", {Tensor("x", {3, 4}), ShapeExpr({3, 5})});
       },
       "broadcast_to: cannot broadcast (3, 4) to (3, 5): dim 4 vs 5"},
      {"take indices",
       [&] {
         Call("take", {Tensor("x", {10, 4}), Tensor("i", {3})});
       },
       "take: indices must be an integer tensor, got float32"},
      {"float only", [&] { Call("exp", {Tensor("x", {4}, "int32")}); },
       "exp: argument 0 must be a float tensor, got int32"},
      {"where",
       [&] {
         Call("where", {Tensor("c", {4}), Tensor("x", {4}), Tensor("y", {4})});
       },
       "where: condition must be a bool tensor, got float32"},
      {"not a tensor", [&] { Call("nn.relu", {ShapeExpr({2})}); },
       "nn.relu: argument 0 must be a tensor, got R.Shape([2])"},
      {"arity",
       [&] {
         Call("add", {Tensor("a", {1}), Tensor("b", {1}), Tensor("c", {1})});
       },
       "add: takes 2 arguments, got 3"},
      {"unknown attr", [&] { Call("sum", {Tensor("x", {4})}, Attrs().Set("axes", {0})); },
       "sum: unknown attribute 'axes'"},
      {"attr type", [&] { Call("sum", {Tensor("x", {4})}, Attrs().Set("keepdims", "yes")); },
       "sum: attribute 'keepdims' must be bool, got string \"yes\""},
      {"required attr", [&] { Call("expand_dims", {Tensor("x", {4})}); },
       "expand_dims: attribute 'axis' is required"},
      {"bad dtype attr", [&] { Call("astype", {Tensor("x", {4})}, Attrs().Set("dtype", "f33")); },
       "astype: attribute 'dtype' names no dtype: \"f33\""},
      {"tuple index",
       [&] {
         TupleGetItem(Tuple({Tensor("a", {1}), Tensor("b", {1})}), 3);
       },
       "TupleGetItem: index 3 is out of range for a tuple of 2"},
      {"call_tir output",
       [&] {
         CallTIR(GlobalVar("k"), {Tensor("x", {4})}, {TensorStructInfo(DataType::Float(32), 1)});
       },
       "call_tir: output 0 must be a tensor of known shape and dtype, got R.Tensor(\"float32\", "
       "ndim=1)"},
      {"unknown op", [&] { Call("nn.conv3d", {Tensor("x", {1})}); }, "unknown Relax op 'nn.conv3d'",
       ErrorKind::kUnsupported},
      {"layout",
       [&] {
         Call("nn.conv2d", {Tensor("x", {1, 8, 8, 3}), Tensor("w", {8, 3, 3, 3})},
              Attrs().Set("data_layout", "NHWC"));
       },
       "nn.conv2d: data_layout \"NHWC\" is not supported (only \"NCHW\")", ErrorKind::kUnsupported},
      {"match_cast",
       [&] {
         MatchCast(Var("y", ObjectStructInfo()), Tensor("x", {3, 4}),
                   TensorStructInfo({n, 5}, "float32"));
       },
       "match_cast of y: a value of R.Tensor((3, 4), \"float32\") can never match "
       "R.Tensor((n, 5), \"float32\")"},
  };
  EXPECT_GE(cases.size(), 15u);
  for (const ErrorCase& c : cases) Expect(c);
}

// TVM's attributes that Kiln reads but cannot honour for some values: refused by name and value,
// never dropped.
TEST_F(RelaxOpErrorTest, AttributeValuesKilnCannotHonourAreRefused) {
  Expr x4 = Tensor("x", {1, 4, 8, 8});
  Expr c = Tensor("c", {4});
  std::vector<ErrorCase> cases = {
      {"batch_norm training",
       [&] {
         Call("nn.batch_norm", {x4, c, c, c, c}, Attrs().Set("axis", 1));
       },
       "nn.batch_norm: training=True is not supported (TVM's default when the attribute is left "
       "out)",
       ErrorKind::kUnsupported},
      {"conv2d out_layout",
       [&] {
         Call("nn.conv2d", {x4, Tensor("w", {4, 4, 3, 3})}, Attrs().Set("out_layout", "NHWC"));
       },
       "nn.conv2d: out_layout \"NHWC\" is not supported (only \"NCHW\")", ErrorKind::kUnsupported},
      {"max_pool2d out_layout",
       [&] {
         Call("nn.max_pool2d", {x4}, Attrs().Set("pool_size", {2, 2}).Set("out_layout", "NCHW4c"));
       },
       "nn.max_pool2d: out_layout \"NCHW4c\" is not supported (only \"NCHW\")",
       ErrorKind::kUnsupported},
      {"group_norm axes",
       [&] {
         Call("nn.group_norm", {x4, c, c},
              Attrs().Set("num_groups", 2).Set("channel_axis", 1).Set("axes", {2}));
       },
       "nn.group_norm: axes=[2] is not supported: Kiln normalizes over the axes (2, 3) besides "
       "the channel group (channel_axis 1)",
       ErrorKind::kUnsupported},
      {"take mode",
       [&] {
         Call("take", {Tensor("x", {4}), Tensor("i", {2}, "int64")}, Attrs().Set("mode", "raise"));
       },
       "take: mode \"raise\" is not one of \"fast\", \"clip\", \"wrap\""},
  };
  for (const ErrorCase& c : cases) Expect(c);
}

TEST(RelaxOpAttributes, TvmNamesAndDefaults) {
  Expr x4 = testing::Tensor("x", {1, 4, 8, 8});
  Expr c = testing::Tensor("c", {4});
  // The values TVM's Python API gives when an attribute is left out.
  Expr bn_call = Call("nn.batch_norm", {x4, c, c, c, c}, Attrs().Set("training", false));
  const auto& bn = *bn_call.as<CallNode>();
  EXPECT_TRUE(bn.attrs.GetBool("center"));
  EXPECT_TRUE(bn.attrs.GetBool("scale"));
  EXPECT_EQ(bn.attrs.GetFloat("momentum"), 0.1);
  Expr pool_call = Call("nn.avg_pool2d", {x4});
  const auto& pool = *pool_call.as<CallNode>();
  EXPECT_EQ(pool.attrs.GetInts("pool_size"), (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(pool.attrs.GetBool("count_include_pad"));
  EXPECT_EQ(pool.attrs.GetString("out_layout"), "NCHW");
  // split's indices_or_sections: an int is a count of sections, a list the split points.
  Expr v = testing::Tensor("v", {6});
  EXPECT_EQ(
      Call("split", {v}, Attrs().Set("indices_or_sections", 3)).struct_info().ToString(),
      Call("split", {v}, Attrs().Set("indices_or_sections", {2, 4})).struct_info().ToString());
  EXPECT_EQ(Call("split", {v}, Attrs().Set("indices_or_sections", {3})).struct_info().ToString(),
            "R.Tuple(R.Tensor((3,), \"float32\"), R.Tensor((3,), \"float32\"))");
  Expr slice =
      Call("strided_slice", {v}, Attrs().Set("axes", {0}).Set("begin", {1}).Set("end", {3}));
  EXPECT_FALSE(slice.as<CallNode>()->attrs.GetBool("assume_inbound"));
}

}  // namespace
}  // namespace kiln::ir::relax
