// Ops whose inputs or attributes changed between opsets 11 and 17: axes as an attribute or an
// input (ReduceSum, Squeeze, Unsqueeze, Split), Slice bounds as attributes or inputs, Clip
// bounds, and Softmax's 2-D coercion before opset 13.
#include <gtest/gtest.h>

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

TEST(OnnxOpsets, ReduceSumAxesAttributeThenInput) {
  ModelBuilder old(11);
  old.Input("x", {"n", 4, 5});
  auto& r = old.Node("ReduceSum", {"x"}, {"y"});
  SetInts(r, "axes", {1});
  SetInt(r, "keepdims", 0);
  old.Output("y");
  EXPECT_EQ(ReturnInfo(old.Import()), "R.Tensor((n, 5), \"float32\")");

  ModelBuilder now(13);
  now.Input("x", {"n", 4, 5});
  now.InitInts("axes", {-1}, {1});
  now.Node("ReduceSum", {"x", "axes"}, {"y"});
  now.Output("y");
  EXPECT_EQ(ReturnInfo(now.Import()), "R.Tensor((n, 4, 1), \"float32\")");

  // Without axes and with noop_with_empty_axes, the input passes through.
  ModelBuilder noop(13);
  noop.Input("x", {2, 3});
  SetInt(noop.Node("ReduceSum", {"x"}, {"y"}), "noop_with_empty_axes", 1);
  noop.Output("y");
  EXPECT_EQ(ReturnInfo(noop.Import()), "R.Tensor((2, 3), \"float32\")");
}

TEST(OnnxOpsets, SqueezeAndUnsqueezeAxes) {
  ModelBuilder old(11);
  old.Input("x", {1, "n", 1});
  SetInts(old.Node("Squeeze", {"x"}, {"s"}), "axes", {0});
  SetInts(old.Node("Unsqueeze", {"s"}, {"y"}), "axes", {0, 3});
  old.Output("y");
  EXPECT_EQ(ReturnInfo(old.Import()), "R.Tensor((1, n, 1, 1), \"float32\")");

  ModelBuilder now(13);
  now.Input("x", {1, "n", 1});
  now.InitInts("a0", {0}, {1});
  now.InitInts("a03", {0, 3}, {2});
  now.Node("Squeeze", {"x", "a0"}, {"s"});
  now.Node("Unsqueeze", {"s", "a03"}, {"y"});
  now.Output("y");
  EXPECT_EQ(ReturnInfo(now.Import()), "R.Tensor((1, n, 1, 1), \"float32\")");
}

TEST(OnnxOpsets, SplitSizesAttributeThenInput) {
  ModelBuilder old(11);
  old.Input("x", {6, "n"});
  auto& s = old.Node("Split", {"x"}, {"a", "b"});
  SetInts(s, "split", {2, 4});
  old.Output("a").Output("b");
  EXPECT_EQ(ReturnInfo(old.Import()),
            "R.Tuple(R.Tensor((2, n), \"float32\"), R.Tensor((4, n), \"float32\"))");

  ModelBuilder now(13);
  now.Input("x", {6, "n"});
  now.InitInts("sizes", {1, 5}, {2});
  now.Node("Split", {"x", "sizes"}, {"a", "b"});
  now.Output("a").Output("b");
  EXPECT_EQ(ReturnInfo(now.Import()),
            "R.Tuple(R.Tensor((1, n), \"float32\"), R.Tensor((5, n), \"float32\"))");

  ModelBuilder equal(13);
  equal.Input("x", {6, 2});
  equal.Node("Split", {"x"}, {"a", "b", "c"});
  equal.Output("c");
  EXPECT_EQ(ReturnInfo(equal.Import()), "R.Tensor((2, 2), \"float32\")");
}

TEST(OnnxOpsets, SliceAttributesThenInputs) {
  ModelBuilder old(9);
  old.Input("x", {10, "n"});
  auto& s = old.Node("Slice", {"x"}, {"y"});
  SetInts(s, "starts", {2});
  SetInts(s, "ends", {-1});
  SetInts(s, "axes", {0});
  old.Output("y");
  EXPECT_EQ(ReturnInfo(old.Import()), "R.Tensor((7, n), \"float32\")");

  ModelBuilder now(13);
  now.Input("x", {10, "n"});
  now.InitInts("starts", {1, 0}, {2});
  now.InitInts("ends", {INT64_MAX, INT64_MAX}, {2});
  now.InitInts("axes", {0, 1}, {2});
  now.InitInts("steps", {3, 2}, {2});
  now.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  now.Output("y");
  EXPECT_EQ(ReturnInfo(now.Import()), "R.Tensor((3, (n + 1) // 2), \"float32\")");

  // Reversing with a negative step.
  ModelBuilder rev(13);
  rev.Input("x", {5});
  rev.InitInts("starts", {-1}, {1});
  rev.InitInts("ends", {INT64_MIN}, {1});
  rev.InitInts("steps", {-1}, {1});
  rev.InitInts("axes", {0}, {1});
  rev.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  rev.Output("y");
  EXPECT_EQ(ReturnInfo(rev.Import()), "R.Tensor((5,), \"float32\")");
}

TEST(OnnxOpsets, ClipBoundsAttributesThenInputs) {
  ModelBuilder old(6);
  old.Input("x", {3});
  auto& c = old.Node("Clip", {"x"}, {"y"});
  SetFloat(c, "min", -1);
  SetFloat(c, "max", 1);
  old.Output("y");
  relax::IRModule m = old.Import();
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"clip"}));
  EXPECT_NE(relax::DebugPrint(m).find("max=1"), std::string::npos) << relax::DebugPrint(m);

  ModelBuilder now(13);
  now.Input("x", {3});
  now.InitFloats("lo", {0}, {});
  now.Node("Clip", {"x", "lo"}, {"y"});
  now.Output("y");
  EXPECT_EQ(CalledOps(now.Import()), (std::vector<std::string>{"maximum"}));
}

TEST(OnnxOpsets, SoftmaxCoercesTo2DBeforeOpset13) {
  ModelBuilder old(11);
  old.Input("x", {2, 3, 4});
  SetInt(old.Node("Softmax", {"x"}, {"y"}), "axis", 1);
  old.Output("y");
  relax::IRModule m = old.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((2, 3, 4), \"float32\")");
  EXPECT_EQ(CalledOps(m), (std::vector<std::string>{"reshape", "nn.softmax", "reshape"}));

  ModelBuilder now(13);
  now.Input("x", {2, 3, 4});
  SetInt(now.Node("Softmax", {"x"}, {"y"}), "axis", 1);
  now.Output("y");
  EXPECT_EQ(CalledOps(now.Import()), (std::vector<std::string>{"nn.softmax"}));
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
