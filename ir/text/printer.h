// Prints TensorIR as TVMScript (the subset ir/text/parser.h reads), so a TVM user can read
// it and paste it back. ParsePrimFunc(PrintPrimFunc(f)) is structurally equal to f. Two
// dialects: TVM 0.24 and later (the default: `tirx`, @T.prim_func(s_tir=True), T.sblock,
// T.sblock_alloc_buffer, "tirx.noalias": True, int64 shape variables declared above the
// function as `n = TypeVar("n")`), and TVM up to 0.23 (`tir`, T.block, "tir.noalias").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"

namespace kiln::ir {

enum class TirDialect {
  kTvm023,  // TVM up to 0.23
  kTvm024,  // TVM 0.24 and later (0.27 prints it so)
};

// "tvm-0.23" or "tvm-0.24" (also "tvm-0.27", the same dialect); throws kiln::Error(kUnsupported)
// naming the accepted values otherwise.
TirDialect ParseTirDialect(std::string_view name);
std::string_view TirDialectName(TirDialect dialect);

struct TirPrintOptions {
  TirDialect dialect = TirDialect::kTvm024;
  // The "# from tvm.script import ..." comment and, in the 0.24 dialect, the TypeVar lines
  // above the function. A module printer turns them off and declares PrintedTypeVars once.
  bool standalone = true;
};

std::string PrintPrimFunc(const PrimFunc& f, const TirPrintOptions& options = {});
// The names that the 0.24 dialect declares above `f` as `NAME = TypeVar("NAME")`, as
// PrintPrimFunc writes them inside f (empty for the 0.23 dialect).
std::vector<std::string> PrintedTypeVars(const PrimFunc& f, const TirPrintOptions& options = {});
std::string PrintStmt(const Stmt& s, const TirPrintOptions& options = {});
std::string PrintExpr(const Expr& e, const TirPrintOptions& options = {});

}  // namespace kiln::ir
