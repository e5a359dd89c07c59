// A lowering pass (codegen/lower.h orders them): loops marked vectorized become vector expressions.
#pragma once

#include <cstdint>

#include "ir/function.h"

namespace kiln::codegen {

struct VectorizeOptions {
  int64_t max_lanes = 64;  // wider loops are left to the compiler
  // Intrinsic calls (exp, erf, sqrt, ...) become calls on vectors, which the target computes
  // lane-wise or with its own vector math (the C target). Off on GPU targets, whose emitters
  // print scalar calls only.
  bool vectorize_calls = true;
};

// Loop annotation placed on a vectorized loop that could not be rewritten: the emitter
// tells the compiler its iterations are independent (`#pragma GCC ivdep`).
inline constexpr char kPragmaIvdep[] = "pragma_ivdep";

// Rewrites each loop of kind kVectorized whose extent is a constant power of two (2 up to
// max_lanes): its variable becomes Ramp(min, 1, lanes) and the body's stores become vector
// stores, with loads and arithmetic widened to vectors (loop-invariant operands broadcast).
// Indices must stay affine in the loop variable (Ramp: contiguous or strided access); an `if`
// whose condition does not depend on the loop variable stays around the vector statements.
// Intrinsic calls of vectors keep their name and take the vector dtype (when
// vectorize_calls; never if_then_else, nor a call whose result or arguments are bool).
// A body that cannot be rewritten so (other control flow, nested loops, integer division of the
// lane index, selects on vectors, 16-bit float or bool vectors, a store whose address does not
// depend on the loop variable) keeps its loop, now serial and annotated kPragmaIvdep.
ir::PrimFunc VectorizeLoops(const ir::PrimFunc& f, const VectorizeOptions& options = {});

}  // namespace kiln::codegen
