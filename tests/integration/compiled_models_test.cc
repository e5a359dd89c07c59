// Every example model compiled by the model compiler (untuned kernels, symbolic dims kept, as
// `tune compile --no-db --symbolic`) and run by the executor: its outputs match ONNX Runtime's
// on the test data committed or generated beside it (make_models.py), and the reference
// executor's on seeded random inputs. The BERT-base layer runs at 3 and 128 tokens against
// ONNX Runtime; the reference executor, minutes at full size, checks BERT at 2 tokens and the
// ResNet-18 stage at 8x8 (the same stage and weights, generated beside BERT). Compiled with
// --library auto (the default: with symbolic dims nothing is timed, so every task keeps its
// kernel) and with --library always (every matmul task a library call and its epilogue
// kernel), both are checked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <ostream>

#include "compiler/compiler.h"
#include "ir/frontend/onnx/tensor_proto.h"
#include "ir/model/model_file.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/model/artifact.h"
#include "runtime/model/executor.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

struct ModelCase {
  std::string name;
  std::string dir;  // model.onnx and test_data_set_*
  // Random inputs for the comparison with the reference executor: the model of `random_dir`
  // (empty: `dir`) at these input shapes.
  std::string random_dir;
  std::vector<std::vector<int64_t>> random_shapes;
};

// The test's name in ctest's listing, rather than the struct's bytes.
void PrintTo(const ModelCase& c, std::ostream* out) { *out << c.name; }

std::string Examples(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + name;
}
std::string Generated(const std::string& name) { return std::string(KILN_MODELS_DIR) + "/" + name; }

std::vector<ModelCase> Cases() {
  return {
      {"mlp", Examples("mlp"), "", {{3, 64}}},
      {"transformer_block", Examples("transformer_block"), "", {{1, 5, 64}}},
      {"cnn", Examples("cnn"), "", {{1, 3, 32, 32}}},
      {"gcn_layer", Examples("gcn_layer"), "", {{300, 32}}},  // a CSR SpMM task (docs/sparse.md)
      // three block-sparse attention tasks (docs/sparse.md)
      {"block_attention", Examples("block_attention"), "", {{1024, 64}}},
      {"bert_layer", Generated("bert_layer"), "", {{1, 2, 768}}},
      {"resnet_stage", Examples("resnet_stage"), Generated("resnet_stage_8x8"), {{1, 64, 8, 8}}},
  };
}

class CompiledModel : public ::testing::TestWithParam<ModelCase> {
 protected:
  CompiledModel()
      : dir_(fs::temp_directory_path() /
             ("kiln-compiled-" + GetParam().name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~CompiledModel() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The model prepared as the compiler and `tune run` see it, and an executor of it compiled
  // into this test's folder.
  struct Compiled {
    ir::relax::IRModule prepared;
    std::string entry;
    std::unique_ptr<runtime::model::Executor> executor;
  };
  Compiled Compile(const std::string& model_dir, const std::string& tag,
                   compiler::LibraryPolicy library) {
    ir::model::ModelInput input = ir::model::LoadModel(model_dir + "/model.onnx");
    Compiled c;
    c.prepared = ir::relax::transform::PrepareModuleForTuning(input.module);
    c.entry = input.entry;
    compiler::CompileOptions options;
    options.model = model_dir;
    options.cache_dir = (dir_ / "cache").string();
    options.library = library;
    std::string out = (dir_ / (tag + ".kiln")).string();
    compiler::CompileReport report = compiler::CompileModel(c.prepared, c.entry, out, options);
    EXPECT_EQ(report.tuned, 0);
    EXPECT_GT(report.kernels, 0);
    // Only `always` takes the library (where a model has matmul tasks: the ResNet stage has
    // none).
    if (library != compiler::LibraryPolicy::kAlways) {
      EXPECT_EQ(report.library, 0);
    } else if (GetParam().name != "resnet_stage") {
      EXPECT_GT(report.library, 0);
    }
    c.executor = std::make_unique<runtime::model::Executor>(
        runtime::model::LoadArtifact(out), runtime::model::ExecutorOptions{.threads = 2});
    return c;
  }

  fs::path dir_;
};

std::vector<fs::path> DataSets(const std::string& dir) {
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(entry);
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

std::vector<ir::HostTensor> ReadTensors(const fs::path& dir, const std::string& prefix) {
  std::vector<ir::HostTensor> tensors;
  for (int i = 0; fs::exists(dir / (prefix + "_" + std::to_string(i) + ".pb")); ++i) {
    tensors.push_back(ir::frontend::onnx::ReadTensorProtoFile(
                          (dir / (prefix + "_" + std::to_string(i) + ".pb")).string())
                          .value);
  }
  return tensors;
}

// Dot products of up to 3072 terms, summed in another order than the other side's.
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

TEST_P(CompiledModel, MatchesOnnxRuntimeAndTheReferenceExecutor) {
  const ModelCase& c = GetParam();
  ASSERT_TRUE(fs::exists(c.dir + "/model.onnx"))
      << c.dir << ": the generated ones are made by the generated_models test fixture";
  // Kernels only (auto would time the library against a static model's kernels and may take
  // it: block_attention's 1024 x 64 x 64 projections), and every matmul as a library call.
  Compiled compiled = Compile(c.dir, "model", compiler::LibraryPolicy::kNever);
  Compiled library = Compile(c.dir, "library", compiler::LibraryPolicy::kAlways);

  std::vector<fs::path> sets = DataSets(c.dir);
  ASSERT_FALSE(sets.empty()) << c.dir;
  for (const fs::path& set : sets) {
    std::vector<ir::HostTensor> inputs = ReadTensors(set, "input");
    std::vector<ir::HostTensor> expected = ReadTensors(set, "output");
    for (Compiled* model : {&compiled, &library}) {
      std::vector<ir::HostTensor> actual = model->executor->Run(inputs);
      ASSERT_EQ(actual.size(), expected.size()) << set;
      for (size_t i = 0; i < expected.size(); ++i) {
        ir::TensorComparison cmp = ir::CompareTensors(expected[i], actual[i], kRtol, kAtol);
        EXPECT_TRUE(cmp.ok) << set.string() << (model == &library ? " (library calls)" : "")
                            << ", output " << i << ": " << cmp.message;
      }
    }
  }

  Compiled random_model = c.random_dir.empty()
                              ? std::move(compiled)
                              : Compile(c.random_dir, "random", compiler::LibraryPolicy::kNever);
  std::vector<ir::HostTensor> inputs;
  std::vector<ir::relax::exec::Value> args;
  for (size_t i = 0; i < c.random_shapes.size(); ++i) {
    inputs.push_back(ir::HostTensor::Random(ir::DataType::Float(32), c.random_shapes[i], 7 + i));
    args.push_back(ir::relax::exec::Value::Tensor(inputs.back().Clone()));
  }
  std::vector<ir::HostTensor> actual = random_model.executor->Run(inputs);
  ir::relax::exec::Value reference =
      ir::relax::exec::Run(random_model.prepared, random_model.entry, args);
  ASSERT_EQ(actual.size(), 1u);
  ir::TensorComparison cmp = ir::CompareTensors(reference.tensor(), actual[0], kRtol, kAtol);
  EXPECT_TRUE(cmp.ok) << "random inputs: " << cmp.message;
  if (c.random_dir.empty()) {
    std::vector<ir::HostTensor> with_library = library.executor->Run(inputs);
    ASSERT_EQ(with_library.size(), 1u);
    cmp = ir::CompareTensors(reference.tensor(), with_library[0], kRtol, kAtol);
    EXPECT_TRUE(cmp.ok) << "random inputs (library calls): " << cmp.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CompiledModel, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace kiln
