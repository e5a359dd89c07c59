// The op registry: every op is reachable by name, and every inference function copes with
// arguments whose shape or rank is unknown, or of the wrong kind, by returning struct info or
// throwing kiln::Error (never another exception).
#include <gtest/gtest.h>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

// A plausible value of each attribute type, for required attributes.
AttrValue Sample(AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return false;
    case AttrType::kInt:
      return int64_t{0};
    case AttrType::kFloat:
      return 0.0;
    case AttrType::kString:
      return std::string("NCHW");
    case AttrType::kIntList:
      return std::vector<int64_t>{0};
    case AttrType::kDType:
      return DataType::Float(32);
  }
  return false;
}

TEST(RelaxOpRegistryTest, ListsTheOpFamilies) {
  std::vector<std::string> names = OpRegistry::Global().Names();
  for (const char* op :
       {"add", "matmul", "linear", "nn.conv2d", "nn.max_pool2d", "nn.softmax", "sum", "reshape",
        "split", "full", "shape_of", "call_tir", "call_dps_packed", "astype", "where"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
  }
  EXPECT_GE(names.size(), 90u);
  EXPECT_EQ(OpRegistry::Global().Find("no_such_op"), nullptr);
}

TEST(RelaxOpRegistryTest, OpsCarryTheirFusionPattern) {
  auto pattern = [](const char* op) {
    return OpPatternName(OpRegistry::Global().Find(op)->pattern);
  };
  EXPECT_STREQ(pattern("exp"), "elemwise");
  EXPECT_STREQ(pattern("astype"), "elemwise");
  EXPECT_STREQ(pattern("add"), "broadcast");
  EXPECT_STREQ(pattern("where"), "broadcast");
  EXPECT_STREQ(pattern("reshape"), "injective");
  EXPECT_STREQ(pattern("sum"), "comm_reduce");
  EXPECT_STREQ(pattern("matmul"), "out_ewise_fusable");
  EXPECT_STREQ(pattern("nn.conv2d"), "out_ewise_fusable");
  EXPECT_STREQ(pattern("call_tir"), "opaque");
  EXPECT_STREQ(pattern("shape_of"), "opaque");
}

TEST(RelaxOpRegistryTest, EveryOpCopesWithUnknownAndWrongArguments) {
  std::vector<Expr> samples = {
      Var("unknown_rank", TensorStructInfo(DataType::Float(32), kUnknownNDim)),
      Var("unknown_shape", TensorStructInfo(DataType::Float(32), 4)),
      Var("unknown_dtype", TensorStructInfo({2, 3}, DataType::Void())),
      Var("scalar", TensorStructInfo(std::vector<PrimExpr>{}, "float32")),
      Var("shape", ShapeStructInfo(kUnknownNDim)),
      Var("object", ObjectStructInfo()),
      Tuple({}),
  };
  int built = 0, rejected = 0;
  for (const std::string& name : OpRegistry::Global().Names()) {
    const OpInfo* info = OpRegistry::Global().Find(name);
    Attrs attrs;
    for (const AttrSpec& spec : info->attrs) {
      if (spec.required) attrs.Set(spec.name, Sample(spec.type));
    }
    int arity = std::max(info->min_args, 1);
    if (info->max_args >= 0) arity = std::min(arity, info->max_args);
    for (const Expr& sample : samples) {
      std::vector<Expr> args(arity, sample);
      try {
        Expr call = Call(name, args, attrs, {TensorStructInfo({2}, "float32")});
        EXPECT_TRUE(call.struct_info().defined()) << name;
        ++built;
      } catch (const Error&) {
        ++rejected;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " with " << sample.struct_info().ToString()
                      << " threw a non-kiln exception: " << e.what();
      }
    }
  }
  EXPECT_GT(built, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace kiln::ir::relax
