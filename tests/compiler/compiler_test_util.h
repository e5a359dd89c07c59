// Shared by the compiler's tests: example models imported and prepared as `tune compile` does,
// a private build cache, compiling into a temporary folder, and comparing an executor's
// outputs with the reference executor's on the same inputs.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/frontend/onnx/import.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/model/executor.h"
#include "support/error.h"

namespace kiln::compiler::testing {

inline std::string ExampleModel(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + name + "/model.onnx";
}

inline ir::relax::IRModule PreparedModel(const std::string& name,
                                         const std::map<std::string, int64_t>& dims) {
  ir::frontend::onnx::ImportOptions options;
  options.dim_values = dims;
  return ir::relax::transform::PrepareModuleForTuning(
      ir::frontend::onnx::ImportOnnx(ExampleModel(name), options));
}

class CompilerTestBase : public ::testing::Test {
 protected:
  CompilerTestBase() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-compile-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    dir_ = pattern;
  }
  ~CompilerTestBase() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Compiles into DIR/NAME.kiln with the test's build cache and the given device key.
  CompileReport Compile(const ir::relax::IRModule& module, const std::string& name,
                        database::Database* db = nullptr,
                        const std::string& device_key = "cpu-test",
                        LibraryPolicy library = LibraryPolicy::kNever,
                        bool keep_faster_untuned = false, bool default_schedules = true) {
    CompileOptions options;
    options.library = library;
    options.keep_faster_untuned = keep_faster_untuned;
    options.default_schedules = default_schedules;
    // The kernel-or-library timing, as short as it goes: the tests check results, not speed.
    options.measure_repeat = 1;
    options.measure_min_repeat_ms = 0;
    options.db = db;
    options.device_key = device_key;
    options.model = name;
    options.cache_dir = (dir_ / "cache").string();
    return CompileModel(module, "main", (dir_ / (name + ".kiln")).string(), options);
  }

  runtime::model::Executor Load(const std::string& name) {
    return runtime::model::Executor(
        runtime::model::LoadArtifact((dir_ / (name + ".kiln")).string(),
                                     {.target = "llvm", .device_key = "cpu-test"}),
        {.threads = 2, .cache_dir = (dir_ / "cache").string()});
  }

  // Runs both on seeded random inputs of `shapes` and compares every output.
  static void ExpectMatchesReference(runtime::model::Executor& executor,
                                     const ir::relax::IRModule& module,
                                     const std::vector<std::vector<int64_t>>& shapes,
                                     uint64_t seed) {
    std::vector<ir::HostTensor> inputs;
    std::vector<ir::relax::exec::Value> args;
    std::vector<runtime::model::InputInfo> infos = executor.inputs();
    ASSERT_EQ(infos.size(), shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      inputs.push_back(ir::HostTensor::Random(infos[i].dtype, shapes[i], seed + i));
      args.push_back(ir::relax::exec::Value::Tensor(inputs.back().Clone()));
    }
    std::vector<ir::HostTensor> actual = executor.Run(inputs);
    ir::relax::exec::Value expected = ir::relax::exec::Run(module, "main", args);
    std::vector<ir::HostTensor> expected_tensors;
    if (expected.is_tuple()) {
      for (const auto& f : expected.fields()) expected_tensors.push_back(f.tensor());
    } else {
      expected_tensors.push_back(expected.tensor());
    }
    ASSERT_EQ(actual.size(), expected_tensors.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      EXPECT_EQ(actual[i].shape(), expected_tensors[i].shape());
      ir::TensorComparison c = ir::CompareTensors(expected_tensors[i], actual[i], 1e-4, 1e-5);
      EXPECT_TRUE(c.ok) << "output " << i << ": " << c.message;
    }
  }

  std::filesystem::path dir_;
};

}  // namespace kiln::compiler::testing
