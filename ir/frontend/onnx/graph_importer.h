// The graph importer: turns a read OnnxModel into the Relax function "main". It checks the
// graph (every input defined, no value produced twice, no cycle), declares the parameters
// with their symbolic shapes, converts the nodes in topological order with the converter
// table, and collects every node it cannot convert instead of stopping at the first.
// Internal to ir/frontend/onnx; import.h is the public entry.
#pragma once

#include "ir/frontend/onnx/import.h"
#include "ir/frontend/onnx/onnx_model.h"

namespace kiln::ir::frontend::onnx {

// Never throws kiln::Error: everything that goes wrong is in the result.
OnnxImportResult ImportModel(const OnnxModel& model, const ImportOptions& options);

}  // namespace kiln::ir::frontend::onnx
