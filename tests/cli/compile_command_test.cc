// `tune compile`, `tune infer` and `tune bench` run as a user runs them: the MLP compiled
// without a database (its kernels untuned, or every matmul task as a library call), run on its
// committed test input through .npy files (the output must be the committed one), benchmarked
// and profiled, and refused once its manifest names another device.
#include <gtest/gtest.h>

#include "ir/frontend/onnx/tensor_proto.h"
#include "runtime/file_util.h"
#include "runtime/model/npy.h"
#include "tune_process_test.h"

namespace kiln::cli {
namespace {

class CompileCommandTest : public testing::TuneProcessTest {
 protected:
  std::string Data(const std::string& file) const {
    return std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/test_data_set_0/" + file;
  }
  // Compiles the MLP (batch 4, the test data's) into DIR/mlp.kiln with `--library POLICY`
  // ("never" keeps the choice out of the timing: every task an untuned kernel).
  std::string CompileMlp(const std::string& library = "never") {
    std::string artifact = (dir_ / "mlp.kiln").string();
    runtime::ProcessResult run = RunTune(
        "compile",
        {std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx", "--target", "llvm",
         "--no-db", "--library", library, "--dim", "batch=4", "-o", artifact, "--json"},
        {}, 300);
    EXPECT_TRUE(run.ok()) << run.output;
    nlohmann::json j = LastJson(run);
    EXPECT_EQ(j["bound_dims"]["batch"], 4);
    if (library == "never") {
      EXPECT_EQ(j["kernels"], 3);
      EXPECT_EQ(j["untuned"], 3);
      EXPECT_EQ(j["library"], 0);
      EXPECT_NE(run.output.find("untuned: fused_linear_relu, fused_linear1_relu1, linear2"),
                std::string::npos)
          << run.output;
    }
    return artifact;
  }

  // `tune infer` on the committed input; the output must be the committed one.
  void ExpectInferReproducesTheTestData(const std::string& artifact) {
    std::string input = (dir_ / "x.npy").string();
    runtime::model::WriteNpy(input,
                             ir::frontend::onnx::ReadTensorProtoFile(Data("input_0.pb")).value);
    runtime::ProcessResult run = RunTune(
        "infer", {artifact, "--input", "x=" + input, "--output", (dir_ / "out").string(), "--json"},
        {}, 120);
    ASSERT_TRUE(run.ok()) << run.output;
    nlohmann::json j = LastJson(run);
    ASSERT_EQ(j["outputs"].size(), 1u);
    ir::HostTensor actual = runtime::model::ReadNpy(j["outputs"][0]["path"]);
    ir::HostTensor expected = ir::frontend::onnx::ReadTensorProtoFile(Data("output_0.pb")).value;
    ir::TensorComparison c = ir::CompareTensors(expected, actual, 1e-4, 1e-5);
    EXPECT_TRUE(c.ok) << c.message;
  }
};

TEST_F(CompileCommandTest, InferReproducesTheTestDataThroughNpyFiles) {
  std::string artifact = CompileMlp();
  ExpectInferReproducesTheTestData(artifact);
  std::string input = (dir_ / "x.npy").string();
  runtime::ProcessResult wrong = RunTune(
      "infer", {artifact, "--input", "y=" + input, "--output", (dir_ / "out").string()}, {}, 60);
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("the model has no input y (its inputs: x)"), std::string::npos)
      << wrong.output;
}

TEST_F(CompileCommandTest, BenchReportsLatencyAndMemory) {
  std::string artifact = CompileMlp();
  runtime::ProcessResult run = RunTune("bench",
                                       {artifact, "--threads", "1", "--repeat", "3", "--warmup",
                                        "1", "--min-repeat-ms", "1", "--json"},
                                       {}, 120);
  ASSERT_TRUE(run.ok()) << run.output;
  nlohmann::json j = LastJson(run);
  EXPECT_GT(j["median_s"].get<double>(), 0);
  EXPECT_EQ(j["repeats_s"].size(), 3u);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["input_shapes"]["x"], nlohmann::json({4, 64}));
  EXPECT_EQ(j["kernel_calls"], 3);
  EXPECT_EQ(j["untuned_tasks"], 3);
  // Two intermediates of 4 x 128 floats, live at once at the middle step.
  EXPECT_EQ(j["arena_bytes"], 2 * 4 * 128 * 4);
  EXPECT_GE(j["peak_bytes"].get<int64_t>(), j["arena_bytes"].get<int64_t>());
}

TEST_F(CompileCommandTest, LibraryCallsReproduceTheTestDataAndShowInTheProfile) {
  std::string artifact = CompileMlp("always");
  ExpectInferReproducesTheTestData(artifact);
  runtime::ProcessResult run = RunTune("bench",
                                       {artifact, "--threads", "1", "--repeat", "2", "--warmup",
                                        "1", "--min-repeat-ms", "1", "--profile", "--json"},
                                       {}, 120);
  ASSERT_TRUE(run.ok()) << run.output;
  nlohmann::json j = LastJson(run);
  ASSERT_TRUE(j["profile"].is_array()) << j.dump();
  int library_nodes = 0;
  for (const nlohmann::json& node : j["profile"]) {
    if (node["kind"] == "library") ++library_nodes;
  }
  // The MLP's three tasks are dense layers: each one library call.
  EXPECT_EQ(library_nodes, 3) << j["profile"].dump();
}

TEST_F(CompileCommandTest, AnArtifactOfAnotherDeviceIsRefused) {
  std::string artifact = CompileMlp();
  std::string manifest_path = artifact + "/manifest.json";
  nlohmann::json m = nlohmann::json::parse(runtime::ReadWholeFile(manifest_path));
  m["device_key"] = "cpu-elsewhere";
  runtime::WriteFileAtomically(manifest_path, m.dump());
  runtime::ProcessResult run = RunTune("bench", {artifact}, {}, 60);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("was compiled for device 'cpu-elsewhere'"), std::string::npos)
      << run.output;
}

// An artifact with shape buckets dispatches per call: the exact bucket, the next larger one
// with padding (the MLP's batch rows are independent), the symbolic fallback past the largest.
TEST_F(CompileCommandTest, ABucketedArtifactChoosesExactPaddedOrFallbackPerCall) {
  std::string artifact = (dir_ / "mlp_buckets.kiln").string();
  runtime::ProcessResult compiled =
      RunTune("compile",
              {std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx", "--target", "llvm",
               "--no-db", "--library", "never", "--bucket", "batch=2,8", "-o", artifact, "--json"},
              {}, 300);
  ASSERT_TRUE(compiled.ok()) << compiled.output;
  nlohmann::json c = LastJson(compiled);
  ASSERT_EQ(c["buckets"].size(), 2u) << c.dump();
  EXPECT_EQ(c["buckets"][0]["name"], "batch=2");
  EXPECT_EQ(c["buckets"][1]["name"], "batch=8");

  struct Case {
    int batch;
    const char* graph;
    bool padded;
  };
  for (const Case& k :
       {Case{2, "bucket batch=2 (exact)", false},
        Case{5, "bucket batch=8 (padded from batch=5)", true}, Case{16, "fallback", false}}) {
    runtime::ProcessResult run =
        RunTune("bench",
                {artifact, "--dim", "batch=" + std::to_string(k.batch), "--threads", "1",
                 "--repeat", "1", "--warmup", "0", "--min-repeat-ms", "0", "--json"},
                {}, 120);
    ASSERT_TRUE(run.ok()) << run.output;
    nlohmann::json j = LastJson(run);
    EXPECT_EQ(j["graph"], k.graph) << j.dump();
    EXPECT_EQ(j["padded"], k.padded) << j.dump();
    EXPECT_EQ(j["input_shapes"]["x"], nlohmann::json({k.batch, 64}));
  }
  // The committed input (batch 4) runs padded into the batch=8 bucket and gives the committed
  // output: the padding rows are cut back off.
  ExpectInferReproducesTheTestData(artifact);
}

}  // namespace
}  // namespace kiln::cli
