// The ONNX front end: reads an ONNX ModelProto (opsets 1 to 17 of the default domain; each op
// from the version whose semantics its converter handles) into a Relax IRModule with one
// function "main". Its parameters are the graph inputs that are not initializers, in order;
// initializers become Constants; several graph outputs are returned as a tuple. Named dims
// (dim_param) become shape variables shared by name across inputs, unnamed unknown dims (none,
// -1 or 0, as exporters write them) fresh ones, and the shape computations exporters emit
// (Shape -> Gather -> Concat -> Reshape, ...) are evaluated at import time into symbolic dims.
// Dims that an op needs equal but that cannot be proven so (floor divisions of one input size
// along two paths) are checked at run time by a match_cast that names the ONNX node.
//
// An unsupported op, attribute or dtype is reported with the node, all of them at once:
// ImportOnnx throws one kiln::Error(kUnsupported) listing every such node; TryImportOnnx
// returns them without throwing. A malformed file (truncated, not an ONNX model, undefined
// inputs, a cycle, a bad initializer) is a kParse error naming the file and what is wrong.
// No protobuf header is needed to call this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/module.h"
#include "support/error.h"

namespace kiln::ir::frontend::onnx {

struct ImportOptions {
  // Values of named dims: every dim_param "batch" of the graph inputs becomes this constant
  // (named as written, or as the IR names it: "p2o.DynamicDimension.0" is
  // "p2o_DynamicDimension_0"); an unknown dim (no value or -1) is named "<input>_dim<i>"
  // ("x_dim0") and bound the same way.
  std::map<std::string, int64_t> dim_values;
  // Graph inputs whose values are fixed at import time: they become constants instead of
  // parameters of main, and shape computations on them fold (a Reshape fed by a "shape"
  // input gets a known target shape).
  std::map<std::string, HostTensor> input_values;
  // Floating-point initializers (the weights) become parameters of main, after the graph
  // inputs and in initializer order, instead of constants. Integer initializers (shapes,
  // axes, indices) stay constants so that shape computations still fold.
  bool keep_params_as_inputs = false;
};

// Something of the model Kiln could not import: a node (node_index >= 0), or a graph input,
// output or initializer (node_index -1, op_type empty, node_name the value's name).
struct OnnxIssue {
  int node_index = -1;
  std::string op_type;
  std::string node_name;
  ErrorKind kind = ErrorKind::kUnsupported;
  std::string reason;
  // "node 3 'conv1' (Conv): <reason>", or "<reason>" for a graph-level issue.
  std::string ToString() const;
};

struct OnnxImportResult {
  std::string source;
  int64_t opset = 0;  // the version of the default domain (0 when the model has none)
  // Set when the whole graph converted.
  std::optional<relax::IRModule> module;
  // Every node (or graph value) Kiln does not support, with the reason.
  std::vector<OnnxIssue> unsupported;
  // Everything else that went wrong: a malformed model (node_index -1) or a node whose
  // conversion failed because the model is inconsistent (a shape mismatch, an input of the
  // wrong type).
  std::vector<OnnxIssue> errors;
  // The ONNX name of each parameter of main, in order (graph inputs, then the initializers
  // kept as parameters), and of each returned value: parameter names in the IR are made
  // printable, so a caller feeding test data matches by these.
  std::vector<std::string> param_names;
  std::vector<std::string> output_names;
  // Graph inputs whose values a node needed at import time (axes, pads, a Range's bounds
  // given as inputs): importing again with them in ImportOptions::input_values can succeed.
  std::vector<std::string> inputs_needed_at_import;
  // Graph inputs whose values decide a shape at run time (a Reshape or ConstantOfShape target
  // given as an input): the import works but those dims are unknown; importing again with them
  // in ImportOptions::input_values gives static shapes.
  std::vector<std::string> inputs_shaping_at_run_time;
  // How many nodes of each op type the graph has.
  std::map<std::string, int> op_counts;

  bool ok() const { return module.has_value(); }
  // The error ImportOnnx would throw: kUnsupported listing every unsupported node when there
  // are any, else the first error. Requires !ok().
  Error ToError() const;
};

// Read `path` (kIO when it cannot be read) and import it; throws as described above.
relax::IRModule ImportOnnx(const std::string& path, const ImportOptions& options = {});
// Import a serialized ModelProto; `source_name` names it in messages.
relax::IRModule ImportOnnxBytes(std::string_view bytes, const std::string& source_name,
                                const ImportOptions& options = {});

// The same, reporting instead of throwing (a file that cannot be read is an error too).
OnnxImportResult TryImportOnnx(const std::string& path, const ImportOptions& options = {});
OnnxImportResult TryImportOnnxBytes(std::string_view bytes, const std::string& source_name,
                                    const ImportOptions& options = {});

// The ONNX op types that have a converter (some only from a given opset or for some
// attributes; the importer says which when it meets one it cannot convert).
std::vector<std::string> SupportedOnnxOps();

}  // namespace kiln::ir::frontend::onnx
