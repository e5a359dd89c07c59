// Which tasks become views: the reshapes legalization makes, not transposes, and not a
// function that is named like a reshape but moves elements.
#include "compiler/view_task.h"

#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/text/parser.h"

namespace kiln::compiler {
namespace {

using ir::relax::transform::ExtractedTask;
using ir::relax::transform::ExtractTasks;

TEST(ViewTaskTest, ReshapesOfTheExampleModelsAreViews) {
  std::vector<std::string> views, kernels;
  for (const auto& [name, dims] :
       std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
           {"cnn", {}}, {"transformer_block", {{"seq_len", 8}}}}) {
    for (const ExtractedTask& task : ExtractTasks(testing::PreparedModel(name, dims), "main")) {
      (IsViewTask(task) ? views : kernels).push_back(task.name);
    }
  }
  EXPECT_EQ(views, std::vector<std::string>({"reshape"}));
  // fused_reshape_transpose moves elements: a kernel.
  EXPECT_NE(std::find(kernels.begin(), kernels.end(), "fused_reshape_transpose"), kernels.end());
}

TEST(ViewTaskTest, AReshapeThatMovesElementsIsNotAView) {
  ir::PrimFunc f = ir::ParsePrimFunc(R"(
@T.prim_func
def reshape(A: T.Buffer((2, 3), "float32"), B: T.Buffer((3, 2), "float32")):
    for i, j in T.grid(3, 2):
        with T.block("T_reshape"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj % 2, vi]
)");
  ExtractedTask task;
  task.name = "reshape";
  task.func = f;
  task.params = {{"A", ir::DataType::Float(32), {2, 3}, true},
                 {"B", ir::DataType::Float(32), {3, 2}, true}};
  EXPECT_FALSE(IsViewTask(task));
  task.name = "transpose";
  EXPECT_FALSE(IsViewTask(task));
}

}  // namespace
}  // namespace kiln::compiler
