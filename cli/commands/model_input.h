// Reading a model a user names on the command line: an ONNX file (.onnx) through the ONNX
// front end, or a Relax TVMScript module (.relax, .py) through the Relax parser, and choosing the
// Relax function that is the model's entry (`--func`).
#pragma once

#include <map>
#include <string>

#include "ir/relax/module.h"

namespace kiln::cli {

struct ModelInput {
  ir::relax::IRModule module;
  std::string format;  // "onnx" or "relax"
  std::string entry;   // the Relax function that is the model (ChooseEntryFunction)
};

// Throws kiln::Error: kIO when the file cannot be read, kParse/kUnsupported from the front
// end, kParse naming the file when its extension is neither. `dims` binds named symbolic
// dims of an ONNX model's inputs (dim_param) to values. `func` names the entry function (empty:
// chosen by ChooseEntryFunction).
ModelInput LoadModel(const std::string& path, const std::map<std::string, int64_t>& dims = {},
                     const std::string& func = "");

// The entry function of `module`: `requested` when given (a Relax function of the module),
// else the only public Relax function (one without private=True; relax.frontend.nn exports
// `forward`), else `main` when there are several and one is called so (TVM's convention).
// Otherwise kiln::Error (kInvalidIR) naming `source` and listing the Relax functions, so the
// user can pick one with --func.
std::string ChooseEntryFunction(const ir::relax::IRModule& module, const std::string& requested,
                                const std::string& source);

}  // namespace kiln::cli
