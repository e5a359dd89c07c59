// The tasks of a model over its shape buckets: one specialisation per bucket, tasks identical
// across buckets merged and weighted, defaults for dims left free, and errors that name the dim,
// the flag or the bucket.
#include "ir/model/model_tasks.h"

#include <gtest/gtest.h>

#include "ir/structural.h"
#include "support/error.h"
#include "support/file.h"
#include "tests/ir/frontend/onnx_test_util.h"

namespace kiln::ir::model {
namespace {

using frontend::onnx::testing::ModelBuilder;

std::string Example(const std::string& model) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx";
}

ModelTasks Extract(const std::string& path, ModelTaskOptions options) {
  return ExtractModelTasks(path, ReadFile(path), options);
}

std::string ErrorOf(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(ModelTasks, EachBucketSpecialisesTheModel) {
  ModelTaskOptions options;
  options.buckets = ParseBucketFlags({"batch=4,8"}, {}, {"batch=8:3"});
  ModelTasks m = Extract(Example("mlp"), options);
  EXPECT_EQ(m.format, "onnx");
  EXPECT_EQ(m.symbolic_dims, (std::vector<std::string>{"batch"}));
  EXPECT_TRUE(m.defaulted.empty());
  ASSERT_EQ(m.buckets.size(), 2u);
  EXPECT_EQ(m.buckets[0].bucket.Label(), "batch=4");
  EXPECT_EQ(m.buckets[1].bound.at("batch"), 8);
  ASSERT_EQ(m.buckets[0].tasks.size(), 3u);
  ASSERT_EQ(m.tasks.size(), 6u);  // every kernel depends on the batch
  for (size_t b = 0; b < 2; ++b) {
    for (auto [task, calls] : m.buckets[b].tasks) {
      ASSERT_EQ(m.tasks[task].buckets.size(), 1u);
      EXPECT_EQ(m.tasks[task].buckets[0].first, b);
      EXPECT_EQ(calls, 1);
      // The bucket's weight scales its tasks' weights.
      EXPECT_DOUBLE_EQ(m.tasks[task].weight, b == 0 ? 1.0 : 3.0);
      // The workload has the bucket's batch as its first dim.
      auto x = m.tasks[task].func->BufferOf(m.tasks[task].func->params[0]);
      ASSERT_TRUE(x.has_value());
      EXPECT_EQ(AsConstInt((*x)->shape[0]).value_or(-1), b == 0 ? 4 : 8);
    }
  }
}

TEST(ModelTasks, AKernelIdenticalAcrossBucketsIsOneTask) {
  // relu(x) depends on the batch; y * y does not, so both buckets share it.
  ModelBuilder b;
  b.Input("x", {"batch", 8}).Input("y", {4}).Output("rx").Output("yy");
  b.Node("Relu", {"x"}, {"rx"});
  b.Node("Mul", {"y", "y"}, {"yy"});
  ModelTaskOptions options;
  options.buckets = ParseBucketFlags({"batch=1,2,4"}, {}, {});
  ModelTasks m = ExtractModelTasks("two.onnx", b.Bytes(), options);
  ASSERT_EQ(m.buckets.size(), 3u);
  ASSERT_EQ(m.tasks.size(), 4u);  // three relus, one multiply
  int shared = 0;
  for (const ModelTask& t : m.tasks) {
    if (t.buckets.size() == 3) {
      ++shared;
      EXPECT_DOUBLE_EQ(t.weight, 3.0);
    } else {
      EXPECT_EQ(t.buckets.size(), 1u);
    }
  }
  EXPECT_EQ(shared, 1);
}

TEST(ModelTasks, FreeDimsTakeTheDefault) {
  ModelTaskOptions options;
  options.default_dim = 32;
  ModelTasks m = Extract(Example("transformer_block"), options);
  ASSERT_EQ(m.buckets.size(), 1u);
  EXPECT_TRUE(m.buckets[0].bucket.dims.empty());
  EXPECT_EQ(m.defaulted.at("seq_len"), 32);
  EXPECT_EQ(m.DefaultedText(), "seq_len=32");
  EXPECT_EQ(m.tasks.size(), 11u);
  options.dims = {{"seq_len", 16}};
  EXPECT_TRUE(Extract(Example("transformer_block"), options).defaulted.empty());
}

TEST(ModelTasks, ErrorsNameTheDimTheFlagOrTheBucket) {
  ModelTaskOptions unknown;
  unknown.dims = {{"seq", 16}};
  EXPECT_NE(ErrorOf([&] { Extract(Example("transformer_block"), unknown); }, ErrorKind::kParse)
                .find("--dim seq names the dim 'seq', which the model's inputs do not have (its "
                      "symbolic dims: seq_len)"),
            std::string::npos);
  ModelTaskOptions twice;
  twice.dims = {{"seq_len", 16}};
  twice.buckets = ParseBucketFlags({"seq_len=16"}, {}, {});
  EXPECT_NE(ErrorOf([&] { Extract(Example("transformer_block"), twice); }, ErrorKind::kParse)
                .find("seq_len is both bound (--dim) and bucketed (--bucket)"),
            std::string::npos);
  // A bucket value the model cannot take: its reshape needs n * 8 == 32.
  ModelBuilder b;
  b.Input("x", {"n", 8}).Output("y").InitInts("shape", {32}, {1});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  ModelTaskOptions bad;
  bad.buckets = ParseBucketFlags({"n=4,3"}, {}, {});
  std::string message =
      ErrorOf([&] { ExtractModelTasks("r.onnx", b.Bytes(), bad); }, ErrorKind::kType);
  EXPECT_NE(message.find("bucket n=3:"), std::string::npos) << message;
}

// A model whose shapes hold only at certain values of a dim the user did not give (an image
// height exported as unknown): the error names the defaulted value and asks for --dim.
TEST(ModelTasks, AnErrorAfterDefaultingADimNamesTheDefault) {
  ModelBuilder b;
  b.Input("x", {"n", "h"}).Output("y").InitInts("shape", {4, 48}, {2});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  ModelTaskOptions options;
  options.dims = {{"n", 4}};
  std::string message =
      ErrorOf([&] { ExtractModelTasks("r.onnx", b.Bytes(), options); }, ErrorKind::kType);
  EXPECT_NE(message.find("the dims not given took the default value: h=128"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--dim NAME=VALUE"), std::string::npos) << message;
  options.dims["h"] = 48;
  EXPECT_TRUE(ExtractModelTasks("r.onnx", b.Bytes(), options).defaulted.empty());
}

TEST(ModelTasks, RelaxModelsWithSymbolicDimsAreRefused) {
  std::string relax = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        y: R.Tensor((n, 4), "float32") = R.add(x, x)
        return y
)";
  EXPECT_NE(ErrorOf([&] { ExtractModelTasks("m.relax", relax, {}); }, ErrorKind::kUnsupported)
                .find("m.relax: the model has symbolic dims (n)"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::model
