// Import-level pass over ONNX's backend node tests (Debian's libonnx-testdata): every test's
// model either imports, with main's outputs matching the dtype and shape of the expected
// outputs (test_data_set_0/output_*.pb), or is reported unsupported with a reason. An import
// error (a converter that rejects a valid model) fails the test. Per-op counts are printed, and
// a floor on the number imported catches regressions.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

#include "ir/frontend/onnx/tensor_proto.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNodeTests = "/usr/share/libonnx-testdata/data/node";
// How many tests import today (the printed summary): a converter that stops importing fails
// here. Raise it when the importer covers more.
constexpr int kImportedFloor = 758;

struct OpStats {
  int tests = 0;
  int imported = 0;
  int unsupported = 0;
  std::string reason;  // of the first unsupported test
};

std::vector<relax::StructInfo> Outputs(const relax::IRModule& m) {
  relax::StructInfo ret = (*m.LookupFunction("main"))->ret_struct_info;
  if (const auto* t = ret.as<relax::TupleStructInfoNode>()) return t->fields;
  return {ret};
}

// Empty when `actual` can hold `expected`; otherwise what differs. Dims that are not known
// at import time (a reshape to a run-time shape) count as matching and are reported in
// `dynamic`.
std::string Compare(const relax::StructInfo& actual, const HostTensor& expected, bool* dynamic) {
  const auto* t = actual.as<relax::TensorStructInfoNode>();
  if (t == nullptr) return "is " + actual.ToString() + ", not a tensor";
  std::string want = expected.Describe();
  if (t->dtype != expected.dtype()) return "is " + actual.ToString() + ", expected " + want;
  if (t->unknown_ndim()) {
    *dynamic = true;
    return "";
  }
  if (t->ndim != static_cast<int>(expected.shape().size())) {
    return "is " + actual.ToString() + ", expected " + want;
  }
  if (!t->shape) {
    *dynamic = true;
    return "";
  }
  for (size_t i = 0; i < expected.shape().size(); ++i) {
    auto d = AsConstInt((*t->shape)[i]);
    if (!d) {
      *dynamic = true;
    } else if (*d != expected.shape()[i]) {
      return "is " + actual.ToString() + ", expected " + want;
    }
  }
  return "";
}

// Problems of an imported test: main's outputs against the expected outputs' dtype and shape.
std::string CheckOutputs(const relax::IRModule& module, const fs::path& dir, bool* dynamic) {
  std::vector<relax::StructInfo> outs = Outputs(module);
  size_t i = 0;
  for (;; ++i) {
    fs::path file = dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb");
    if (!fs::exists(file)) break;
    if (i >= outs.size()) return "has " + std::to_string(outs.size()) + " outputs, the test more";
    HostTensor expected = ReadTensorProtoFile(file.string()).value;
    // The 1.12 test data stores bfloat16 as uint16 bit patterns.
    const auto* t = outs[i].as<relax::TensorStructInfoNode>();
    if (t != nullptr && t->dtype == DataType::BFloat16() &&
        expected.dtype() == DataType::UInt(16)) {
      expected = BitcastTensor(expected, DataType::BFloat16());
    }
    std::string diff = Compare(outs[i], expected, dynamic);
    if (!diff.empty()) return "output " + std::to_string(i) + " " + diff;
  }
  if (i != outs.size()) {
    return "has " + std::to_string(outs.size()) + " outputs, the test data " + std::to_string(i);
  }
  return "";
}

// The graph inputs `names` with their values from test_data_set_0 (matched by tensor name).
ImportOptions BindInputs(const fs::path& dir, const std::vector<std::string>& names) {
  ImportOptions options;
  for (size_t i = 0;; ++i) {
    fs::path file = dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb");
    if (!fs::exists(file)) break;
    NamedTensor t = ReadTensorProtoFile(file.string());
    if (std::find(names.begin(), names.end(), t.name) != names.end()) {
      options.input_values[t.name] = t.value;
    }
  }
  return options;
}

TEST(OnnxNodeSuite, EveryTestImportsOrIsReportedUnsupported) {
  if (!fs::exists(kNodeTests)) GTEST_SKIP() << "libonnx-testdata is not installed";
  std::vector<fs::path> tests;
  for (const auto& entry : fs::directory_iterator(kNodeTests)) tests.push_back(entry.path());
  std::sort(tests.begin(), tests.end());

  std::map<std::string, OpStats> per_op;
  std::vector<std::string> failures, unsupported_list;
  int imported = 0, bound = 0, unsupported = 0, dynamic_count = 0;
  for (const fs::path& dir : tests) {
    std::string name = dir.filename().string();
    OnnxImportResult r = TryImportOnnx((dir / "model.onnx").string());
    bool was_bound = false;
    if (!r.ok() && r.errors.empty() && !r.inputs_needed_at_import.empty()) {
      // Inputs that the op needs at import time (axes, pads, ...) given as graph inputs: a test
      // runner binds them from the test data.
      r = TryImportOnnx((dir / "model.onnx").string(), BindInputs(dir, r.inputs_needed_at_import));
      was_bound = true;
    }
    if (r.ok() && !r.inputs_shaping_at_run_time.empty()) {
      // Shapes decided by input data (a Reshape target as an input): bound, they are static.
      r = TryImportOnnx((dir / "model.onnx").string(),
                        BindInputs(dir, r.inputs_shaping_at_run_time));
      was_bound = true;
    }
    std::string problem;
    bool dynamic = false;
    if (r.ok()) {
      problem = CheckOutputs(*r.module, dir, &dynamic);
    } else if (!r.errors.empty()) {
      problem = "import error: " + r.errors[0].ToString();
    }
    bool ok = r.ok() && problem.empty();
    if (!problem.empty()) failures.push_back(name + ": " + problem);
    if (ok) {
      ++imported;
      bound += was_bound;
      dynamic_count += dynamic;
    }
    bool is_unsupported = !r.ok() && r.errors.empty();
    if (is_unsupported) {
      ++unsupported;
      unsupported_list.push_back(name + ": " + r.unsupported[0].ToString());
    }
    for (const auto& [op, count] : r.op_counts) {
      OpStats& s = per_op[op];
      ++s.tests;
      s.imported += ok;
      if (is_unsupported) {
        ++s.unsupported;
        if (s.reason.empty()) s.reason = r.unsupported[0].ToString();
      }
    }
  }

  std::cout << "ONNX node tests: " << tests.size() << " tests, " << imported << " imported ("
            << bound << " with inputs bound at import time, " << dynamic_count
            << " with run-time dims), " << unsupported << " unsupported, " << failures.size()
            << " failed\n";
  std::cout << std::left << std::setw(28) << "op" << std::setw(7) << "tests" << std::setw(10)
            << "imported" << std::setw(12) << "unsupported"
            << "first reason\n";
  for (const auto& [op, s] : per_op) {
    std::cout << std::left << std::setw(28) << op << " " << std::setw(6) << s.tests << std::setw(10)
              << s.imported << std::setw(12) << s.unsupported << s.reason << "\n";
  }
  std::cout << "Unsupported tests and why:\n";
  for (const std::string& line : unsupported_list) std::cout << "  " << line << "\n";

  std::string joined;
  for (const std::string& f : failures) joined += "\n  " + f;
  EXPECT_TRUE(failures.empty()) << failures.size() << " tests failed:" << joined;
  EXPECT_GE(imported, kImportedFloor);
  EXPECT_EQ(imported + unsupported + static_cast<int>(failures.size()),
            static_cast<int>(tests.size()));
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
