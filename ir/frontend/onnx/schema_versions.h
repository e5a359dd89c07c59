// Which version of an operator's schema a node uses. ONNX versions each operator on its own:
// a node of a model whose opset_import says ai.onnx N uses the newest schema version of its op
// not above N (as ONNX Runtime resolves it), so a model at opset 21 still runs Abs-13. The
// table is the history of every ai.onnx operator (schema_version_table.cc, generated from the onnx
// package by make_schema_versions.py). Internal to ir/frontend/onnx.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::ir::frontend::onnx {

// Operator name -> its schema versions, oldest first.
const std::map<std::string, std::vector<int64_t>>& OnnxSchemaVersionTable();
// The newest opset of ai.onnx the table knows: a model above it may use versions Kiln has
// never seen.
int64_t NewestKnownOpset();

// The schema versions of `op_type` (nullptr when ai.onnx has no such operator).
const std::vector<int64_t>* OnnxSchemaVersions(const std::string& op_type);
// The version of `op_type` a node of a model at `opset` uses: the newest not above `opset`;
// nullopt when the op does not exist yet at `opset` (or not at all).
std::optional<int64_t> OnnxSchemaVersion(const std::string& op_type, int64_t opset);

}  // namespace kiln::ir::frontend::onnx
