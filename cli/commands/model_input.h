// Reading a model a user names on the command line: an ONNX file (.onnx) through the ONNX
// front end, or a Relax TVMScript module (.relax, .py) through the Relax parser.
#pragma once

#include <map>
#include <string>

#include "ir/relax/module.h"

namespace kiln::cli {

struct ModelInput {
  ir::relax::IRModule module;
  std::string format;  // "onnx" or "relax"
};

// Throws kiln::Error: kIO when the file cannot be read, kParse/kUnsupported from the front
// end, kParse naming the file when its extension is neither. `dims` binds named symbolic
// dims of an ONNX model's inputs (dim_param) to values.
ModelInput LoadModel(const std::string& path, const std::map<std::string, int64_t>& dims = {});

}  // namespace kiln::cli
