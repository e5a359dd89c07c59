// Shape subgraphs evaluated at import time: Shape -> Gather -> Unsqueeze -> Concat -> Reshape,
// Shape -> Slice, arithmetic on shapes, ConstantOfShape(Shape(x)), Size, Range; the run-time
// fallback when a shape really comes from data; and constant folding of Constant and Cast.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/relax/printer.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::CalledOps;
using testing::ModelBuilder;
using testing::ReturnInfo;
using testing::SetInt;
using testing::SetString;
using testing::TestData;

bool Calls(const relax::IRModule& m, const std::string& op) {
  std::vector<std::string> ops = CalledOps(m);
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

HostTensor Int64s(const std::vector<int64_t>& values) {
  HostTensor t(DataType::Int(64), {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.SetInt(static_cast<int64_t>(i), values[i]);
  return t;
}

// Ops that would mean a shape was computed at run time instead of at import time.
void ExpectNoRuntimeShapeOps(const relax::IRModule& m) {
  for (const char* op : {"shape_of", "shape_to_tensor", "tensor_to_shape", "take", "concat"}) {
    EXPECT_FALSE(Calls(m, op)) << op << " in\n" << relax::DebugPrint(m);
  }
}

TEST(OnnxShapeFolding, ReshapeFromShapeGatherConcatIsSymbolic) {
  relax::IRModule m = ImportOnnx(TestData("models/mlp_dynamic.onnx"));
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((batch, seq * 32), \"float32\")");
  ExpectNoRuntimeShapeOps(m);
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"matmul", "add", "nn.relu", "reshape"}));
}

TEST(OnnxShapeFolding, HeadSplitAndConstantOfShape) {
  relax::IRModule m = ImportOnnx(TestData("models/attention_shapes.onnx"));
  EXPECT_EQ(ReturnInfo(m),
            "R.Tuple(R.Tensor((batch, 4, seq, 16), \"float32\"), "
            "R.Tensor((batch, seq, 64), \"float32\"))");
  ExpectNoRuntimeShapeOps(m);
  EXPECT_TRUE(Calls(m, "full"));  // the mask of x's symbolic shape
}

TEST(OnnxShapeFolding, ArithmeticOnShapes) {
  // (n, 6) -> (n * 2, 3) with the first dim computed as Shape(x)[0] * 2.
  ModelBuilder b;
  b.Input("x", {"n", 6});
  b.InitInts("zero", {0}, {});
  b.InitInts("two", {2}, {});
  b.InitInts("three", {3}, {1});
  b.InitInts("axes", {0}, {1});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Gather", {"s", "zero"}, {"n0"});
  b.Node("Mul", {"n0", "two"}, {"n2"});
  b.Node("Unsqueeze", {"n2", "axes"}, {"n2v"});
  SetInt(b.Node("Concat", {"n2v", "three"}, {"target"}), "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"});
  b.Node("Size", {"x"}, {"numel"});
  SetInt(b.Node("Cast", {"numel"}, {"numel32"}), "to", ::onnx::TensorProto::INT32);
  b.Output("y").Output("numel32");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tuple(R.Tensor((n * 2, 3), \"float32\"), R.Tensor((), \"int32\"))");
  EXPECT_EQ(CalledOps(m),
            (std::vector<std::string>{"reshape", "shape_to_tensor", "reshape", "astype"}))
      << relax::DebugPrint(m);
}

TEST(OnnxShapeFolding, ShapeSliceWithStartEnd) {
  ModelBuilder b(15);
  b.Input("x", {"b", "s", 8});
  auto& shape = b.Node("Shape", {"x"}, {"tail"});
  SetInt(shape, "start", 1);
  b.InitInts("ones", {1}, {1});
  SetInt(b.Node("Concat", {"ones", "tail"}, {"target"}), "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((1, s, 8), \"float32\")");
}

TEST(OnnxShapeFolding, ExpandToAShapeOfAnotherInput) {
  ModelBuilder b;
  b.Input("x", {1, 8}).Input("y", {"n", 1});
  b.Node("Shape", {"y"}, {"ys"});
  b.Node("Expand", {"x", "ys"}, {"z"});
  b.Output("z");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((n, 8), \"float32\")");
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"broadcast_to"}));
}

TEST(OnnxShapeFolding, ResizeToTwiceASymbolicSize) {
  // sizes = Concat(Shape(x)[:2], Shape(x)[2:] * 2), as upsampling layers export.
  ModelBuilder b;
  b.Input("x", {1, 3, "h", "w"});
  b.InitInts("two", {2}, {});
  b.InitInts("s0", {0}, {1});
  b.InitInts("s2", {2}, {1});
  b.InitInts("s4", {4}, {1});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Slice", {"s", "s0", "s2"}, {"nc"});
  b.Node("Slice", {"s", "s2", "s4"}, {"hw"});
  b.Node("Mul", {"hw", "two"}, {"hw2"});
  SetInt(b.Node("Concat", {"nc", "hw2"}, {"sizes"}), "axis", 0);
  auto& r = b.Node("Resize", {"x", "", "", "sizes"}, {"y"});
  SetString(r, "mode", "linear");
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((1, 3, h * 2, w * 2), \"float32\")");
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"image.resize2d"}));

  // The same with scales: floor(dim * 2), and the scales reach the op.
  ModelBuilder s;
  s.Input("x", {1, 3, "h", 5});
  s.InitFloats("scales", {1, 1, 2, 1.5f}, {4});
  s.Node("Resize", {"x", "", "scales"}, {"y"});
  s.Output("y");
  relax::IRModule ms = s.Import();
  EXPECT_EQ(ReturnInfo(ms), "R.Tensor((1, 3, h * 2, 7), \"float32\")");
  EXPECT_NE(relax::DebugPrint(ms).find("scale_w=1.5"), std::string::npos) << relax::DebugPrint(ms);
}

TEST(OnnxShapeFolding, WhereEqualMinusOnePatternFolds) {
  // torch's export of expand(-1, ...): Where(Equal(shape, -1), ones, shape).
  ModelBuilder b;
  b.Input("x", {"n", 1});
  b.InitInts("minus_one", {-1, -1}, {2});
  b.InitInts("ones", {1, 1}, {2});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Equal", {"s", "minus_one"}, {"eq"});
  b.Node("Where", {"eq", "ones", "s"}, {"target"});
  b.Node("Expand", {"x", "target"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((n, 1), \"float32\")");
  ExpectNoRuntimeShapeOps(m);
}

TEST(OnnxShapeFolding, RuntimeShapeFallsBackToTensorToShape) {
  ModelBuilder b;
  b.Input("x", {2, 6}).Input("shape", {2}, ::onnx::TensorProto::INT64);
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor(\"float32\", ndim=2)");
  EXPECT_TRUE(Calls(m, "tensor_to_shape"));
  EXPECT_EQ(b.TryImport().inputs_shaping_at_run_time, (std::vector<std::string>{"shape"}));

  // The same input fixed at import time folds.
  ImportOptions options;
  HostTensor target(DataType::Int(64), {2});
  target.SetInt(0, 3);
  target.SetInt(1, -1);
  options.input_values["shape"] = target;
  relax::IRModule f = b.Import(options);
  EXPECT_EQ(ReturnInfo(f), "R.Tensor((3, 4), \"float32\")");
  EXPECT_EQ(relax::Function(*f.LookupFunction("main"))->params.size(), 1u);
}

TEST(OnnxShapeFolding, InputsNeededAtImportAreListedTogether) {
  ModelBuilder b;
  b.Input("x", {10})
      .Input("starts", {1}, ::onnx::TensorProto::INT64)
      .Input("ends", {1}, ::onnx::TensorProto::INT64);
  b.Node("Slice", {"x", "starts", "ends"}, {"y"}, "slice");
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_EQ(r.unsupported[0].ToString(),
            "node 0 'slice' (Slice): input 1 (starts) is the graph input 'starts', whose value "
            "must be known at import time (give it with ImportOptions::input_values)");
  EXPECT_EQ(r.inputs_needed_at_import, (std::vector<std::string>{"ends", "starts"}));
  ImportOptions options;
  options.input_values["starts"] = Int64s({2});
  options.input_values["ends"] = Int64s({-1});
  relax::IRModule m = b.Import(options);
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((7,), \"float32\")");
  EXPECT_EQ(b.TryImport(options).param_names, (std::vector<std::string>{"x"}));
}

TEST(OnnxShapeFolding, ConstantsCastAndRangeFold) {
  ModelBuilder b;
  b.Input("x", {4});
  auto& c = b.Node("Constant", {}, {"c"});
  auto* attr = c.add_attribute();
  attr->set_name("value_floats");
  attr->set_type(::onnx::AttributeProto::FLOATS);
  for (float v : {1.5f, -2.5f, 3.0f, 4.9f}) attr->add_floats(v);
  SetInt(b.Node("Cast", {"c"}, {"ci"}), "to", ::onnx::TensorProto::INT64);
  b.InitInts("start", {0}, {});
  b.InitInts("limit", {4}, {});
  b.InitInts("delta", {1}, {});
  b.Node("Range", {"start", "limit", "delta"}, {"r"});
  b.Node("Add", {"ci", "r"}, {"sum"});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y").Output("sum");
  relax::IRModule m = b.Import();
  // Everything but the Relu ran at import time: sum is a constant [1, -1, 5, 7].
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"nn.relu"}));
  const auto* seq = (*m.LookupFunction("main"))->body.as<relax::SeqExprNode>();
  const auto* tuple = seq->blocks.back().bindings.back().value.as<relax::TupleNode>();
  ASSERT_NE(tuple, nullptr);
  const auto* sum = tuple->fields[1].as<relax::ConstantNode>();
  ASSERT_NE(sum, nullptr);
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 4; ++i) values.push_back(sum->data.GetInt(i));
  EXPECT_EQ(values, (std::vector<int64_t>{1, -1, 5, 7}));
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
