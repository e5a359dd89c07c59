// The compiler end to end on the example models: artifacts whose outputs match the reference
// executor on random inputs and the models' committed test data, with matmul tasks as kernels,
// as library calls wherever they apply (--library always) and as the timing chooses (auto);
// views for reshapes, one artifact for every size when dims stay symbolic, and what an
// unsupported graph gives.
#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "ir/frontend/onnx/tensor_proto.h"
#include "runtime/model/artifact.h"

namespace kiln::compiler {
namespace {

class CompilerTest : public testing::CompilerTestBase {
 protected:
  // Compiles the example model with its inputs' dims bound to the committed test data's,
  // then checks test_data_set_0 and random inputs.
  CompileReport CheckExample(const std::string& name, const std::map<std::string, int64_t>& dims,
                             double rtol, double atol,
                             LibraryPolicy library = LibraryPolicy::kNever) {
    ir::relax::IRModule module = testing::PreparedModel(name, dims);
    CompileReport report = Compile(module, name, nullptr, "cpu-test", library);
    EXPECT_EQ(report.tuned, 0);
    if (library == LibraryPolicy::kNever) {
      EXPECT_EQ(report.library, 0);
    }
    runtime::model::Executor executor = Load(name);
    std::string data =
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + name + "/test_data_set_0/";
    ir::HostTensor input = ir::frontend::onnx::ReadTensorProtoFile(data + "input_0.pb").value;
    ir::HostTensor expected = ir::frontend::onnx::ReadTensorProtoFile(data + "output_0.pb").value;
    std::vector<ir::HostTensor> out = executor.Run({input});
    EXPECT_EQ(out.size(), 1u);
    if (out.size() != 1) return report;
    ir::TensorComparison c = ir::CompareTensors(expected, out[0], rtol, atol);
    EXPECT_TRUE(c.ok) << name << " test_data_set_0: " << c.message;
    ExpectMatchesReference(executor, module, {input.shape()}, 11);
    return report;
  }
};

// Every matmul task of the model took the library (`always`), and each was timed both ways.
void ExpectAllMatmulsTookTheLibrary(const CompileReport& report, int64_t expected) {
  EXPECT_EQ(report.library, expected);
  for (const CompiledTask& t : report.tasks) {
    if (t.kind != "library") continue;
    EXPECT_EQ(t.impl.rfind("library:dnnl_sgemm", 0), 0u) << t.name;
    EXPECT_TRUE(t.kernel_s.has_value() && t.library_s.has_value()) << t.name;
  }
}

TEST_F(CompilerTest, MlpMatchesItsTestDataAndTheReference) {
  CheckExample("mlp", {{"batch", 4}}, 1e-4, 1e-5);
  ExpectAllMatmulsTookTheLibrary(
      CheckExample("mlp", {{"batch", 4}}, 1e-4, 1e-5, LibraryPolicy::kAlways), 3);
  CheckExample("mlp", {{"batch", 4}}, 1e-4, 1e-5, LibraryPolicy::kAuto);
}

TEST_F(CompilerTest, TransformerBlockMatchesItsTestDataAndTheReference) {
  CheckExample("transformer_block", {{"seq_len", 8}}, 1e-3, 1e-4);
  // Six matmul tasks: the three dense layers' kinds, both attention matmuls, the output dense.
  ExpectAllMatmulsTookTheLibrary(
      CheckExample("transformer_block", {{"seq_len", 8}}, 1e-3, 1e-4, LibraryPolicy::kAlways), 6);
  CheckExample("transformer_block", {{"seq_len", 8}}, 1e-3, 1e-4, LibraryPolicy::kAuto);
}

TEST_F(CompilerTest, UntunedKernelsTakeTheDefaultScheduleWhereItIsFaster) {
  // Static shapes large enough for the default's parallel loops and register tiles to pay.
  ir::relax::IRModule module = testing::PreparedModel("transformer_block", {{"seq_len", 64}});
  CompileReport report = Compile(module, "block");
  int64_t defaults = 0;
  for (const CompiledTask& t : report.tasks) {
    if (t.kind != "kernel") continue;
    // Every kernel's default was timed against the loops as written; the faster stays.
    ASSERT_TRUE(t.default_s.has_value() && t.written_s.has_value()) << t.name << ": " << t.note;
    EXPECT_EQ(t.default_schedule, *t.default_s < *t.written_s) << t.name;
    defaults += t.default_schedule;
  }
  EXPECT_GT(defaults, 0) << "no kernel took its default schedule";
  runtime::model::Executor executor = Load("block");
  ExpectMatchesReference(executor, module, {{1, 64, 64}}, 5);

  // Without default schedules every kernel is the loops as written, untimed.
  CompileReport written = Compile(module, "written", nullptr, "cpu-test", LibraryPolicy::kNever,
                                  false, /*default_schedules=*/false);
  for (const CompiledTask& t : written.tasks) {
    EXPECT_FALSE(t.default_schedule || t.default_s.has_value()) << t.name;
  }
}

TEST_F(CompilerTest, CnnMatchesItsTestDataAndTheReference) {
  CompileReport report = CheckExample("cnn", {}, 1e-3, 1e-4);
  // The flatten before the classifier is a view, not a copy kernel.
  int views = 0;
  for (const CompiledTask& t : report.tasks) views += t.kind == "view";
  EXPECT_EQ(views, 1);
  EXPECT_EQ(report.views, 1);
  // The classifier is the one matmul task (convolutions are not).
  ExpectAllMatmulsTookTheLibrary(CheckExample("cnn", {}, 1e-3, 1e-4, LibraryPolicy::kAlways), 1);
  CheckExample("cnn", {}, 1e-3, 1e-4, LibraryPolicy::kAuto);
}

TEST_F(CompilerTest, LibraryCallsWithSymbolicDimsRunEverySize) {
  // Not timed (no static shapes), so `auto` keeps the kernels and `always` takes the library.
  ir::relax::IRModule module = testing::PreparedModel("mlp", {});
  EXPECT_EQ(Compile(module, "mlp_auto", nullptr, "cpu-test", LibraryPolicy::kAuto).library, 0);
  CompileReport report = Compile(module, "mlp_lib", nullptr, "cpu-test", LibraryPolicy::kAlways);
  EXPECT_EQ(report.library, 3);
  for (const CompiledTask& t : report.tasks) EXPECT_FALSE(t.kernel_s.has_value()) << t.name;
  runtime::model::Executor executor = Load("mlp_lib");
  for (int64_t batch : {1, 5, 3}) ExpectMatchesReference(executor, module, {{batch, 64}}, batch);
  // The products are intermediates of the plan.
  EXPECT_GT(executor.Plan({{5, 64}}).arena_bytes, 0u);
}

TEST_F(CompilerTest, TheManifestNamesTheLibraryAndBothTimes) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {{"batch", 4}});
  Compile(module, "mlp", nullptr, "cpu-test", LibraryPolicy::kAlways);
  runtime::model::Artifact a = runtime::model::LoadArtifact((dir_ / "mlp.kiln").string());
  ASSERT_EQ(a.manifest.tasks.size(), 3u);
  for (const runtime::model::ManifestTask& t : a.manifest.tasks) {
    EXPECT_EQ(t.kind, "library");
    // Linear + relu has an epilogue; so has the last linear (its bias).
    EXPECT_EQ(t.impl, "library:dnnl_sgemm+epilogue");
    EXPECT_TRUE(t.kernel_s.has_value() && t.library_s.has_value());
    EXPECT_NE(t.symbol, "");
  }
  int library_calls = 0;
  for (const runtime::model::GraphKernel& k : a.graph.kernels) library_calls += !k.library.empty();
  EXPECT_EQ(library_calls, 3);
}

TEST_F(CompilerTest, SymbolicDimsMakeOneArtifactForEverySize) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {});
  Compile(module, "mlp_any");
  runtime::model::Executor executor = Load("mlp_any");
  ASSERT_EQ(executor.artifact().graph.dims, std::vector<std::string>({"batch"}));
  for (int64_t batch : {1, 5, 3}) ExpectMatchesReference(executor, module, {{batch, 64}}, batch);
  // Two sizes planned, each once.
  EXPECT_GT(executor.Plan({{5, 64}}).arena_bytes, executor.Plan({{1, 64}}).arena_bytes);
}

// With their dims left symbolic, one artifact per model reproduces every committed data set
// (they differ in batch and sequence length).
TEST_F(CompilerTest, SymbolicArtifactsReproduceEveryTestDataSet) {
  for (const std::string name : {"mlp", "transformer_block"}) {
    Compile(testing::PreparedModel(name, {}), name + "_any");
    runtime::model::Executor executor = Load(name + "_any");
    int sets = 0;
    for (int n = 0;; ++n) {
      std::string data = std::string(KILN_SOURCE_DIR) + "/examples/models/" + name +
                         "/test_data_set_" + std::to_string(n) + "/";
      if (!std::filesystem::exists(data)) break;
      ir::HostTensor input = ir::frontend::onnx::ReadTensorProtoFile(data + "input_0.pb").value;
      ir::HostTensor expected = ir::frontend::onnx::ReadTensorProtoFile(data + "output_0.pb").value;
      std::vector<ir::HostTensor> out = executor.Run({input});
      ASSERT_EQ(out.size(), 1u);
      ir::TensorComparison c = ir::CompareTensors(expected, out[0], 1e-3, 1e-4);
      EXPECT_TRUE(c.ok) << name << " test_data_set_" << n << ": " << c.message;
      ++sets;
    }
    EXPECT_EQ(sets, 2) << name;
  }
}

TEST_F(CompilerTest, TheManifestNamesEveryTask) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {{"batch", 4}});
  CompileReport report = Compile(module, "mlp");
  runtime::model::Artifact a = runtime::model::LoadArtifact((dir_ / "mlp.kiln").string());
  EXPECT_EQ(a.manifest.target, "llvm");
  EXPECT_EQ(a.manifest.device_key, "cpu-test");
  EXPECT_EQ(a.manifest.model, "mlp");
  ASSERT_EQ(a.manifest.tasks.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a.manifest.tasks[i].name, report.tasks[i].name);
    EXPECT_EQ(a.manifest.tasks[i].workload_hash.size(), 16u);
    EXPECT_FALSE(a.manifest.tasks[i].record_id.has_value());
    EXPECT_EQ(a.manifest.tasks[i].kind, "kernel");
  }
  EXPECT_EQ(report.kernels, 3);
}

}  // namespace
}  // namespace kiln::compiler
