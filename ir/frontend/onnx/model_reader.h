// Reads a serialized ModelProto into an OnnxModel: protobuf parsing, then the checks that do
// not need the op semantics (a graph is present, opset versions are positive and not repeated,
// names are unique, attribute fields agree with their type). Internal to ir/frontend/onnx.
#pragma once

#include <string>
#include <string_view>

#include "ir/frontend/onnx/onnx_model.h"

namespace kiln::ir::frontend::onnx {

// Throws kParse naming `source` and what is wrong.
OnnxModel ReadOnnxModel(std::string_view bytes, const std::string& source);

}  // namespace kiln::ir::frontend::onnx
