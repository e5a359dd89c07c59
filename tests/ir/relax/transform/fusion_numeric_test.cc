// The key end-to-end property of the fusion passes: the reference executor gives the same
// outputs for a model before and after FuseOps, FuseTIR, and the whole post-legalization
// pipeline (FoldConstant, AnnotateTIROpPattern, FuseOps, FuseTIR, DeadCodeElimination), on
// random inputs, for an MLP, a transformer block with a symbolic sequence length, a conv chain
// and a model with constant weights. The passes only regroup the same block computations, so
// the outputs must agree bit for bit.
#include <gtest/gtest.h>

#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/fuse_ops.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/relax/well_formed.h"
#include "tests/ir/relax/exec/test_kernels.h"
#include "tests/ir/relax/transform/test_graphs.h"

namespace kiln::ir::relax::transform {
namespace {

int CountCallTIR(const IRModule& m) {
  int count = 0;
  const auto* seq = (*m.LookupFunction("main"))->body.as<SeqExprNode>();
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block.bindings) {
      const auto* call = b.value.as<CallNode>();
      count += call != nullptr && call->op == "call_tir";
    }
  }
  return count;
}

// Runs `model` before and after each stage on inputs with the symbolic dim set to each of
// `dims`; returns main's call_tir count after the pipeline.
int CheckStagesAgree(const testing::TestModel& model, const std::vector<int64_t>& dims) {
  IRModule annotated = AnnotateTIROpPattern(model.module);
  IRModule fused = FuseOps(annotated);
  IRModule merged = FuseTIR(fused);
  IRModule pipeline = FuseLegalizedModule(model.module);
  for (const IRModule* m : {&fused, &merged, &pipeline}) EXPECT_NO_THROW(CheckWellFormed(*m));
  for (int64_t n : dims) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<exec::Value> inputs = model.Inputs(n, static_cast<uint64_t>(n));
    exec::Value expected = exec::Run(model.module, "main", inputs);
    EXPECT_EQ(testing::MaxAbsDiff(expected, exec::Run(fused, "main", inputs)), 0.0);
    EXPECT_EQ(testing::MaxAbsDiff(expected, exec::Run(merged, "main", inputs)), 0.0);
    EXPECT_EQ(testing::MaxAbsDiff(expected, exec::Run(pipeline, "main", inputs)), 0.0);
  }
  return CountCallTIR(pipeline);
}

TEST(FusionNumericTest, Mlp) {
  testing::TestModel model = testing::MlpModel(2);
  EXPECT_EQ(model.num_ops, 9);
  EXPECT_EQ(CheckStagesAgree(model, {1, 4}), 3);
}

TEST(FusionNumericTest, TransformerWithSymbolicSequenceLength) {
  testing::TestModel model = testing::TransformerModel(2);
  int kernels = CheckStagesAgree(model, {1, 3, 5});
  EXPECT_LT(kernels, model.num_ops);
}

TEST(FusionNumericTest, ConvBiasReluPool) {
  testing::TestModel model = testing::ConvModel();
  EXPECT_EQ(CheckStagesAgree(model, {1}), 2);
}

TEST(FusionNumericTest, ConstantWeightsFoldThenFuse) {
  testing::TestModel model = testing::ConstantWeightModel();
  // The transpose of the constant weight is computed at compile time; the rest fuses.
  EXPECT_EQ(CheckStagesAgree(model, {2, 3}), 1);
}

}  // namespace
}  // namespace kiln::ir::relax::transform
