// Constant folding of single operations, shared by ConstantFold and the simplifier: fold an
// operation whose operands are immediates with the semantics of its dtype (integers wrap to
// their width, division by zero is left unfolded), apply the identities that need no
// algebra (x + 0, x * 1, x * 0 on integers, logic with a constant side), and otherwise build
// the node as written.
#pragma once

#include <cstdint>

#include "ir/expr.h"

namespace kiln::ir::arith {

// `value` wrapped to the width and signedness of integer dtype `dtype`.
int64_t WrapToType(DataType dtype, int64_t value);
// `value` rounded to float dtype `dtype` (float16/bfloat16/float32 round to nearest even).
double RoundToType(DataType dtype, double value);
// An IntImm of `dtype` holding `value` wrapped to the dtype.
Expr MakeIntConst(DataType dtype, int64_t value);

int64_t FloorDivInt(int64_t a, int64_t b);  // b != 0
int64_t FloorModInt(int64_t a, int64_t b);  // b != 0, result has the sign of b

// Builds binary node `kind` without folding.
Expr MakeBinary(NodeKind kind, Expr a, Expr b);
// Folds or builds binary node `kind`.
Expr FoldBinary(NodeKind kind, const Expr& a, const Expr& b);
// FoldBinary of Add, Mul and And: how transformations build index arithmetic and guards
// without writing `0 + x`, `x * 1` or `true && c` in the first place.
Expr FoldAdd(const Expr& a, const Expr& b);
Expr FoldMul(const Expr& a, const Expr& b);
Expr FoldAnd(const Expr& a, const Expr& b);
Expr FoldNot(const Expr& a);
Expr FoldSelect(const Expr& condition, const Expr& true_value, const Expr& false_value);
Expr FoldCast(DataType dtype, const Expr& value);

// True for the comparison node kinds (EQ NE LT LE GT GE).
bool IsCompareKind(NodeKind kind);
// True for every kind in KILN_BINARY_NODES.
bool IsBinaryKind(NodeKind kind);
// The operands of a binary node; false (and nothing written) for other kinds.
bool GetBinaryOperands(const Expr& e, Expr* a, Expr* b);

}  // namespace kiln::ir::arith
