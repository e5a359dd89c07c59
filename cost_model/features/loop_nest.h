// The loops around a store, as feature extraction sees them, and the footprint of buffer
// accesses under them: how many distinct elements an access touches while some of the loops
// vary (the others held at their first value). Index arithmetic is bounded by interval
// analysis on the typed functor (affine terms exactly; floordiv, floormod, min and max
// conservatively); what it cannot bound (an index loaded from memory, a call) spans the whole
// dimension.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/buffer.h"
#include "ir/stmt.h"

namespace kiln::cost_model {

struct Loop {
  const ir::ForNode* node = nullptr;
  int64_t min = 0;
  int64_t extent = 1;  // for an extent that is not a constant: the nest's estimate (below)
};

// Loops from the outermost (index 0) to the innermost.
class LoopNest {
 public:
  // A loop whose extent is not a constant (a sparse kernel's loop over a row's nonzeros) is
  // counted as `data_dependent_extent` iterations: 1 unless the function says better.
  explicit LoopNest(int64_t data_dependent_extent = 1)
      : data_dependent_extent_(data_dependent_extent) {}
  void Push(const ir::ForNode* loop);
  void Pop();
  size_t size() const { return loops_.size(); }
  const Loop& operator[](size_t i) const { return loops_[i]; }
  // The position of the loop defining `var`, or -1.
  int IndexOf(const ir::VarNode* var) const;
  // Product of the extents of loops [first, size()).
  double ExtentProduct(size_t first = 0) const;

 private:
  int64_t data_dependent_extent_ = 1;
  std::vector<Loop> loops_;
  std::unordered_map<const ir::VarNode*, int> index_;
};

// Inclusive integer interval; `bounded` is false when nothing is known.
struct Interval {
  int64_t lo = 0, hi = 0;
  bool bounded = true;
};

// The interval of `e` when loop i of `nest` takes values [min_i, min_i + span[i]) (span 1: held
// at its minimum); variables that are not loops count as 0.
Interval EvalInterval(const ir::Expr& e, const LoopNest& nest, const std::vector<int64_t>& span);

// Distinct elements of `buffer` touched by the index lists `accesses` when loops [first, size)
// vary: per dimension the hull of the accesses' intervals, clamped to the dimension's constant
// size, multiplied over dimensions.
double TouchedElements(const std::vector<const std::vector<ir::Expr>*>& accesses,
                       const ir::Buffer& buffer, const LoopNest& nest, size_t first);

// How far (in elements, row-major over `buffer`'s shape) one step of loop `loop` moves the
// access `indices`: |coefficient| for affine indices.
int64_t AccessStride(const std::vector<ir::Expr>& indices, const ir::Buffer& buffer,
                     const LoopNest& nest, size_t loop);

}  // namespace kiln::cost_model
