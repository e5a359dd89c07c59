// Symbolic tensor dimensions: the integer expressions (768, n, n * 12, seq // 2) that Relax
// shapes are made of. Shape inference needs a canonical form to print stable shapes, to tell
// whether two dims are provably equal (broadcasting, matmul inner dims) or provably different
// (a shape error), and to divide exactly (reshape's -1: (n * 768) / n is 768). Dims are
// canonicalized as polynomials with integer coefficients over atoms (shape variables and
// opaque non-polynomial terms such as floordiv(n, 3)); that covers the shape arithmetic of
// exported models, including the products of variables that affine index arithmetic leaves
// alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace kiln::ir::relax {

// Relax has its own Expr and Var; the TensorIR ones that make up dims go by these names.
using PrimExpr = ::kiln::ir::Expr;
using PrimVar = ::kiln::ir::Var;

// An int64 immediate dim.
PrimExpr DimConst(int64_t value);
// A symbolic int64 shape variable ("n", "seq_len").
PrimVar SymbolicDim(std::string name);

// `e` as an int64 dim expression: int immediates are widened, other integer dtypes cast.
// Throws kType for a non-integer expression.
PrimExpr ToDim(const PrimExpr& e);

// The canonical form of `e`: like terms merged, constants folded, coefficient last
// (n * 12), constant term last (n * 4 + 1), floordiv/floormod folded when exact.
PrimExpr SimplifyDim(const PrimExpr& e);

// True when a - b simplifies to 0.
bool ProveDimEqual(const PrimExpr& a, const PrimExpr& b);
// True when a - b simplifies to a nonzero constant (768 vs 512, n vs n + 1).
bool ProveDimNotEqual(const PrimExpr& a, const PrimExpr& b);
// a / b when b divides a exactly as polynomials (n * 768 / n = 768, 24 / 4 = 6); nullopt
// when the quotient is not provably exact.
std::optional<PrimExpr> DivideDimExact(const PrimExpr& a, const PrimExpr& b);
// The simplified product of `dims` (1 for none).
PrimExpr DimProduct(const std::vector<PrimExpr>& dims);

// TVMScript-like text of a dim: "n * 12", "seq // 2", "T.max(n, 1)".
std::string DimToString(const PrimExpr& e);
// "(n, 768)" (a 1-tuple prints as "(n,)").
std::string DimsToString(const std::vector<PrimExpr>& dims);

}  // namespace kiln::ir::relax
