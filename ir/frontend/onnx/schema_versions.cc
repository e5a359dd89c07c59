// Resolving a node's operator version from the model's opset.
#include "ir/frontend/onnx/schema_versions.h"

namespace kiln::ir::frontend::onnx {

const std::vector<int64_t>* OnnxSchemaVersions(const std::string& op_type) {
  const auto& table = OnnxSchemaVersionTable();
  auto it = table.find(op_type);
  return it == table.end() ? nullptr : &it->second;
}

std::optional<int64_t> OnnxSchemaVersion(const std::string& op_type, int64_t opset) {
  const std::vector<int64_t>* versions = OnnxSchemaVersions(op_type);
  if (versions == nullptr) return std::nullopt;
  std::optional<int64_t> found;
  for (int64_t v : *versions) {
    if (v <= opset) found = v;
  }
  return found;
}

}  // namespace kiln::ir::frontend::onnx
