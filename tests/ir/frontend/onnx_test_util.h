// Building ONNX models in tests with the protobuf API: inputs with constant or named dims,
// nodes with attributes, initializers; and shorthands for reading the imported function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/expr.h"
#include "onnx/onnx_pb.h"

namespace kiln::ir::frontend::onnx::testing {

// A dim of a declared input: a number, or a dim_param name, or unknown ("?").
struct Dim {
  Dim(int64_t v) : value(v) {}      // NOLINT: implicit on purpose
  Dim(const char* p) : param(p) {}  // NOLINT
  int64_t value = -1;
  std::string param;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13);
  ModelBuilder& Input(const std::string& name, std::vector<Dim> dims,
                      int32_t elem_type = ::onnx::TensorProto::FLOAT);
  // An output with no declared type (the importer infers it).
  ModelBuilder& Output(const std::string& name);
  ::onnx::NodeProto& Node(const std::string& op, std::vector<std::string> inputs,
                          std::vector<std::string> outputs, const std::string& name = "");
  ModelBuilder& InitInts(const std::string& name, const std::vector<int64_t>& values,
                         std::vector<int64_t> dims);
  ModelBuilder& InitFloats(const std::string& name, const std::vector<float>& values,
                           std::vector<int64_t> dims);
  std::string Bytes() const;
  relax::IRModule Import(const ImportOptions& options = {}) const;
  OnnxImportResult TryImport(const ImportOptions& options = {}) const;

  ::onnx::ModelProto model;
};

void SetInt(::onnx::NodeProto& node, const std::string& name, int64_t value);
void SetInts(::onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void SetFloat(::onnx::NodeProto& node, const std::string& name, float value);
void SetString(::onnx::NodeProto& node, const std::string& name, const std::string& value);

// The struct info of main's return value, as TVMScript text.
std::string ReturnInfo(const relax::IRModule& module);
// The ops main calls, in order ("matmul", "add", ...).
std::vector<std::string> CalledOps(const relax::IRModule& module);
// KILN_SOURCE_DIR/tests/ir/frontend/testdata/<relative>.
std::string TestData(const std::string& relative);

}  // namespace kiln::ir::frontend::onnx::testing
