// TensorIR functions as TVM's JSON object graph: what `tvm.ir.save_json(IRModule)` writes for a
// module of one PrimFunc, the form a MetaSchedule JSONDatabase keeps its workloads in.
//
// The shape written is apache-tvm 0.27's ("tirx.PrimFunc", "s_tir.SBlock", "ir.TensorLoad"): a
// parameter that is a tensor is an "ir.Var" whose type is a "tirx.BufferType", and loads, stores
// and regions name that variable. Reading also takes TVM 0.24 to 0.26's shape ("tirx.Var",
// "tirx.Add", "tirx.Buffer" objects with a buffer_map, inline dtypes; tested on 0.25's); TVM
// 0.23 and older ("tir.*" type keys, the legacy graph) is refused by name. Kiln's function
// has a handle parameter mapped to a Buffer, so reading makes the handle and the Buffer as
// Kiln's TVMScript parser does, and writing turns them back into one variable. A let binding is
// a "tirx.Bind" in a statement sequence in TVM and a LetStmt over the rest of the sequence in
// Kiln. Hints that Kiln drops when it parses TVMScript (`T.attr` pragmas, spans) are dropped
// here too, so that the function read equals Kiln's parse of TVM's printed text.
//
// Everything in the graph is input: an unknown node type, a field of the wrong kind, a cycle or
// an expression whose dtypes do not fit is a kiln::Error naming the graph's source, the node
// and the field, never a crash.
#pragma once

#include <string>
#include <string_view>

#include "ir/function.h"
#include "ir/tvm_json/graph.h"

namespace kiln::ir::tvm_json {

// The PrimFunc of a parsed graph whose root is an IRModule (its function "main", or its only
// PrimFunc) or a PrimFunc itself. The function is named after its GlobalVar ("main" for a bare
// PrimFunc). Throws kiln::Error (kParse for a malformed graph, kUnsupported for a construct
// Kiln's TensorIR does not have) naming the node.
PrimFunc ReadPrimFunc(const Graph& graph);

// The same from JSON text (either graph shape; the legacy one has no TensorIR reader and fails
// with kUnsupported naming its root).
PrimFunc ReadPrimFuncJson(std::string_view json_text, std::string_view source);

// The JSON text of an IRModule holding `func` as "main", in the 0.24+ shape, pretty-printed as
// tvm.ir.save_json does. Throws kiln::Error(kUnsupported) naming the node for a construct that
// has no form here (Allocate, DeclBuffer: lowered code, never a tuning workload).
std::string WritePrimFuncModuleJson(const PrimFunc& func,
                                    std::string_view tvm_version = "0.27.0.post1");

}  // namespace kiln::ir::tvm_json
