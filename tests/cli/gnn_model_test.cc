// The bundled GCN layers (examples/models/gcn_layer, gcn_layer_nd: Gather -> Mul ->
// ScatterElements or ScatterND, imported as CSR SpMM) from the model to the artifact: the
// kernel the front end emits is the sparse task `tune sparse` tunes (same structural hash), the
// model's task carries its structure and gets a reference over it, `tune compile` (untuned) and
// `tune infer` reproduce ONNX Runtime's output, and `tune run` measures the sparse task correct
// on its reference (on the CPU in the "sparse-cpu" space; on lavapipe's Vulkan in "sparse-gpu"),
// after which the compiled model with the tuned kernel still matches.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/sparse/model_task_reference.h"
#include "compiler/sparse/sparse_workloads.h"
#include "ir/frontend/onnx/csr_spmm_kernel.h"
#include "ir/frontend/onnx/tensor_proto.h"
#include "ir/model/model_file.h"
#include "ir/model/model_tasks.h"
#include "ir/relax/text/printer.h"
#include "ir/sparse/csr_kernel_text.h"
#include "ir/sparse/csr_matrix.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/measurer.h"
#include "runtime/model/npy.h"
#include "tune_process_test.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;

std::string ModelDir(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + name;
}

TEST(GnnSpmmKernel, IsTheWorkloadOfTheSameSparseTask) {
  ir::sparse::CsrMatrix a = ir::sparse::CsrFromEntries(
      4, 3, {{0, 1, 1.0}, {1, 0, 2.0}, {1, 2, 0.5}, {2, 2, 1.0}, {3, 0, 0.0}});
  ir::PrimFunc from_model = ir::frontend::onnx::CsrSpmmKernel(a, 16);
  ir::PrimFunc tuned = compiler::sparse::CsrWorkload(
      compiler::sparse::ProblemOf(compiler::sparse::SparseOp::kSpmm, a, 16));
  EXPECT_TRUE(ir::StructuralEqual(from_model, tuned));
  EXPECT_EQ(ir::StructuralHash(from_model), ir::StructuralHash(tuned));
}

class GcnModel : public ::testing::TestWithParam<std::string> {};

TEST_P(GcnModel, ItsSparseTaskCarriesTheStructureAndGetsAReference) {
  std::string path = ModelDir(GetParam()) + "/model.onnx";
  ir::model::ModelTasks model =
      ir::model::ExtractModelTasks(path, runtime::ReadWholeFile(path), {});
  int sparse = 0;
  for (const ir::model::ModelTask& t : model.tasks) {
    if (!compiler::sparse::IsSparseKernel(t.func)) {
      EXPECT_TRUE(t.constant_index_args.empty()) << t.name;
      continue;
    }
    ++sparse;
    ASSERT_EQ(t.constant_index_args.count(0), 1u) << t.name;
    ASSERT_EQ(t.constant_index_args.count(1), 1u) << t.name;
    EXPECT_EQ(t.constant_index_args.at(0).numel(), 301);  // 300 rows + 1
    fs::path cache = fs::temp_directory_path() / ("kiln-gcn-ref-" + std::to_string(::getpid()));
    std::shared_ptr<const runtime::Reference> ref =
        compiler::sparse::ModelTaskReference(t.func, t.constant_index_args, 1, cache.string());
    ASSERT_NE(ref, nullptr);
    EXPECT_EQ(ref->workload_hash, ir::StructuralHashHex(t.func));
    fs::remove_all(cache);
  }
  EXPECT_EQ(sparse, 1);
}

INSTANTIATE_TEST_SUITE_P(Layers, GcnModel, ::testing::Values("gcn_layer", "gcn_layer_nd"));

class GcnCommandTest : public testing::TuneProcessTest {
 protected:
  std::string Data(const std::string& model, const std::string& file) const {
    return ModelDir(model) + "/test_data_set_0/" + file;
  }
  // `tune compile MODEL` (the bundled ONNX file, or `file` when given) into DIR/<model>.kiln,
  // with the database `db` or none.
  std::string Compile(const std::string& model, const std::string& db = "",
                      const std::string& file = "") {
    std::string artifact = (dir_ / (model + ".kiln")).string();
    std::vector<std::string> args = {file.empty() ? ModelDir(model) + "/model.onnx" : file,
                                     "--target",
                                     "llvm",
                                     "-o",
                                     artifact,
                                     "--json"};
    if (db.empty()) {
      args.push_back("--no-db");
    } else {
      args.insert(args.end(), {"--db", db});
    }
    runtime::ProcessResult run = RunTune("compile", args, {}, 300);
    EXPECT_TRUE(run.ok()) << run.output;
    return artifact;
  }
  // `tune run` of gcn_layer for 12 trials on `target`: its sparse task (the JSON report's),
  // which must have been measured correct on its reference, never a wrong result.
  nlohmann::json TuneSparseTask(const std::string& target, const std::string& db) {
    runtime::ProcessResult run =
        RunTune("run",
                {ModelDir("gcn_layer") + "/model.onnx", "--target", target, "--trials", "12",
                 "--trials-per-round", "4", "--population", "16", "--threads", "1", "--cost-model",
                 "random", "--min-repeat-ms", "1", "--db", db, "--json"},
                {}, 500);
    EXPECT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
    nlohmann::json out = LastJson(run);
    nlohmann::json sparse;
    for (const nlohmann::json& task : out["tasks"]) {
      if (task["name"].get<std::string>().find("csr_spmm") == std::string::npos) continue;
      EXPECT_TRUE(sparse.is_null()) << "two sparse tasks: " << out.dump();
      sparse = task;
    }
    EXPECT_FALSE(sparse.is_null()) << out.dump();
    if (sparse.is_null()) return sparse;
    SCOPED_TRACE(sparse.dump());
    EXPECT_GT(sparse["trials"].get<int64_t>(), 0);
    EXPECT_GT(sparse["best_latency_s"].get<double>(), 0);
    EXPECT_GT(sparse["best_gflops"].get<double>(), 0);  // 2 * nnz * feat
    EXPECT_EQ(sparse["errors"].value("wrong_result", 0), 0);
    EXPECT_TRUE(sparse["best_trace"].is_array());
    return sparse;
  }

  // `tune infer` on the committed input: the output must be ONNX Runtime's.
  void ExpectInferMatchesOnnxRuntime(const std::string& model, const std::string& artifact) {
    std::string input = (dir_ / "x.npy").string();
    runtime::model::WriteNpy(
        input, ir::frontend::onnx::ReadTensorProtoFile(Data(model, "input_0.pb")).value);
    runtime::ProcessResult run = RunTune(
        "infer", {artifact, "--input", "x=" + input, "--output", (dir_ / "out").string(), "--json"},
        {}, 120);
    ASSERT_TRUE(run.ok()) << run.output;
    nlohmann::json j = LastJson(run);
    ASSERT_EQ(j["outputs"].size(), 1u);
    ir::HostTensor actual = runtime::model::ReadNpy(j["outputs"][0]["path"]);
    ir::HostTensor expected =
        ir::frontend::onnx::ReadTensorProtoFile(Data(model, "output_0.pb")).value;
    ir::TensorComparison c = ir::CompareTensors(expected, actual, 1e-4, 1e-5);
    EXPECT_TRUE(c.ok) << c.message;
  }
};

TEST_F(GcnCommandTest, UntunedCompileAndInferMatchOnnxRuntime) {
  for (const std::string model : {"gcn_layer", "gcn_layer_nd"}) {
    SCOPED_TRACE(model);
    ExpectInferMatchesOnnxRuntime(model, Compile(model));
  }
}

// The model as a Relax module whose call_tir passes the structure (indptr, indices, values) as
// constants, printed as TVMScript with its metadata and read back: its sparse task gets the
// same reference, and the compiled module computes ONNX Runtime's output.
TEST_F(GcnCommandTest, ARelaxModuleWhoseCallTirTakesTheStructureCompilesAndRuns) {
  const std::string relax = (dir_ / "gcn_layer.relax").string();
  {
    ir::model::ModelInput input = ir::model::LoadModel(ModelDir("gcn_layer") + "/model.onnx");
    std::ofstream(relax) << ir::relax::PrintModule(input.module);
  }
  const std::string text = runtime::ReadWholeFile(relax);
  ASSERT_NE(text.find("R.call_tir(cls.csr_spmm, (metadata["), std::string::npos) << text;
  ir::model::ModelTasks model = ir::model::ExtractModelTasks(relax, text, {});
  int sparse = 0;
  for (const ir::model::ModelTask& t : model.tasks) {
    if (!compiler::sparse::IsSparseKernel(t.func)) continue;
    ++sparse;
    EXPECT_EQ(t.constant_index_args.count(0) + t.constant_index_args.count(1), 2u);
    EXPECT_DOUBLE_EQ(t.flop, 2.0 * t.constant_index_args.at(1).numel() * 16);
  }
  EXPECT_EQ(sparse, 1);
  ExpectInferMatchesOnnxRuntime("gcn_layer", Compile("gcn_layer", "", relax));
}

// A Relax module whose call_tir takes the structure from the model's inputs: random inputs
// would index out of range, so `tune run` does not search the task: the job fails (its only
// task has no candidate), saying why, with nothing measured.
TEST_F(GcnCommandTest, ASparseTaskWhoseStructureIsAnInputIsNotTunedAndSaysWhy) {
  std::string kernel = ir::sparse::CsrKernelText(
      {.op = ir::sparse::CsrKernelOp::kSpmm, .rows = 4, .cols = 4, .nnz = 6, .feat = 8});
  std::string indented;
  for (size_t start = 0; start < kernel.size();) {
    const size_t end = kernel.find('\n', start);
    indented += "    " + kernel.substr(start, end - start) + "\n";
    start = end == std::string::npos ? kernel.size() : end + 1;
  }
  const std::string relax =
      Write("runtime_structure.relax",
            "# from tvm.script import ir as I\n# from tvm.script import relax as R\n"
            "# from tvm.script import tir as T\n\n@I.ir_module\nclass Module:\n" +
                indented +
                "\n    @R.function\n"
                "    def main(indptr: R.Tensor((5,), dtype=\"int32\"), indices: R.Tensor((6,), "
                "dtype=\"int32\"), data: R.Tensor((6,), dtype=\"float32\"), b: R.Tensor((4, 8), "
                "dtype=\"float32\")) -> R.Tensor((4, 8), dtype=\"float32\"):\n"
                "        cls = Module\n"
                "        with R.dataflow():\n"
                "            c = R.call_tir(cls.csr_spmm, (indptr, indices, data, b), "
                "out_sinfo=R.Tensor((4, 8), dtype=\"float32\"))\n"
                "            R.output(c)\n"
                "        return c\n");
  runtime::ProcessResult run = RunTune("run",
                                       {relax, "--trials", "4", "--threads", "1", "--min-repeat-ms",
                                        "1", "--db", (dir_ / "tuning.db").string(), "--json"},
                                       {}, 300);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("whose structure (indptr, indices) is an input of the model"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("0 trials"), std::string::npos) << run.output;
}

TEST_F(GcnCommandTest, TuningMeasuresTheSparseTaskOnItsReference) {
  std::string db = (dir_ / "tuning.db").string();
  nlohmann::json task = TuneSparseTask("llvm", db);
  EXPECT_NE(task["best_trace"].dump().find("\"Parallel\""), std::string::npos);
  // The reference was made over the model's structure, under the cache folder.
  bool stored = false;
  for (const auto& entry : fs::directory_iterator(dir_ / "cache" / "references")) {
    stored |= entry.path().filename().string().rfind("sparse-", 0) == 0;
  }
  EXPECT_TRUE(stored);
  // The best records compiled in: the model still computes ONNX Runtime's output.
  ExpectInferMatchesOnnxRuntime("gcn_layer", Compile("gcn_layer", db));
}

// On lavapipe where the machine has no GPU: the "sparse-gpu" space and the Vulkan measurer.
TEST_F(GcnCommandTest, TuningOnVulkanMeasuresTheSparseTaskOnItsReference) {
  if (const std::string why = VulkanUnavailable(); !why.empty()) {
    GTEST_SKIP() << "skipped: no Vulkan device: " << why;
  }
  nlohmann::json task = TuneSparseTask("vulkan", (dir_ / "tuning.db").string());
  EXPECT_NE(task["best_trace"].dump().find("blockIdx"), std::string::npos);
}

}  // namespace
}  // namespace kiln::cli
