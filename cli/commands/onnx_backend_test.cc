// RunOnnxBackendTest: import, prepare, execute and compare one backend test directory.
#include "cli/commands/onnx_backend_test.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "ir/frontend/onnx/import.h"
#include "ir/frontend/onnx/tensor_proto.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/transform/pipeline.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
namespace onnx = ir::frontend::onnx;
using ir::HostTensor;
using ir::relax::exec::Value;

// The files PREFIX_0.pb, PREFIX_1.pb, ... of `dir`, in index order.
std::vector<fs::path> NumberedFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path file = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(file)) break;
    files.push_back(file);
  }
  return files;
}

std::vector<fs::path> DataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(entry.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// The tensors of a result: one for a tensor, each field of a tuple in order.
void Flatten(const Value& value, std::vector<HostTensor>& out) {
  if (value.is_tuple()) {
    for (const Value& field : value.fields()) Flatten(field, out);
  } else {
    out.push_back(value.tensor());
  }
}

// Compares one output; returns an empty string when it matches, else why not.
std::string CompareOutput(size_t index, const HostTensor& expected, const HostTensor& actual,
                          const OnnxTestOptions& options, double* max_abs_error) {
  std::string name = "output " + std::to_string(index);
  if (expected.dtype() != actual.dtype()) {
    return name + ": dtype " + actual.dtype().ToString() + ", expected " +
           expected.dtype().ToString();
  }
  if (expected.shape() != actual.shape()) {
    return name + ": got " + actual.Describe() + ", expected " + expected.Describe();
  }
  bool exact = !expected.dtype().is_float();
  // As ONNX's backend test runner compares: a bfloat16 output within two of its ulps (rtol
  // 2^-6 at least), since 1e-3 is a quarter of one.
  double rtol = options.rtol;
  if (expected.dtype().code() == ir::DataType::Code::kBFloat) rtol = std::max(rtol, 1.0 / 64);
  ir::TensorComparison cmp =
      ir::CompareTensors(expected, actual, exact ? 0 : rtol, exact ? 0 : options.atol);
  *max_abs_error = std::max(*max_abs_error, cmp.max_abs_error);
  return cmp.ok ? "" : name + ": " + cmp.message;
}

// A data set's inputs by graph input name: the TensorProto's name when it has one, else the
// name of the graph input at the file's position (ONNX's runner feeds inputs by position).
std::map<std::string, HostTensor> ReadInputs(const fs::path& data_set,
                                             const std::vector<std::string>& graph_inputs) {
  std::map<std::string, HostTensor> inputs;
  std::vector<fs::path> files = NumberedFiles(data_set, "input");
  for (size_t i = 0; i < files.size(); ++i) {
    onnx::NamedTensor t = onnx::ReadTensorProtoFile(files[i].string());
    std::string name = !t.name.empty() ? t.name : i < graph_inputs.size() ? graph_inputs[i] : "";
    KILN_CHECK(!name.empty(), ErrorKind::kParse,
               files[i].string() + ": unnamed tensor beyond the model's graph inputs");
    inputs[name] = t.value;
  }
  return inputs;
}

// ONNX's test data stores bfloat16 tensors as uint16 bit patterns: view them as bfloat16
// where the model says bfloat16.
HostTensor AsDtype(const HostTensor& t, ir::DataType dtype) {
  if (t.dtype() == ir::DataType::UInt(16) && dtype == ir::DataType::BFloat16()) {
    return onnx::BitcastTensor(t, dtype);
  }
  return t;
}

// The model imported for one data set: graph inputs that decide shapes or attributes (a
// Reshape target, axes given as an input) are bound to the data set's values, as a runtime
// that sees the data would; the rest stay parameters.
onnx::OnnxImportResult ImportFor(const fs::path& model_path, const onnx::OnnxImportResult& plain,
                                 const std::map<std::string, HostTensor>& inputs) {
  onnx::ImportOptions options;
  for (const auto* names : {&plain.inputs_needed_at_import, &plain.inputs_shaping_at_run_time}) {
    for (const std::string& name : *names) {
      auto it = inputs.find(name);
      if (it != inputs.end()) options.input_values[name] = it->second;
    }
  }
  if (options.input_values.empty()) return plain;
  return onnx::TryImportOnnx(model_path.string(), options);
}

// Fills `result`; kiln::Errors escape to the caller, which classifies them.
void RunAll(const fs::path& dir, const OnnxTestOptions& options, OnnxTestResult& result) {
  fs::path model_path = dir / "model.onnx";
  KILN_CHECK(fs::exists(model_path), ErrorKind::kIO, dir.string() + ": no model.onnx");
  onnx::OnnxImportResult plain = onnx::TryImportOnnx(model_path.string());
  for (const auto& [op_type, count] : plain.op_counts) result.op_types.push_back(op_type);
  bool rebind = !plain.inputs_needed_at_import.empty() || !plain.inputs_shaping_at_run_time.empty();
  if (!plain.ok() && (!rebind || !plain.errors.empty())) throw plain.ToError();

  std::vector<fs::path> data_sets = DataSets(dir);
  KILN_CHECK(!data_sets.empty(), ErrorKind::kIO, dir.string() + ": no test_data_set_N folder");
  std::optional<ir::relax::IRModule> prepared;  // shared by the data sets unless rebinding
  for (const fs::path& data_set : data_sets) {
    std::string where = data_set.filename().string() + ": ";
    std::map<std::string, HostTensor> inputs = ReadInputs(data_set, plain.param_names);
    onnx::OnnxImportResult imported = rebind ? ImportFor(model_path, plain, inputs) : plain;
    if (!imported.ok()) throw imported.ToError();
    if (!prepared || rebind) {
      prepared = options.fuse ? ir::relax::transform::PrepareModuleForTuning(*imported.module,
                                                                             options.pipeline)
                              : ir::relax::transform::LegalizeOps(*imported.module);
    }
    const ir::relax::Function* main = prepared->LookupFunction("main");
    KILN_CHECK(main != nullptr, ErrorKind::kInternal, "the imported module has no main");
    std::vector<Value> args;
    for (size_t i = 0; i < imported.param_names.size(); ++i) {
      auto it = inputs.find(imported.param_names[i]);
      KILN_CHECK(it != inputs.end(), ErrorKind::kParse,
                 where + "no input for graph input '" + imported.param_names[i] + "'");
      const auto* sinfo = (*main)->params.at(i).struct_info().as<ir::relax::TensorStructInfoNode>();
      args.push_back(Value::Tensor(sinfo ? AsDtype(it->second, sinfo->dtype) : it->second));
    }
    std::vector<HostTensor> actual;
    Flatten(ir::relax::exec::Run(*prepared, "main", args), actual);
    std::vector<HostTensor> expected;
    for (const fs::path& file : NumberedFiles(data_set, "output")) {
      expected.push_back(onnx::ReadTensorProtoFile(file.string()).value);
    }
    if (actual.size() != expected.size()) {
      result.status = "fail";
      result.reason = where + "the model returned " + std::to_string(actual.size()) +
                      " outputs, expected " + std::to_string(expected.size());
      return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      HostTensor want = AsDtype(expected[i], actual[i].dtype());
      std::string mismatch = CompareOutput(i, want, actual[i], options, &result.max_abs_error);
      if (!mismatch.empty() && result.reason.empty()) {
        result.status = "fail";
        result.reason = where + mismatch;
      }
    }
    ++result.data_sets;
  }
  if (result.status.empty()) result.status = "pass";
}

}  // namespace

OnnxTestResult RunOnnxBackendTest(const std::string& dir, const OnnxTestOptions& options) {
  OnnxTestResult result;
  result.dir = dir;
  auto start = std::chrono::steady_clock::now();
  try {
    RunAll(dir, options, result);
  } catch (const Error& e) {
    result.status = e.kind() == ErrorKind::kUnsupported ? "unsupported" : "fail";
    result.reason = std::string(ErrorKindName(e.kind())) + ": " + e.what();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

nlohmann::json ToJson(const OnnxTestResult& result) {
  return {{"dir", result.dir},
          {"status", result.status},
          {"max_abs_error", result.max_abs_error},
          {"reason", result.reason},
          {"ops", result.op_types},
          {"data_sets", result.data_sets},
          {"seconds", result.seconds}};
}

}  // namespace kiln::cli
