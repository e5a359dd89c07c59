// Lowering the entry function: a hand-written Relax module with weights as parameters, a
// hand-written kernel and a symbolic dim compiles and runs like the reference executor; dims
// become dim expressions; a graph the executor cannot run is refused naming the binding.
#include "compiler/lower_graph.h"

#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "ir/expr.h"
#include "ir/relax/text/parser.h"
#include "runtime/file_util.h"

namespace kiln::compiler {
namespace {

class LowerGraphTest : public testing::CompilerTestBase {};

TEST_F(LowerGraphTest, AHandWrittenRelaxModuleRunsForEverySize) {
  ir::relax::IRModule module = ir::relax::transform::PrepareModuleForTuning(ir::relax::ParseModule(
      runtime::ReadWholeFile(std::string(KILN_SOURCE_DIR) + "/examples/relax/gated_mlp.relax")));
  Compile(module, "gated_mlp");
  runtime::model::Executor executor = Load("gated_mlp");
  ASSERT_EQ(executor.inputs().size(), 5u);
  EXPECT_EQ(executor.inputs()[0].shape[0].ToString(), "n");
  for (int64_t n : {3, 7}) {
    ExpectMatchesReference(executor, module, {{n, 64}, {64}, {64, 128}, {64, 128}, {128, 64}},
                           static_cast<uint64_t>(n));
  }
}

TEST_F(LowerGraphTest, DimsBecomeDimExpressions) {
  ir::Var n("n", ir::DataType::Int(64));
  ir::Expr sum = n * ir::IntImm(n.dtype(), 4) + ir::IntImm(n.dtype(), 2);
  ir::Expr div(std::make_shared<ir::FloorDivNode>(n.dtype(), sum, ir::IntImm(n.dtype(), 3)));
  runtime::model::DimExpr d = ToDimExpr(div);
  EXPECT_EQ(d.ToString(), "(((n * 4) + 2) // 3)");
  EXPECT_EQ(runtime::model::EvaluateDim(d, {{"n", 5}}), 7);
  EXPECT_THROW(ToDimExpr(ir::FloatImm(ir::DataType::Float(32), 1.5)), Error);
}

TEST_F(LowerGraphTest, ACallOfAnotherFunctionIsRefusedNamingTheBinding) {
  ir::relax::IRModule module = ir::relax::ParseModule(R"(
@I.ir_module
class Module:
    @R.function
    def helper(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = cls.helper(x)
        return y
)");
  try {
    LowerEntryFunction(module, "main", {}, {}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("binding y: a call of another function"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::compiler
