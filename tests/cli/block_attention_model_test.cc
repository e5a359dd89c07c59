// The bundled block_attention model (examples/models/block_attention: a masked self-attention
// layer exported densely, whose mask is block-structured, imported as the block-sparse
// attention kernels) from the model to the artifact: the kernels the front end emits are the
// tasks `tune sparse attention` tunes (structurally equal), the model's tasks carry the mask and
// get a reference over it, `tune tasks --sparse-attention` follows the option (auto converts
// this mask: 18% of its blocks), `tune compile` (untuned, and with the attention kept dense) and
// `tune infer` reproduce ONNX Runtime's output, and `tune run` measures the attention tasks correct
// on their references (on the CPU in "sparse-cpu"; on lavapipe's Vulkan in "sparse-gpu"), after
// which the compiled model with the tuned kernels still matches.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/sparse/attention_workloads.h"
#include "compiler/sparse/model_task_reference.h"
#include "ir/frontend/onnx/tensor_proto.h"
#include "ir/model/model_tasks.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/measurer.h"
#include "runtime/model/npy.h"
#include "tune_process_test.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using compiler::sparse::AttentionStage;

constexpr const char* kModel = "block_attention";
// The bundled model's attention (make_models.py's block_attention): kTokens tokens in blocks of
// kBlock, kHeads heads of kHeadDim.
constexpr int64_t kTokens = 1024, kBlock = 32, kHeads = 2, kHeadDim = 32;
// `tune run`'s budget in the tests: a round of kTrialsPerRound for each of the model's kTasks
// tasks (round-robin), so each attention task is measured on its reference; a good schedule is
// not what the tests check.
constexpr int kTasks = 10, kTrialsPerRound = 2;

std::string ModelPath() {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + kModel + "/model.onnx";
}

std::string StringAttr(const ir::PrimFunc& f, const std::string& name) {
  auto it = f->attrs.find(name);
  return it == f->attrs.end() ? "" : it->second.as<ir::StringImmNode>()->value;
}

std::vector<int32_t> Ints(const ir::HostTensor& t) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(static_cast<int32_t>(t.GetInt(i)));
  return out;
}

TEST(BlockAttentionModel, ItsKernelsAreTheAttentionTasksAndGetReferencesOverItsMask) {
  ir::model::ModelTasks model =
      ir::model::ExtractModelTasks(ModelPath(), runtime::ReadWholeFile(ModelPath()), {});
  std::map<std::string, const ir::model::ModelTask*> attention;
  for (const ir::model::ModelTask& t : model.tasks) {
    if (!compiler::sparse::IsSparseKernel(t.func)) {
      EXPECT_TRUE(t.constant_index_args.empty()) << t.name;
      continue;
    }
    attention[StringAttr(t.func, "kiln.sparse_op")] = &t;
  }
  ASSERT_EQ(attention.size(), 3u);
  EXPECT_EQ(model.tasks.size(), static_cast<size_t>(kTasks));  // the tuning tests' budget
  const ir::model::ModelTask& sddmm = *attention.at("attention_sddmm");
  ASSERT_EQ(sddmm.constant_index_args.count(0) + sddmm.constant_index_args.count(1), 2u);
  // kTokens tokens in blocks of kBlock (the largest size the mask is whole blocks of).
  EXPECT_EQ(sddmm.constant_index_args.at(0).numel(), kTokens / kBlock + 1);

  // The problem `tune sparse attention` would tune over the model's mask.
  ir::sparse::CsrMatrix layout;
  layout.rows = layout.cols = kTokens / kBlock;
  layout.indptr = Ints(sddmm.constant_index_args.at(0));
  layout.indices = Ints(sddmm.constant_index_args.at(1));
  layout.values.assign(layout.indices.size(), 1.0f);
  compiler::sparse::AttentionProblem problem;
  problem.mask = compiler::sparse::MaskFromLayout(layout, kBlock);
  problem.heads = kHeads;
  problem.head_dim = kHeadDim;  // the scale 1 / sqrt(kHeadDim), as the model's Mul
  fs::path cache = fs::temp_directory_path() / ("kiln-attention-ref-" + std::to_string(::getpid()));
  for (AttentionStage stage : compiler::sparse::kAttentionStages) {
    const std::string name = compiler::sparse::AttentionKernelName(stage);
    SCOPED_TRACE(name);
    const ir::model::ModelTask& t = *attention.at(name);
    ir::PrimFunc tuned = compiler::sparse::AttentionWorkload(problem, stage);
    EXPECT_TRUE(ir::StructuralEqual(t.func, tuned));
    EXPECT_EQ(ir::StructuralHash(t.func), ir::StructuralHash(tuned));
    EXPECT_DOUBLE_EQ(t.flop, compiler::sparse::AttentionFlops(problem, stage));
    std::shared_ptr<const runtime::Reference> ref =
        compiler::sparse::ModelTaskReference(t.func, t.constant_index_args, 1, cache.string());
    ASSERT_NE(ref, nullptr);
    EXPECT_EQ(ref->workload_hash, ir::StructuralHashHex(t.func));
  }
  // Constants that are not the mask the kernel was built for are refused, naming the kernel.
  std::map<size_t, ir::HostTensor> moved = sddmm.constant_index_args;
  moved.at(1) = moved.at(1).Clone();
  moved.at(1).SetDouble(0, moved.at(1).GetInt(0) == 0 ? 1 : 0);
  try {
    compiler::sparse::ModelTaskReference(sddmm.func, moved, 1, cache.string());
    ADD_FAILURE() << "a moved block was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_NE(std::string(e.what()).find("attention kernel attention_sddmm"), std::string::npos)
        << e.what();
  }
  fs::remove_all(cache);
}

class BlockAttentionCommandTest : public testing::TuneProcessTest {
 protected:
  std::string Data(const std::string& file) const {
    return std::string(KILN_SOURCE_DIR) + "/examples/models/" + kModel + "/test_data_set_0/" + file;
  }
  // `tune compile` of the bundled model into DIR/<name>.kiln with `extra` options: the JSON
  // report's task names.
  std::vector<std::string> Compile(const std::string& name, const std::string& db,
                                   std::vector<std::string> extra = {}) {
    artifact_ = (dir_ / (name + ".kiln")).string();
    std::vector<std::string> args = {ModelPath(), "--target", "llvm", "-o", artifact_, "--json"};
    if (db.empty()) {
      args.push_back("--no-db");
    } else {
      args.insert(args.end(), {"--db", db});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    runtime::ProcessResult run = RunTune("compile", args, {}, 300);
    EXPECT_TRUE(run.ok()) << run.output;
    std::vector<std::string> names;
    const nlohmann::json report = LastJson(run);
    for (const nlohmann::json& t : report["tasks"]) names.push_back(t["name"]);
    return names;
  }
  static size_t AttentionKernels(const std::vector<std::string>& names) {
    size_t n = 0;
    for (const std::string& name : names) n += name.rfind("attention_", 0) == 0;
    return n;
  }
  // `tune infer` on the committed input: the output must be ONNX Runtime's.
  void ExpectInferMatchesOnnxRuntime() {
    std::string input = (dir_ / "x.npy").string();
    runtime::model::WriteNpy(input,
                             ir::frontend::onnx::ReadTensorProtoFile(Data("input_0.pb")).value);
    runtime::ProcessResult run =
        RunTune("infer",
                {artifact_, "--input", "x=" + input, "--output", (dir_ / "out").string(), "--json"},
                {}, 120);
    ASSERT_TRUE(run.ok()) << run.output;
    nlohmann::json j = LastJson(run);
    ASSERT_EQ(j["outputs"].size(), 1u);
    ir::HostTensor actual = runtime::model::ReadNpy(j["outputs"][0]["path"]);
    ir::HostTensor expected = ir::frontend::onnx::ReadTensorProtoFile(Data("output_0.pb")).value;
    ir::TensorComparison c = ir::CompareTensors(expected, actual, 1e-4, 1e-5);
    EXPECT_TRUE(c.ok) << c.message;
  }
  // `tune run` of the model on `target` for `trials` trials: every attention task must have
  // been measured correct on its reference (no wrong result, no error). Their best traces.
  std::vector<std::string> TuneAttentionTasks(const std::string& target, const std::string& db) {
    runtime::ProcessResult run = RunTune("run",
                                         {ModelPath(),
                                          "--target",
                                          target,
                                          "--trials",
                                          std::to_string(kTasks * kTrialsPerRound),
                                          "--trials-per-round",
                                          std::to_string(kTrialsPerRound),
                                          "--task-scheduler",
                                          "round-robin",
                                          "--population",
                                          "16",
                                          "--threads",
                                          "1",
                                          "--cost-model",
                                          "random",
                                          "--min-repeat-ms",
                                          "1",
                                          "--db",
                                          db,
                                          "--json"},
                                         {}, 900);
    EXPECT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
    const nlohmann::json out = LastJson(run);
    std::vector<std::string> traces;
    for (const nlohmann::json& task : out.value("tasks", nlohmann::json::array())) {
      if (task["name"].get<std::string>().rfind("attention_", 0) != 0) continue;
      SCOPED_TRACE(task.dump());
      EXPECT_GT(task["trials"].get<int64_t>(), 0);
      EXPECT_TRUE(task["errors"].empty()) << task["errors"].dump();
      EXPECT_GT(task["best_latency_s"].get<double>(), 0);
      EXPECT_TRUE(task["best_trace"].is_array());
      traces.push_back(task["best_trace"].dump());
    }
    EXPECT_EQ(out.value("tasks", nlohmann::json::array()).size(), static_cast<size_t>(kTasks));
    EXPECT_EQ(traces.size(), 3u) << out.dump();
    return traces;
  }
  std::string artifact_;
};

TEST_F(BlockAttentionCommandTest, UntunedCompileAndInferMatchOnnxRuntime) {
  std::vector<std::string> names = Compile("sparse", "");
  EXPECT_EQ(AttentionKernels(names), 3u) << ::testing::PrintToString(names);
  ExpectInferMatchesOnnxRuntime();
}

TEST_F(BlockAttentionCommandTest, TheAttentionKeptDenseMatchesOnnxRuntimeToo) {
  // The loops as written and no library call: what is checked is the dense import's result,
  // not its schedule (timing the default schedules of the dense kernels costs 10 s of CPU).
  EXPECT_EQ(AttentionKernels(Compile(
                "dense", "",
                {"--sparse-attention", "never", "--no-default-schedule", "--library", "never"})),
            0u);
  ExpectInferMatchesOnnxRuntime();
}

// auto converts the bundled mask (sparse enough to win); the option is checked at the edge.
TEST_F(BlockAttentionCommandTest, TasksFollowTheSparseAttentionOption) {
  for (const auto& [mode, kernels] :
       std::vector<std::pair<std::string, size_t>>{{"auto", 3}, {"always", 3}, {"never", 0}}) {
    runtime::ProcessResult run =
        RunTune("tasks", {ModelPath(), "--sparse-attention", mode, "--json"}, {}, 60);
    ASSERT_TRUE(run.ok()) << run.output;
    const nlohmann::json out = LastJson(run);
    size_t n = 0;
    for (const nlohmann::json& t : out["tasks"]) {
      n += t["name"].get<std::string>().rfind("attention_", 0) == 0;
    }
    EXPECT_EQ(n, kernels) << mode;
  }
  runtime::ProcessResult bad = RunTune("tasks", {ModelPath(), "--sparse-attention", "on"}, {}, 60);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.output.find("--sparse-attention"), std::string::npos) << bad.output;
}

TEST_F(BlockAttentionCommandTest, TuningMeasuresTheAttentionTasksOnTheirReferences) {
  std::string db = (dir_ / "tuning.db").string();
  for (const std::string& trace : TuneAttentionTasks("llvm", db)) {
    EXPECT_NE(trace.find("\"Parallel\""), std::string::npos) << trace;
  }
  // The references were made over the model's mask, under the cache folder.
  int stored = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "cache" / "references")) {
    stored += entry.path().filename().string().rfind("sparse-", 0) == 0;
  }
  EXPECT_GE(stored, 3);
  // The best records compiled in: the model still computes ONNX Runtime's output.
  EXPECT_EQ(AttentionKernels(Compile("tuned", db)), 3u);
  ExpectInferMatchesOnnxRuntime();
}

// On lavapipe where the machine has no GPU: the "sparse-gpu" space and the Vulkan measurer.
TEST_F(BlockAttentionCommandTest, TuningOnVulkanMeasuresTheAttentionTasksOnTheirReferences) {
  if (const std::string why = VulkanUnavailable(); !why.empty()) {
    GTEST_SKIP() << "skipped: no Vulkan device: " << why;
  }
  bool bound = false;
  for (const std::string& trace : TuneAttentionTasks("vulkan", (dir_ / "t.db").string())) {
    bound |= trace.find("blockIdx") != std::string::npos;
  }
  EXPECT_TRUE(bound);
}

}  // namespace
}  // namespace kiln::cli
