// ImportOnnx on small models: parameters and their symbolic dims, initializers as constants,
// options, outputs, and the report of unsupported nodes, attributes, outputs and dtypes.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/relax/printer.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::CalledOps;
using testing::ModelBuilder;
using testing::ReturnInfo;
using testing::SetFloat;
using testing::SetInt;
using testing::SetInts;
using testing::SetString;
using testing::TestData;

const relax::FunctionNode& Main(const relax::IRModule& m) {
  const relax::Function* f = m.LookupFunction("main");
  EXPECT_NE(f, nullptr);
  return *f->get();
}

const relax::TensorStructInfoNode& ParamInfo(const relax::IRModule& m, size_t i) {
  return *Main(m).params.at(i).struct_info().as<relax::TensorStructInfoNode>();
}

TEST(OnnxImport, DimParamsAreSharedShapeVariables) {
  ModelBuilder b;
  b.Input("x", {"batch", 16}).Input("y", {"batch", 16});
  b.Node("Add", {"x", "y"}, {"z"});
  b.Output("z");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((batch, 16), \"float32\")");
  ASSERT_EQ(Main(m).params.size(), 2u);
  // The same variable object, so shape inference proves the dims equal.
  EXPECT_TRUE((*ParamInfo(m, 0).shape)[0].same_as((*ParamInfo(m, 1).shape)[0]));
}

TEST(OnnxImport, UnknownDimsGetFreshVariables) {
  ModelBuilder b;
  b.Input("x", {"?", 4}).Input("y", {"?", 4});
  b.Node("Relu", {"x"}, {"a"});
  b.Node("Relu", {"y"}, {"c"});
  b.Output("a").Output("c");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m),
            "R.Tuple(R.Tensor((x_dim0, 4), \"float32\"), R.Tensor((y_dim0, 4), \"float32\"))");
  EXPECT_FALSE((*ParamInfo(m, 0).shape)[0].same_as((*ParamInfo(m, 1).shape)[0]));
}

TEST(OnnxImport, BoundDimValuesBecomeConstants) {
  ModelBuilder b;
  b.Input("x", {"batch", "seq", 8});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  ImportOptions options;
  options.dim_values["batch"] = 2;
  EXPECT_EQ(ReturnInfo(b.Import(options)), "R.Tensor((2, seq, 8), \"float32\")");
}

TEST(OnnxImport, InitializersAreConstantsUnlessKeptAsParams) {
  ModelBuilder b;
  b.Input("x", {2, 3});
  b.InitFloats("w", {1, 2, 3, 4, 5, 6}, {2, 3});
  b.Node("Add", {"x", "w"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(Main(m).params.size(), 1u);
  std::string text = relax::DebugPrint(m);
  EXPECT_NE(text.find("R.add(x, "), std::string::npos) << text;

  ImportOptions keep;
  keep.keep_params_as_inputs = true;
  relax::IRModule k = b.Import(keep);
  ASSERT_EQ(Main(k).params.size(), 2u);
  EXPECT_EQ(Main(k).params[1].name(), "w");
  EXPECT_EQ(b.TryImport(keep).param_names, (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(Main(k).params[1].struct_info().ToString(), "R.Tensor((2, 3), \"float32\")");
}

TEST(OnnxImport, GraphInputsInOrderAndOutputsAsTuple) {
  ModelBuilder b;
  b.Input("b", {3}).Input("a/0", {3});
  b.Node("Sub", {"a/0", "b"}, {"d"});
  b.Node("Identity", {"a/0"}, {"same"});
  b.Output("d").Output("same");
  relax::IRModule m = b.Import();
  OnnxImportResult r = b.TryImport();
  EXPECT_EQ(r.param_names, (std::vector<std::string>{"b", "a/0"}));
  EXPECT_EQ(r.output_names, (std::vector<std::string>{"d", "same"}));
  EXPECT_EQ(Main(m).params[1].name(), "a_0");  // printable
  ASSERT_EQ(Main(m).params.size(), 2u);
  EXPECT_EQ(Main(m).params[0].name(), "b");
  EXPECT_EQ(ReturnInfo(m), "R.Tuple(R.Tensor((3,), \"float32\"), R.Tensor((3,), \"float32\"))");
}

TEST(OnnxImport, OutputsMayBeInputsOrInitializers) {
  ModelBuilder b;
  b.Input("x", {2});
  b.InitFloats("w", {1, 2}, {2});
  b.Output("x").Output("w");
  EXPECT_EQ(ReturnInfo(b.Import()),
            "R.Tuple(R.Tensor((2,), \"float32\"), R.Tensor((2,), \"float32\"))");
}

TEST(OnnxImport, BoundInputValuesMustFitTheDeclaredInput) {
  ModelBuilder b;
  b.Input("x", {2, 3}).Input("s", {2}, ::onnx::TensorProto::INT64);
  b.Node("Reshape", {"x", "s"}, {"y"});
  b.Output("y");
  ImportOptions options;
  options.input_values["s"] = HostTensor(DataType::Int(32), {2});
  OnnxImportResult r = b.TryImport(options);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].reason,
            "test.onnx: ImportOptions: input_values['s'] is int32[2], but the graph input is "
            "INT64");
  options.input_values["s"] = HostTensor(DataType::Int(64), {3});
  EXPECT_NE(b.TryImport(options).errors.at(0).reason.find("does not fit the declared shape"),
            std::string::npos);
  options.input_values.clear();
  options.input_values["nope"] = HostTensor(DataType::Int(64), {2});
  EXPECT_NE(b.TryImport(options).errors.at(0).reason.find("'nope', which is not a graph input"),
            std::string::npos);
}

TEST(OnnxImport, ConvBlockFromFile) {
  relax::IRModule m = ImportOnnx(TestData("models/conv_block.onnx"));
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((n, 10), \"float32\")");
  std::vector<std::string> ops = CalledOps(m);
  for (const char* op : {"nn.conv2d", "nn.batch_norm", "nn.relu", "nn.max_pool2d", "linear"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  }
}

TEST(OnnxImport, EveryUnsupportedNodeIsListedAtOnce) {
  std::string path = TestData("models/unsupported_ops.onnx");
  OnnxImportResult r = TryImportOnnx(path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].ToString();
  ASSERT_EQ(r.unsupported.size(), 3u);
  EXPECT_EQ(r.unsupported[0].op_type, "TopK");
  EXPECT_EQ(r.unsupported[0].node_name, "topk_node");
  EXPECT_EQ(r.unsupported[1].op_type, "NonZero");
  EXPECT_EQ(r.unsupported[2].op_type, "Einsum");
  EXPECT_NE(r.unsupported[1].reason.find("depends on the input data"), std::string::npos);
  try {
    ImportOnnx(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    std::string msg = e.what();
    for (const char* part : {"unsupported_ops.onnx", "3 parts", "node 1 'topk_node' (TopK)",
                             "node 2 'nonzero_node' (NonZero)", "node 3 'einsum_node' (Einsum)"}) {
      EXPECT_NE(msg.find(part), std::string::npos) << part << " not in: " << msg;
    }
    // The node after the unsupported TopK is not blamed.
    EXPECT_EQ(msg.find("after_topk"), std::string::npos) << msg;
  }
}

TEST(OnnxImport, UnhandledAttributesOutputsAndDomainsAreUnsupported) {
  ModelBuilder b;
  b.Input("x", {1, 1, 4, 4});
  b.InitInts("pads", {0, 0, -1, 1, 0, 0, 1, 1}, {8});
  b.Node("Pad", {"x", "pads"}, {"am"}, "pad");
  SetInt(b.Node("Relu", {"x"}, {"r"}, "relu"), "made_up", 3);
  auto& pool = b.Node("MaxPool", {"x"}, {"p", "idx"}, "pool");
  SetInts(pool, "kernel_shape", {2, 2});
  b.Node("Gelu", {"x"}, {"g"}, "custom").set_domain("com.microsoft");
  b.Output("am").Output("r").Output("p").Output("idx").Output("g");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 4u);
  EXPECT_EQ(r.unsupported[0].ToString(), "node 0 'pad' (Pad): negative pads (cropping)");
  EXPECT_EQ(r.unsupported[1].ToString(),
            "node 1 'relu' (Relu): attribute 'made_up' of Relu is not supported");
  EXPECT_EQ(r.unsupported[2].ToString(),
            "node 2 'pool' (MaxPool): output 1 'idx' of MaxPool is not supported");
  EXPECT_NE(r.unsupported[3].reason.find("domain 'com.microsoft'"), std::string::npos);
}

TEST(OnnxImport, UnsupportedDtypeNamesTheTensor) {
  ModelBuilder b;
  b.Input("words", {3}, ::onnx::TensorProto::STRING);
  b.Node("Identity", {"words"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_NE(r.unsupported[0].reason.find("graph input 'words' has dtype STRING"), std::string::npos)
      << r.unsupported[0].reason;
}

TEST(OnnxImport, ShapeMismatchIsAnErrorNamingTheNode) {
  ModelBuilder b;
  b.Input("x", {2, 3}).Input("y", {4, 5});
  b.Node("MatMul", {"x", "y"}, {"z"}, "mm");
  b.Output("z");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::kType);
  try {
    b.Import();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.onnx: node 0 'mm' (MatMul): matmul: inner dims"),
              std::string::npos)
        << e.what();
  }
}

TEST(OnnxImport, OldOpsetVersionsOfChangedOpsAreExplained) {
  ModelBuilder b(4);
  b.Input("x", {2, 3}).Input("s", {2}, ::onnx::TensorProto::INT64);
  b.Node("Reshape", {"x", "s"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  // The op and both versions: the model's, and those Kiln implements.
  EXPECT_NE(r.unsupported[0].reason.find("Reshape version 1 (opset 4) is not supported: Kiln "
                                         "implements Reshape versions 5, 13, 14"),
            std::string::npos)
      << r.unsupported[0].reason;
}

TEST(OnnxImport, SupportedOpsListIsNotEmpty) {
  std::vector<std::string> ops = SupportedOnnxOps();
  for (const char* op :
       {"MatMul", "Gemm", "Conv", "Relu", "Softmax", "LayerNormalization", "Reshape", "Transpose",
        "Gather", "Shape", "Concat", "Slice", "Unsqueeze"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  }
}

TEST(OnnxImport, SixteenBitMatMulAndSoftmaxSumInFloat32AndRoundOnce) {
  // As ONNX Runtime's kernels and ONNX's reference compute them: a float16 MatMul widens its
  // products and sums to float32 (matmul's out_dtype) and rounds once; Softmax likewise.
  ModelBuilder b(13);
  b.Input("a", {4, 8}, ::onnx::TensorProto::FLOAT16)
      .Input("b", {8, 3}, ::onnx::TensorProto::FLOAT16)
      .Output("y");
  b.Node("MatMul", {"a", "b"}, {"ab"});
  b.Node("Softmax", {"ab"}, {"y"});
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((4, 3), \"float16\")");
  EXPECT_EQ(CalledOps(m),
            (std::vector<std::string>{"matmul", "astype", "astype", "nn.softmax", "astype"}));
}

TEST(OnnxImport, SixteenBitGemmScalesAndAddsInFloat32) {
  ModelBuilder b(13);
  b.Input("a", {4, 8}, ::onnx::TensorProto::FLOAT16)
      .Input("b", {3, 8}, ::onnx::TensorProto::FLOAT16)
      .Input("c", {3}, ::onnx::TensorProto::FLOAT16)
      .Output("y");
  ::onnx::NodeProto& gemm = b.Node("Gemm", {"a", "b", "c"}, {"y"});
  SetInt(gemm, "transB", 1);
  SetFloat(gemm, "alpha", 0.5f);
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((4, 3), \"float16\")");
  EXPECT_EQ(CalledOps(m),
            (std::vector<std::string>{"linear", "multiply", "astype", "add", "astype"}));
}

TEST(OnnxImport, FloatReduceMaxOfOnlyMinusInfinityIsMinusInfinity) {
  // Relax's max starts from the lowest finite float (as TVM's does); ONNX's ReduceMax of a
  // slice of -inf only is -inf, so the importer marks such slices: max(x != -inf) and a where.
  ModelBuilder b(18);
  b.Input("x", {2, 5}).Output("y");
  b.InitInts("axes", {1}, {1});
  b.Node("ReduceMax", {"x", "axes"}, {"y"});
  std::vector<std::string> ops = CalledOps(b.Import());
  EXPECT_EQ(ops, (std::vector<std::string>{"max", "not_equal", "astype", "max", "equal", "where"}));
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
