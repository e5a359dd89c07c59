// ExtractTasks: dedupe by structural hash (identical layers make one task whose weight counts
// both), FLOP counts (symbolic with a symbolic sequence length), printed shapes, call sites in
// called functions, the table `tune tasks` prints, and the transformer: fewer tasks than ops.
#include "ir/relax/transform/extract_tasks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "tests/ir/relax/exec/test_kernels.h"
#include "tests/ir/relax/transform/golden.h"
#include "tests/ir/relax/transform/test_graphs.h"

namespace kiln::ir::relax::transform {
namespace {

using ::testing::HasSubstr;

constexpr DataType kF32 = DataType::Float(32);

TEST(ExtractTasksTest, IdenticalLayersMakeOneTask) {
  // Unfused: each layer has its own matmul/add/gelu PrimFuncs (matmul, matmul1, ...), equal
  // in structure: one task each, weight 2.
  IRModule mod = testing::MlpModel(2).module;
  std::vector<ExtractedTask> tasks = ExtractTasks(mod);
  ASSERT_EQ(tasks.size(), 6u);
  std::vector<std::string> names;
  std::vector<int64_t> weights;
  for (const ExtractedTask& t : tasks) {
    names.push_back(t.name);
    weights.push_back(t.weight);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"matmul", "add", "gelu", "matmul2", "add2", "relu"}));
  EXPECT_EQ(weights, (std::vector<int64_t>{2, 2, 2, 1, 1, 1}));
  EXPECT_EQ(tasks[0].workload_hash, ir::StructuralHash(*mod.LookupPrimFunc("matmul1")));

  // After fusion: one fused layer kernel called twice, and the head.
  std::vector<ExtractedTask> fused = ExtractTasks(FuseLegalizedModule(mod));
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(fused[0].name, "fused_matmul_add_gelu");
  EXPECT_EQ(fused[0].weight, 2);
  EXPECT_EQ(fused[1].weight, 1);
}

TEST(ExtractTasksTest, FlopsAndShapes) {
  std::vector<ExtractedTask> tasks = ExtractTasks(testing::MlpModel(1).module);
  const ExtractedTask& matmul = tasks[0];
  // (n, 8) x (8, 8): a multiply-add per (i, j, k) counts 2.
  EXPECT_EQ(matmul.FlopsString(), "n * 128");
  EXPECT_EQ(matmul.ShapesString(), "float32[n, 8], float32[8, 8], float32[n, 8]");
  EXPECT_EQ(matmul.params.size(), 3u);
  EXPECT_TRUE(matmul.params[0].is_buffer);

  // Static shapes give a number.
  std::vector<ExtractedTask> conv = ExtractTasks(testing::ConvModel().module);
  ASSERT_EQ(conv.size(), 4u);
  EXPECT_EQ(conv[0].name, "conv2d");
  // 1 * 4 * 8 * 8 outputs, 3 * 3 * 3 multiply-adds each; the pad stage's select counts one per
  // padded element (1 * 3 * 10 * 10).
  auto flops = AsConstInt(conv[0].flops);
  ASSERT_TRUE(flops.has_value());
  EXPECT_GE(*flops, 2 * 256 * 27);
  EXPECT_EQ(conv[0].ShapesString(),
            "float32[1, 3, 8, 8], float32[4, 3, 3, 3], float32[1, 4, 8, 8]");
}

TEST(ExtractTasksTest, OpPatternAnnotationDoesNotChangeTheWorkload) {
  IRModule plain = testing::MlpModel(1).module;
  std::vector<ExtractedTask> a = ExtractTasks(plain);
  std::vector<ExtractedTask> b = ExtractTasks(AnnotateTIROpPattern(plain));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].workload_hash, b[i].workload_hash);
    EXPECT_EQ(b[i].func->attrs.count(kOpPatternAttr), 0u);
  }
}

TEST(ExtractTasksTest, CallSitesInCalledFunctions) {
  // main calls `layer` twice; layer has one call_tir of `exp`, main one of `exp1` (equal):
  // the weight counts call sites, not executions: 2.
  BlockBuilder bb;
  PrimVar n = SymbolicDim("n");
  Var h("h", TensorStructInfo({n, 4}, kF32));
  bb.BeginFunction("layer", {h});
  bb.BeginDataflow();
  Var e = testing::EmitTIR(bb, "exp", {h}, testing::ExpKernel, true);
  bb.EndDataflow();
  GlobalVar layer = bb.EndFunction(e);
  Var x("x", TensorStructInfo({n, 4}, kF32));
  bb.BeginFunction("main", {x});
  Var a = bb.Emit(CallFunction(layer, {x}));
  Var b = bb.Emit(CallFunction(layer, {a}));
  bb.BeginDataflow();
  Var c = testing::EmitTIR(bb, "exp", {b}, testing::ExpKernel, true);
  bb.EndDataflow();
  bb.EndFunction(c);
  IRModule mod = bb.Finalize();
  std::vector<ExtractedTask> tasks = ExtractTasks(mod);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].name, "exp");
  EXPECT_EQ(tasks[0].weight, 2);
  EXPECT_TRUE(ExtractTasks(mod, "layer").size() == 1 && ExtractTasks(mod, "layer")[0].weight == 1);
  EXPECT_THROW(ExtractTasks(mod, "nothing"), Error);
}

TEST(ExtractTasksTest, TransformerHasFewerTasksThanOps) {
  testing::TestModel model = testing::TransformerModel(2);
  IRModule prepared = FuseLegalizedModule(model.module);
  std::vector<ExtractedTask> tasks = ExtractTasks(prepared);
  int64_t calls = 0;
  for (const ExtractedTask& t : tasks) {
    calls += t.weight;
    // Both layers have the same kernels.
    EXPECT_EQ(t.weight % 2, 0) << t.name;
  }
  EXPECT_LT(static_cast<int>(tasks.size()), model.num_ops);
  EXPECT_LT(calls, model.num_ops);
  std::string table = FormatTaskTable(tasks);
  // Projections share one kernel: q, k and v of both layers.
  EXPECT_EQ(tasks[3].name, "fused_matmul_add");
  EXPECT_EQ(tasks[3].weight, 6);
  EXPECT_THAT(table, HasSubstr("_add5_gelu"));
  EXPECT_EQ(model.num_ops, 66);
  EXPECT_EQ(calls, 32);
  EXPECT_EQ(testing::CheckGoldenText("transformer_tasks.txt", table), "");
}

TEST(ExtractTasksTest, TableLayout) {
  std::vector<ExtractedTask> tasks = ExtractTasks(testing::MlpModel(1).module);
  std::string table = FormatTaskTable(tasks);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < table.size()) {
    size_t end = table.find('\n', start);
    lines.push_back(table.substr(start, end - start));
    start = end + 1;
  }
  ASSERT_EQ(lines.size(), tasks.size() + 1);
  EXPECT_EQ(lines[0].substr(0, 4), "#  n");
  EXPECT_THAT(lines[0], HasSubstr("FLOP"));
  EXPECT_THAT(lines[1], HasSubstr("matmul"));
  EXPECT_THAT(lines[1], HasSubstr("n * 128"));
  EXPECT_THAT(lines[1], HasSubstr("float32[n, 8], float32[8, 8], float32[n, 8]"));
}

}  // namespace
}  // namespace kiln::ir::relax::transform
