// Operator schema versions (schema_versions.h) and the op versions after opset 17: a node uses
// the newest version of its op not above the model's opset, an op version Kiln does not
// implement is refused naming the op and both versions, and the semantics of the later versions
// (axes as inputs of the Reduce family, Split's num_outputs, Pad's axes and wrap mode,
// GroupNormalization per group and per channel, Gelu, blocked DequantizeLinear). Numerics of
// these ops are checked against ONNX's own node cases by tests/cli's onnx_node_suite_test.
#include <gtest/gtest.h>

#include "ir/frontend/onnx/schema_versions.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::CalledOps;
using testing::ModelBuilder;
using testing::ReturnInfo;
using testing::SetInt;
using testing::SetInts;
using testing::SetString;

TEST(OnnxSchemaVersions, NewestVersionNotAboveTheOpset) {
  EXPECT_EQ(OnnxSchemaVersion("Abs", 21), 13);
  EXPECT_EQ(OnnxSchemaVersion("Abs", 13), 13);
  EXPECT_EQ(OnnxSchemaVersion("Abs", 12), 6);
  EXPECT_EQ(OnnxSchemaVersion("ReduceSum", 18), 13);
  EXPECT_EQ(OnnxSchemaVersion("ReduceMean", 18), 18);
  EXPECT_EQ(OnnxSchemaVersion("Gelu", 19), std::nullopt);  // first defined at 20
  EXPECT_EQ(OnnxSchemaVersion("NotAnOp", 21), std::nullopt);
  EXPECT_GE(NewestKnownOpset(), 21);
}

TEST(OnnxSchemaVersions, ModelAtOpset21UsesEachOpsOwnVersion) {
  ModelBuilder b(21);
  b.Input("x", {"n", 8});
  b.Node("Abs", {"x"}, {"a"});  // version 13
  b.Node("Relu", {"a"}, {"r"});
  auto& flat = b.Node("Flatten", {"r"}, {"y"});  // version 21
  SetInt(flat, "axis", 1);
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_TRUE(r.ok()) << r.ToError().what();
  EXPECT_EQ(r.opset, 21);
  EXPECT_EQ(ReturnInfo(*r.module), "R.Tensor((n, 8), \"float32\")");
}

TEST(OnnxSchemaVersions, UnimplementedVersionNamesTheOpAndBothVersions) {
  ModelBuilder b(10);
  b.Input("x", {1, 1, 2, 2});
  b.InitFloats("scales", {1, 1, 2, 2}, {4});
  b.Node("Upsample", {"x", "scales"}, {"y"}, "up");  // version 10: deprecated
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_EQ(r.unsupported[0].ToString(),
            "node 0 'up' (Upsample): Upsample version 10 (opset 10) is not supported: Kiln "
            "implements Upsample versions 7 and 9, and the model's version changed the op's "
            "semantics");
}

TEST(OnnxSchemaVersions, OpNewerThanTheOpsetIsMalformed) {
  ModelBuilder b(19);
  b.Input("x", {4});
  b.Node("Gelu", {"x"}, {"y"}, "gelu");
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].kind, ErrorKind::kParse);
  EXPECT_EQ(r.errors[0].ToString(),
            "node 0 'gelu' (Gelu): Gelu does not exist at opset 19 of ai.onnx: its first version "
            "is 20");
}

TEST(OnnxSchemaVersions, OpsetNewerThanKnownIsRefused) {
  ModelBuilder b(NewestKnownOpset() + 1);
  b.Input("x", {4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_NE(r.unsupported[0].reason.find("is newer than the newest Kiln knows"), std::string::npos)
      << r.unsupported[0].reason;
}

TEST(OnnxOpsetsAfter17, ReduceAxesAreAnInputFromVersion18) {
  ModelBuilder old(17);
  old.Input("x", {"n", 4, 5});
  SetInts(old.Node("ReduceMean", {"x"}, {"y"}), "axes", {1});
  old.Output("y");
  EXPECT_EQ(ReturnInfo(old.Import()), "R.Tensor((n, 1, 5), \"float32\")");

  ModelBuilder now(18);
  now.Input("x", {"n", 4, 5});
  now.InitInts("axes", {-1}, {1});
  SetInt(now.Node("ReduceMax", {"x", "axes"}, {"y"}), "keepdims", 0);
  now.Output("y");
  EXPECT_EQ(ReturnInfo(now.Import()), "R.Tensor((n, 4), \"float32\")");

  // The attribute is gone in version 18.
  ModelBuilder stale(18);
  stale.Input("x", {2, 3});
  SetInts(stale.Node("ReduceMean", {"x"}, {"y"}), "axes", {1});
  stale.Output("y");
  OnnxImportResult r = stale.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_NE(r.unsupported[0].reason.find("attribute 'axes' of ReduceMean is not supported"),
            std::string::npos)
      << r.unsupported[0].reason;

  // An empty reduced axis gives the reduction's identity, a constant.
  ModelBuilder empty(18);
  empty.Input("x", {int64_t{2}, int64_t{0}, int64_t{3}});
  empty.InitInts("axes", {1}, {1});
  empty.Node("ReduceProd", {"x", "axes"}, {"y"});
  empty.Output("y");
  // A declared 0 reads as an unknown dim (as exporters write it), bound here to 0.
  ImportOptions zero;
  zero.dim_values["x_dim1"] = 0;
  relax::IRModule m = empty.Import(zero);
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((2, 1, 3), \"float32\")");
  EXPECT_TRUE(CalledOps(m).empty());
}

TEST(OnnxOpsetsAfter17, SplitNumOutputsGivesASmallerLastChunk) {
  ModelBuilder b(18);
  b.Input("x", {7, "n"});
  SetInt(b.Node("Split", {"x"}, {"a", "b", "c"}), "num_outputs", 3);
  b.Output("a").Output("c");
  EXPECT_EQ(ReturnInfo(b.Import()),
            "R.Tuple(R.Tensor((3, n), \"float32\"), R.Tensor((1, n), \"float32\"))");

  ModelBuilder wrong(18);
  wrong.Input("x", {6});
  SetInt(wrong.Node("Split", {"x"}, {"a", "b"}), "num_outputs", 3);
  wrong.Output("a");
  OnnxImportResult r = wrong.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("num_outputs is 3, but the node has 2 outputs"),
            std::string::npos)
      << r.errors[0].reason;
}

TEST(OnnxOpsetsAfter17, PadAxesAndWrap) {
  ModelBuilder b(19);
  b.Input("x", {2, 3});
  b.InitInts("pads", {2, 1}, {2});
  b.InitInts("axes", {-1}, {1});
  SetString(b.Node("Pad", {"x", "pads", "", "axes"}, {"y"}), "mode", "wrap");
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((2, 6), \"float32\")");
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"take"}));

  // Before version 19 wrap is not a mode.
  ModelBuilder old(18);
  old.Input("x", {2, 3});
  old.InitInts("pads", {0, 1, 0, 1}, {4});
  SetString(old.Node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  old.Output("y");
  OnnxImportResult r = old.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("mode 'wrap' is not one of constant, edge, reflect"),
            std::string::npos)
      << r.errors[0].reason;
}

TEST(OnnxOpsetsAfter17, GroupNormalizationPerGroupThenPerChannel) {
  for (int64_t opset : {18, 21}) {
    SCOPED_TRACE(opset);
    ModelBuilder b(opset);
    int64_t params = opset == 18 ? 2 : 4;  // per group, then per channel
    b.Input("x", {"n", 4, 3, 3});
    b.InitFloats("scale", std::vector<float>(params, 1.5f), {params});
    b.InitFloats("bias", std::vector<float>(params, 0.5f), {params});
    SetInt(b.Node("GroupNormalization", {"x", "scale", "bias"}, {"y"}), "num_groups", 2);
    b.Output("y");
    relax::IRModule m = b.Import();
    EXPECT_EQ(ReturnInfo(m), "R.Tensor((n, 4, 3, 3), \"float32\")");
    std::vector<std::string> ops = CalledOps(m);
    EXPECT_EQ(ops.back(), "nn.group_norm");
  }
}

TEST(OnnxOpsetsAfter17, GeluApproximations) {
  for (const char* approximate : {"none", "tanh"}) {
    ModelBuilder b(20);
    b.Input("x", {4});
    SetString(b.Node("Gelu", {"x"}, {"y"}), "approximate", approximate);
    b.Output("y");
    EXPECT_EQ(CalledOps(b.Import()),
              (std::vector<std::string>{std::string(approximate) == "none" ? "nn.gelu"
                                                                           : "nn.gelu_tanh"}));
  }
}

TEST(OnnxOpsetsAfter17, BlockedDequantizeRepeatsScalesAlongTheAxis) {
  ModelBuilder b(21);
  b.Input("x", {2, 5}, ::onnx::TensorProto::INT8);
  b.InitFloats("scale", {1, 2, 3, 4, 5, 6}, {2, 3});
  auto& dq = b.Node("DequantizeLinear", {"x", "scale"}, {"y"});
  SetInt(dq, "axis", 1);
  SetInt(dq, "block_size", 2);
  b.Output("y");
  EXPECT_EQ(ReturnInfo(b.Import()), "R.Tensor((2, 5), \"float32\")");
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx

namespace kiln::ir::frontend::onnx {
namespace {

// The models make_testdata.py writes with the op versions after 17 (also the fuzzer's seeds).
TEST(OnnxOpsetsAfter17, SeedModelsImport) {
  const std::pair<const char*, const char*> kModels[] = {
      {"opset18_ops", "R.Tensor((n, 2, 9, 9), \"float32\")"},
      {"opset21_ops", "R.Tensor((n, 32), \"float32\")"},
      {"opset23_ops", "R.Tensor((1, 5, 16), \"float32\")"},
      {"opset28_ops", "R.Tuple(R.Tensor((3,), \"int32\"), R.Tensor((4, 3), \"float32\"))"},
  };
  for (const auto& [name, ret] : kModels) {
    SCOPED_TRACE(name);
    OnnxImportResult r = TryImportOnnx(testing::TestData(std::string("models/") + name + ".onnx"));
    ASSERT_TRUE(r.ok()) << r.ToError().what();
    EXPECT_EQ(ReturnInfo(*r.module), ret);
  }
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
