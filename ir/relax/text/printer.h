// Prints Relax IRModules as TVMScript, the way TVM prints them: `@I.ir_module class Module:`
// holding `@T.prim_func` kernels (printed in full by ir/text) and `@R.function` graphs with
// `with R.dataflow():` blocks, a struct info annotation on every binding, shape variables
// declared as `n = T.int64()`, and op attributes as keyword arguments in the order of the op's
// schema. ParseModule(PrintModule(m)) is structurally equal to m when m is in A-normal form
// (well_formed.h; the parser normalizes nested expressions, which the printer prints as they
// are), and printing it again gives the same text. Names are made valid and unique per function (x,
// x_1; "input.1" prints as input_1), across Relax variables and shape variables, which share one
// Python namespace; a function name that is not a Python name is changed too, so it reads back
// under the new name. A function body that is not a SeqExpr reads back as a SeqExpr without blocks,
// and two adjacent non-dataflow blocks read back as one (TVMScript cannot tell them apart).
//
// Constants are exact: every element prints as the shortest literal that reads back to the
// same bits (NaN payloads excepted: NaN prints as float("nan")). Constants with at most
// PrintOptions::max_inline_constant_elements elements print inline (R.const([1.5, 2.0],
// "float32")); larger ones print as references into TVM's metadata section, which comes first:
// `metadata = tvm.ir.load_json("""...""")` (ir/relax/text/metadata.h).
//
// Two dialects, as for TensorIR (ir/text/printer.h): TVM 0.24 and later (the default; 0.27
// prints it) declares the int64 shape variables of function signatures above the module as
// `n = TypeVar("n")` and uses them bare there (those a body introduces, by R.match_cast, are
// declared in the body as `n = T.int64()`), writes R.call_tir(..., out_ty=...),
// metadata["ir.GenericConst"][i] and the 0.24+ JSON graph, and prints PrimFuncs in the tirx
// dialect; TVM up to 0.23 declares shape variables in each function body (`n = T.int64()`, quoted
// in the signature above it), writes out_sinfo=, metadata["relax.expr.Constant"][i] and the legacy
// JSON graph.
#pragma once

#include <cstdint>
#include <string>

#include "ir/relax/module.h"
#include "ir/text/printer.h"

namespace kiln::ir::relax {

struct PrintOptions {
  // Constants with more elements go to the metadata section.
  int64_t max_inline_constant_elements = 16;
  // False leaves the metadata section out (a comment says so): a readable dump of a module
  // with large weights, as TVM's show_meta=False. Such text does not parse back.
  bool show_metadata = true;
  ir::TirDialect dialect = ir::TirDialect::kTvm024;
};

std::string PrintModule(const IRModule& module, const PrintOptions& options = {});
// One Relax function as a standalone `@R.function def NAME(...)`. Calls of other functions
// print as cls.NAME, which only a module can resolve.
std::string PrintFunction(const Function& func, const std::string& name = "main",
                          const PrintOptions& options = {});
// One expression as a binding's value would print (variables by their name hints, large
// constants as metadata references): for messages and tests.
std::string PrintExpr(const Expr& expr);
// A struct info annotation as TVM prints it: R.Tensor((n, 4), dtype="float32").
std::string PrintStructInfo(const StructInfo& sinfo);

}  // namespace kiln::ir::relax
