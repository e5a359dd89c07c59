// Parses TVMScript PrimFuncs (@T.prim_func, optionally inside an @I.ir_module class).
// Errors are kiln::Error(kParse) whose message starts with "SOURCE:LINE:COLUMN: " and says
// what was expected.
#pragma once

#include <string_view>
#include <vector>

#include "ir/function.h"
#include "ir/text/lexer.h"

namespace kiln::ir {

// Exactly one PrimFunc in `text`.
PrimFunc ParsePrimFunc(std::string_view text, std::string_view source_name = "<input>");
// Every PrimFunc in `text` (a file of several, or an IRModule of PrimFuncs), in order.
std::vector<PrimFunc> ParsePrimFuncs(std::string_view text,
                                     std::string_view source_name = "<input>");

// For front ends that embed TensorIR functions in their own text (the Relax parser): reads
// one `@T.prim_func` definition from `tokens` (made by Tokenize), starting at the '@' of its
// decorator at tokens[*pos], and moves *pos past it.
PrimFunc ParsePrimFuncAt(const SourceText& source, const std::vector<Token>& tokens, size_t* pos);

// An index map written as TVM prints one, a Python lambda over index variables:
// "lambda i, j: (j // 16, i, j % 16)" (a single result may drop the tuple). The parameters
// become new Vars of `dtype`; the results are expressions over them.
struct IndexLambda {
  std::vector<Var> params;
  std::vector<Expr> results;
};
IndexLambda ParseIndexLambda(std::string_view text, DataType dtype = DataType::Int(32),
                             std::string_view source_name = "<index map>");

}  // namespace kiln::ir
