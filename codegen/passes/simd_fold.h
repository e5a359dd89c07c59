// A SIMD fold: a serial loop `for k: acc[i] = acc[i] op f(k)` (op +, max or min; float32 or
// float64; i not depending on k; every load of f contiguous in k or not depending on it), at
// least kMinSimdFold long, optionally led by its init `if (k == min) acc[i] = init`. The C
// target prints such a loop as an OpenMP SIMD reduction. A vector-tree fold, the sum of one
// vector's worth of contiguous elements (the end of a reduction that rfactor split over vector
// lanes), it prints as one vector load and a tree of half-vector adds. The unroller leaves
// those and long folds a loop, because their copies would be one scalar dependency chain.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ir/stmt.h"

namespace kiln::codegen {

// Shorter constant folds stay serial: `omp simd` makes GCC vectorize whatever its cost model
// says, and a fold of a few elements (a register tile's short inner reduction) is faster left
// alone.
inline constexpr int64_t kMinSimdFold = 8;
// The widest vector a vector-tree fold loads: one AVX-512 register.
inline constexpr int64_t kMaxVectorTreeBytes = 64;
// A fold over at least this many bytes (four AVX-512 registers) is long enough that GCC's
// vectorized reduction beats the scalar chain of its unrolled copies; shorter ones measured
// slower as OpenMP SIMD loops than unrolled (GCC adds the lanes one by one at the end).
inline constexpr int64_t kMinLongSimdFoldBytes = 256;

struct SimdFold {
  const ir::BufferStoreNode* store = nullptr;  // acc[i] = acc[i] op value
  const ir::BufferStoreNode* init = nullptr;   // the leading init, or null
  std::string op;                              // "+", "max" or "min"
  ir::Expr acc;                                // acc[i], the load of the store's value
  ir::Expr value;                              // f(k): the other operand
};

// The fold `loop` is, or nullopt. A leading init is taken only where `provably_positive` proves
// the extent positive (the loop runs at least once); without it, where the extent is a positive
// constant.
std::optional<SimdFold> MatchSimdFold(
    const ir::ForNode* loop, const std::function<bool(const ir::Expr&)>& provably_positive = {});

// Whether `fold` (matched on `loop`) is a vector-tree fold: op +, a constant extent that is a
// power of two from 4 lanes up to kMaxVectorTreeBytes, and a value that is one load of the
// accumulator's type, contiguous in the loop variable.
bool IsVectorTreeFold(const ir::ForNode* loop, const SimdFold& fold);

// Whether `fold` (matched on `loop`) has a constant extent of kMinLongSimdFoldBytes or more.
bool IsLongSimdFold(const ir::ForNode* loop, const SimdFold& fold);

}  // namespace kiln::codegen
