// A dim equality import could not prove (an ONNX Add of [h, 4] and [w, 4]) becomes a checked
// view in the compiled graph: at shapes that keep it the artifact runs and matches the
// reference executor; at shapes that break it the run fails before any kernel, naming the ONNX
// node and both shapes, and the executor keeps working for the next call.
#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "tests/ir/frontend/onnx_test_util.h"

namespace kiln::compiler {
namespace {

using ir::frontend::onnx::testing::ModelBuilder;

class RuntimeCheckTest : public testing::CompilerTestBase {};

TEST_F(RuntimeCheckTest, AViolatedCheckNamesTheOnnxNodeAndBothShapes) {
  ModelBuilder b;
  b.Input("a", {"h", 4}).Input("b", {"w", 4});
  b.Node("Add", {"a", "b"}, {"y"}, "fpn_add");
  b.Output("y");
  ir::relax::IRModule module = ir::relax::transform::PrepareModuleForTuning(b.Import());
  Compile(module, "add");
  runtime::model::Executor executor = Load("add");
  ExpectMatchesReference(executor, module, {{3, 4}, {3, 4}}, 1);

  std::vector<ir::HostTensor> mismatched = {
      ir::HostTensor::Random(ir::DataType::Float(32), {3, 4}, 1),
      ir::HostTensor::Random(ir::DataType::Float(32), {2, 4}, 2)};
  try {
    executor.Run(mismatched);
    FAIL() << "shapes that break the check ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    std::string what = e.what();
    EXPECT_NE(what.find("ONNX node 0 'fpn_add' (Add): input 1 must match input 0"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("[3, 4]"), std::string::npos) << what;
    EXPECT_NE(what.find("[2, 4]"), std::string::npos) << what;
  }
  ExpectMatchesReference(executor, module, {{5, 4}, {5, 4}}, 2);
}

}  // namespace
}  // namespace kiln::compiler
