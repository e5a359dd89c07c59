// Arithmetic counts of one statement by kind, the first 16 per-store features: float
// multiply-add, add/sub, mul, div/mod, compare (min/max included), math function, other
// function; the same for integers; boolean ops; selects. Counts are per execution of the
// statement (vector lanes counted), before scaling by the loops around it.
#pragma once

#include <array>
#include <cstddef>

#include "ir/stmt.h"

namespace kiln::cost_model {

enum class ArithKind : int {
  kFloatMad,
  kFloatAddSub,
  kFloatMul,
  kFloatDivMod,
  kFloatCmp,
  kFloatMathFunc,
  kFloatOtherFunc,
  kIntMad,
  kIntAddSub,
  kIntMul,
  kIntDivMod,
  kIntCmp,
  kIntMathFunc,
  kIntOtherFunc,
  kBoolOp,
  kSelectOp,
};
inline constexpr size_t kNumArithKinds = 16;

struct ArithCounts {
  std::array<double, kNumArithKinds> counts{};
  double& operator[](ArithKind k) { return counts[static_cast<size_t>(k)]; }
  double operator[](ArithKind k) const { return counts[static_cast<size_t>(k)]; }
  // Floating-point operations (a multiply-add counts two): the numerator of the arithmetic
  // intensity features.
  double FloatOps() const;
};

// Counts the operations of `store`'s value and indices. An add or subtract with a multiply
// operand of the same type is one multiply-add (the multiply is not counted again).
ArithCounts CountArith(const ir::BufferStoreNode* store);

}  // namespace kiln::cost_model
