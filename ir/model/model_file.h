// A model a user hands Kiln: an ONNX file (.onnx) through the ONNX front end, or a Relax
// TVMScript module (.relax, .py) through the Relax parser, read from a file or from bytes that
// came over the wire (a submitted job), with named symbolic dims bound at import, and the Relax
// function that is the model's entry (`--func`). The command line, the coordinator and the
// compiler all read models through here, so a model means the same thing to each.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/relax/module.h"

namespace kiln::ir::model {

struct ModelInput {
  relax::IRModule module;
  std::string format;  // "onnx" or "relax"
  std::string entry;   // the Relax function that is the model (ChooseEntryFunction)
};

// "onnx" for a name ending in .onnx, "relax" for .relax or .py; kiln::Error(kParse) naming the
// file otherwise.
std::string ModelFormatOf(const std::string& name);

// Throws kiln::Error: kIO when the file cannot be read, kParse/kUnsupported from the front
// end, kParse naming the file when its extension is neither. `dims` binds named symbolic dims
// of an ONNX model's inputs (dim_param, or the name Kiln gives an unnamed dim) to values; a
// Relax module keeps its symbolic dims (kUnsupported when `dims` is not empty). `func` names
// the entry function (empty: chosen by ChooseEntryFunction).
ModelInput LoadModel(const std::string& path, const std::map<std::string, int64_t>& dims = {},
                     const std::string& func = "");
// The same on the model's bytes; `name` (a path or a file name) gives the format and names the
// model in messages.
ModelInput LoadModelBytes(const std::string& name, const std::string& bytes,
                          const std::map<std::string, int64_t>& dims = {},
                          const std::string& func = "");

// The entry function of `module`: `requested` when given (a Relax function of the module),
// else the only public Relax function (one without private=True; relax.frontend.nn exports
// `forward`), else `main` when there are several and one is called so (TVM's convention).
// Otherwise kiln::Error (kInvalidIR) naming `source` and listing the Relax functions, so the
// user can pick one with --func.
std::string ChooseEntryFunction(const relax::IRModule& module, const std::string& requested,
                                const std::string& source);

}  // namespace kiln::ir::model
