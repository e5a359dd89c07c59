// Axes of SparseTIR: the dimensions sparse buffers and sparse iterations are written over. An
// axis is dense or sparse (are its coordinates all of [0, length) or only those its `indices`
// lists?) and fixed or variable (does each position of its parent hold the same number of
// children, or as many as `indptr` says?). A dense_fixed axis has no parent; the others hang
// under one, so that an axis's positions are numbered in the order of its parent's.
// Axes are shared handles compared by identity, like Buffers; indptr and indices are ordinary
// Buffers (int32 or int64, the axis's idtype) bound to parameters of the function.
#pragma once

#include <memory>
#include <string>

#include "ir/buffer.h"

namespace kiln::ir {

enum class AxisKind : uint8_t { kDenseFixed, kDenseVariable, kSparseFixed, kSparseVariable };

// "dense_fixed", ... as SparseTIR's script spells the declaration (T.dense_fixed(...)).
inline const char* AxisKindName(AxisKind kind) {
  switch (kind) {
    case AxisKind::kDenseFixed:
      return "dense_fixed";
    case AxisKind::kDenseVariable:
      return "dense_variable";
    case AxisKind::kSparseFixed:
      return "sparse_fixed";
    case AxisKind::kSparseVariable:
      return "sparse_variable";
  }
  return "?";
}

class Axis;

struct AxisNode {
  std::string name;  // a hint only: structural equality ignores it
  AxisKind kind = AxisKind::kDenseFixed;
  std::shared_ptr<const AxisNode> parent;  // null for dense_fixed
  Expr length;                             // coordinates lie in [0, length)
  // dense_variable, sparse_variable: the positions of the axis over all of its parent's;
  // sparse_fixed: the positions under each position of the parent (nnz_cols).
  Expr nnz;
  Buffer indptr;   // variable kinds: NumPositions(parent) + 1 offsets
  Buffer indices;  // sparse kinds: the coordinate of each position
  DataType idtype = DataType::Int(32);
  bool sorted = true;  // sparse kinds: indices ascend within a parent position
};

class Axis {
 public:
  Axis() = default;
  explicit Axis(std::shared_ptr<const AxisNode> ptr) : ptr_(std::move(ptr)) {}
  bool defined() const { return ptr_ != nullptr; }
  const AxisNode* get() const { return ptr_.get(); }
  const AxisNode* operator->() const { return ptr_.get(); }
  const std::shared_ptr<const AxisNode>& ptr() const { return ptr_; }
  bool same_as(const Axis& other) const { return ptr_ == other.ptr_; }
  Axis parent() const { return Axis(ptr_->parent); }
  bool is_variable() const {
    return ptr_->kind == AxisKind::kDenseVariable || ptr_->kind == AxisKind::kSparseVariable;
  }
  bool is_sparse() const {
    return ptr_->kind == AxisKind::kSparseFixed || ptr_->kind == AxisKind::kSparseVariable;
  }

 private:
  std::shared_ptr<const AxisNode> ptr_;
};

// The number of positions of `axis` over all positions of its ancestors: its length when dense
// fixed, nnz when variable, NumPositions(parent) * nnz_cols when sparse fixed.
inline Expr NumPositions(const Axis& axis) {
  switch (axis->kind) {
    case AxisKind::kDenseFixed:
      return axis->length;
    case AxisKind::kSparseFixed:
      return NumPositions(axis.parent()) * axis->nnz;
    default:
      return axis->nnz;
  }
}

// The most positions one parent position holds (the extent of a loop over the axis): length
// for dense and variable axes, nnz_cols for sparse_fixed.
inline Expr MaxRowPositions(const Axis& axis) {
  return axis->kind == AxisKind::kSparseFixed ? axis->nnz : axis->length;
}

}  // namespace kiln::ir
