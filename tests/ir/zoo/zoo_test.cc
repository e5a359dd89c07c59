// The zoo itself: enough entries of each required kind, each one well formed (root block,
// blocks bound to loops, one write per block), deterministic, and distinct from the others.
#include "tests/ir/zoo/zoo.h"

#include <gtest/gtest.h>

#include <set>

#include "ir/functor.h"
#include "ir/structural.h"

namespace kiln::ir::zoo {
namespace {

// Every block realize under a statement, outermost first.
class BlockCollector : public IRVisitor {
 public:
  std::vector<const BlockRealizeNode*> realizes;
  void VisitStmt_(const BlockRealizeNode* op) override {
    realizes.push_back(op);
    IRVisitor::VisitStmt_(op);
  }
};

TEST(ZooTest, HasTheRequiredFunctions) {
  const std::vector<std::string> required = {"add_broadcast",
                                             "scalar_mul",
                                             "relu",
                                             "exp",
                                             "sigmoid",
                                             "gelu_erf",
                                             "gelu_tanh",
                                             "cast_f32_f16",
                                             "where",
                                             "sum_axis",
                                             "sum_keepdims",
                                             "mean",
                                             "max_reduce",
                                             "matmul",
                                             "matmul_symbolic_m",
                                             "batch_matmul",
                                             "dense_bias_relu",
                                             "conv2d_nchw",
                                             "conv2d_nhwc",
                                             "conv2d_stride2_pad1",
                                             "depthwise_conv",
                                             "max_pool_2x2",
                                             "avg_pool_3x3_stride2_pad1",
                                             "global_avg_pool",
                                             "softmax",
                                             "log_softmax",
                                             "layer_norm",
                                             "rms_norm",
                                             "transpose",
                                             "flatten",
                                             "reshape",
                                             "concat",
                                             "strided_slice",
                                             "pad",
                                             "int8_matmul",
                                             "bfloat16_add",
                                             "float64_reduce",
                                             "elementwise_symbolic",
                                             "reduce_symbolic"};
  for (const std::string& name : required) EXPECT_NO_THROW(ZooLookup(name)) << name;
  EXPECT_THROW(ZooLookup("no_such_function"), Error);
  EXPECT_GE(Zoo().size(), 30u);
  int symbolic = 0;
  for (const ZooEntry& e : Zoo()) symbolic += !e.shape_vars.empty();
  EXPECT_GE(symbolic, 5);
}

TEST(ZooTest, EveryEntryIsWellFormed) {
  for (const ZooEntry& e : Zoo()) {
    SCOPED_TRACE(e.name);
    PrimFunc f = e.build();
    ASSERT_TRUE(f.defined());
    EXPECT_EQ(f->name, e.name);
    ASSERT_TRUE(f->attrs.count("global_symbol"));
    EXPECT_EQ(f->attrs.at("global_symbol").as<StringImmNode>()->value, e.name);
    ASSERT_FALSE(e.outputs.empty());
    for (size_t out : e.outputs) EXPECT_LT(out, f->params.size());
    EXPECT_EQ(f->buffer_map.size(), f->params.size());

    const auto* root_realize = f->body.as<BlockRealizeNode>();
    ASSERT_NE(root_realize, nullptr);
    const BlockNode* root = root_realize->block_node();
    EXPECT_EQ(root->name, "root");
    EXPECT_TRUE(root->iter_vars.empty());
    EXPECT_TRUE(root->reads.empty() && root->writes.empty());

    BlockCollector blocks;
    blocks.VisitStmt(root->body);
    ASSERT_FALSE(blocks.realizes.empty());
    std::set<std::string> names;
    for (const BlockRealizeNode* realize : blocks.realizes) {
      const BlockNode* block = realize->block_node();
      EXPECT_TRUE(names.insert(block->name).second) << "duplicate block " << block->name;
      ASSERT_EQ(block->writes.size(), 1u) << block->name;
      EXPECT_FALSE(block->reads.empty()) << block->name;
      bool reduces = false;
      for (const IterVar& iv : block->iter_vars) reduces |= iv.kind == IterKind::kReduce;
      EXPECT_EQ(reduces, block->init.defined()) << block->name;
      for (const Expr& value : realize->iter_values) EXPECT_NE(value.as<VarNode>(), nullptr);
    }
    // Every parameter is read or written by some block; intermediates are root allocations.
    size_t stages = blocks.realizes.size();
    size_t param_outputs = e.outputs.size();
    EXPECT_EQ(root->alloc_buffers.size() + param_outputs, stages);

    std::vector<HostTensor> args = MakeArguments(e, f, 1);
    ASSERT_EQ(args.size(), f->params.size());
    for (size_t p = 0; p < args.size(); ++p) {
      EXPECT_EQ(args[p].dtype(), f->BufferOf(f->params[p]).value()->dtype);
      if (IsOutput(e, p)) {
        for (int64_t i = 0; i < args[p].numel(); ++i) ASSERT_EQ(args[p].GetDouble(i), 0.0);
      }
    }
  }
}

TEST(ZooTest, BuildingIsDeterministicAndEntriesDiffer) {
  std::map<std::string, std::string> by_hash;
  for (const ZooEntry& e : Zoo()) {
    PrimFunc a = e.build(), b = e.build();
    EXPECT_FALSE(a.same_as(b));
    EXPECT_TRUE(StructuralEqual(a, b)) << e.name;
    std::string hash = StructuralHashHex(a);
    EXPECT_EQ(hash, StructuralHashHex(b)) << e.name;
    auto [it, inserted] = by_hash.emplace(hash, e.name);
    EXPECT_TRUE(inserted) << e.name << " has the structure of " << it->second;
  }
}

TEST(ZooTest, ConcreteShapesFollowTheShapeVariables) {
  const ZooEntry& e = ZooLookup("matmul_symbolic_m");
  PrimFunc f = e.build();
  std::vector<HostTensor> args = MakeArguments(e, f, 7);
  EXPECT_EQ(args[0].shape(), (std::vector<int64_t>{20, 32}));
  EXPECT_EQ(args[1].shape(), (std::vector<int64_t>{32, 24}));
  EXPECT_EQ(args[2].shape(), (std::vector<int64_t>{20, 24}));
  EXPECT_THROW(ConcreteShape(f->BufferOf(f->params[0]).value(), {}), Error);
}

}  // namespace
}  // namespace kiln::ir::zoo
