// Shared by the validation tests: a private folder (carves and the build cache), models
// prepared as `tune validate` prepares them, seeded inputs, and a device with or without a
// fault.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/model/model_tasks.h"
#include "support/error.h"
#include "support/file.h"
#include "validate/model_inputs.h"
#include "validate/validation.h"

namespace kiln::validate::testing {

struct PreparedModel {
  std::string name;
  ir::relax::IRModule module;
  std::string entry;
  std::vector<ir::HostTensor> inputs;
};

// The model file's prepared module with `dims` bound, and seeded inputs for its entry's
// parameters (validate/model_inputs.h).
inline PreparedModel Prepare(const std::string& path, const std::string& bytes,
                             const std::map<std::string, int64_t>& dims = {}) {
  ir::model::ModelTaskOptions options;
  options.dims = dims;
  options.keep_modules = true;
  ir::model::ModelTasks tasks = ir::model::ExtractModelTasks(path, bytes, options);
  PreparedModel m{path, tasks.buckets.at(0).module, tasks.entry, {}};
  m.inputs = SeededInputs(EntryParams(m.module, m.entry), 7);
  return m;
}

inline PreparedModel PrepareFile(const std::string& path,
                                 const std::map<std::string, int64_t>& dims = {}) {
  return Prepare(path, ReadFile(path), dims);
}

inline std::string ExampleModel(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/examples/models/" + name + "/model.onnx";
}

inline std::string GeneratedModel(const std::string& name) {
  return std::string(KILN_MODELS_DIR) + "/" + name + "/model.onnx";
}

class ValidateTestBase : public ::testing::Test {
 protected:
  ValidateTestBase() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-validate-test-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    dir_ = pattern;
  }
  ~ValidateTestBase() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A device of `target` built into this test's cache, with `fault` when given.
  std::unique_ptr<TargetDevice> Device(const std::string& target,
                                       std::optional<runtime::FaultSpec> fault = std::nullopt,
                                       bool loops_as_written = false) {
    TargetOptions options;
    options.target = target;
    options.cache_dir = (dir_ / "cache").string();
    options.threads = 1;
    options.fault = std::move(fault);
    options.loops_as_written = loops_as_written;
    return std::make_unique<TargetDevice>(options);
  }

  ValidateOptions Options(const std::string& carve, Mode mode = Mode::kBoth,
                          TargetDevice* reference = nullptr) {
    ValidateOptions options;
    options.mode = mode;
    options.carve_dir = (dir_ / carve).string();
    options.reference = reference;
    return options;
  }

  std::filesystem::path dir_;
};

}  // namespace kiln::validate::testing
