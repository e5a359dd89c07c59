// PrimFunc: a TensorIR function. Parameters are Vars; a parameter that is a tensor is a handle
// Var mapped to its Buffer in buffer_map (in parameter order). Scalar parameters (int32 n)
// have no buffer. Shape Vars used in buffer shapes are defined by the buffers that use them.
// A SparseTIR function also declares axes and sparse buffers (ir/sparse/).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/sparse/sparse_buffer.h"
#include "ir/stmt.h"

namespace kiln::ir {

struct PrimFuncNode {
  std::string name;  // the function's symbol; not part of its structure
  std::vector<Var> params;
  std::vector<std::pair<Var, Buffer>> buffer_map;
  Stmt body;
  Annotations attrs;
  // SparseTIR (stages I and II): the axes and sparse buffers, in declaration order. Empty for
  // TensorIR; LowerSparseBuffer (ir/sparse/transform/) empties them.
  std::vector<Axis> sp_axes;
  std::vector<SparseBuffer> sp_buffers;
  // The buffer bound to `param`, if it has one.
  std::optional<Buffer> BufferOf(const Var& param) const;
};

class PrimFunc {
 public:
  PrimFunc() = default;
  explicit PrimFunc(std::shared_ptr<const PrimFuncNode> ptr) : ptr_(std::move(ptr)) {}
  bool defined() const { return ptr_ != nullptr; }
  const PrimFuncNode* get() const { return ptr_.get(); }
  const PrimFuncNode* operator->() const { return ptr_.get(); }
  bool same_as(const PrimFunc& other) const { return ptr_ == other.ptr_; }
  // A copy with another body (the usual result of a transformation).
  PrimFunc WithBody(Stmt body) const;

 private:
  std::shared_ptr<const PrimFuncNode> ptr_;
};

PrimFunc MakePrimFunc(std::string name, std::vector<Var> params,
                      std::vector<std::pair<Var, Buffer>> buffer_map, Stmt body,
                      Annotations attrs = {});

}  // namespace kiln::ir
