// Buffers and regions. A Buffer is a multi-dimensional view of memory: element dtype, shape
// (expressions, possibly over symbolic shape Vars shared between parameters), optional
// strides (empty means compact row-major), element offset, storage scope ("global",
// "shared", "local", ...) and the handle Var of its data. Buffers are compared by identity.
#pragma once

#include <string>
#include <vector>

#include "ir/expr.h"

namespace kiln::ir {

struct BufferNode {
  std::string name;  // a hint only: structural equality ignores it
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;  // empty: compact row-major
  Expr elem_offset;           // int32 0 unless set
  std::string scope = "global";
  int64_t align = 0;  // data alignment in bytes; 0 means the default
  Var data;           // the handle variable of its storage
};

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::shared_ptr<const BufferNode> ptr) : ptr_(std::move(ptr)) {}
  bool defined() const { return ptr_ != nullptr; }
  const BufferNode* get() const { return ptr_.get(); }
  const BufferNode* operator->() const { return ptr_.get(); }
  bool same_as(const Buffer& other) const { return ptr_ == other.ptr_; }
  size_t ndim() const { return ptr_->shape.size(); }

 private:
  std::shared_ptr<const BufferNode> ptr_;
};

// A new compact buffer named `name` with a fresh data Var.
Buffer DeclBuffer(std::string name, DataType dtype, std::vector<Expr> shape,
                  std::string scope = "global");
// A copy of `buffer` with another name, shape or scope (a new buffer identity).
Buffer WithShape(const Buffer& buffer, std::vector<Expr> shape);
Buffer WithScope(const Buffer& buffer, std::string scope);

// The half-open interval [min, min + extent).
struct Range {
  Expr min, extent;
  KILN_FIELDS(min, extent)
};
Range RangeFromMinExtent(Expr min, Expr extent);

struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
  KILN_FIELDS(buffer, region)
};
// The region that covers every element of `buffer`.
BufferRegion FullRegion(const Buffer& buffer);

}  // namespace kiln::ir
