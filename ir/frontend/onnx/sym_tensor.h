// SymTensor: a small integer tensor whose elements are known at import time as dim
// expressions (3, n, n * 12, seq // 2). Exported models compute shapes at run time
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, ConstantOfShape(Shape(x)), arithmetic
// on shapes); evaluating those subgraphs on SymTensors at import time gives the graph symbolic
// shapes instead of data-dependent reshapes. Internal to ir/frontend/onnx.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/dim.h"

namespace kiln::ir::frontend::onnx {

using relax::PrimExpr;

// Import-time evaluation is for shape computations: bigger integer tensors stay graph values.
inline constexpr int64_t kMaxKnownElements = 4096;

struct SymTensor {
  // An integer dtype or bool; or a float dtype whose elements are integers (a shape cast to
  // float), which only NodeContext::KnownIntegers hands out.
  DataType dtype = DataType::Int(64);
  std::vector<int64_t> shape;
  std::vector<PrimExpr> elems;  // row-major; each an int64 dim expression, simplified

  static SymTensor Vector(std::vector<PrimExpr> elems, DataType dtype = DataType::Int(64));
  static SymTensor Scalar(PrimExpr elem, DataType dtype = DataType::Int(64));
  static SymTensor FromInts(const std::vector<int64_t>& values, std::vector<int64_t> shape,
                            DataType dtype);
  // nullopt when `t` is not an integer or bool tensor, or has more than kMaxKnownElements.
  static std::optional<SymTensor> FromHostTensor(const HostTensor& t);

  int64_t numel() const { return static_cast<int64_t>(elems.size()); }
  int rank() const { return static_cast<int>(shape.size()); }
  // Every element is a constant.
  bool IsConstant() const;
  // The elements as numbers, when all are constant.
  std::optional<std::vector<int64_t>> ConstValues() const;
  // The tensor itself; requires IsConstant().
  HostTensor ToHostTensor() const;
  // "[n, 3]" for messages.
  std::string ToString() const;
};

// Wraps `value` to what `dtype` holds (int32 overflow wraps, bool is 0 or 1), as a C cast.
int64_t WrapToDType(int64_t value, DataType dtype);

// Numpy broadcasting of two constant shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> BroadcastConstShapes(const std::vector<int64_t>& a,
                                                         const std::vector<int64_t>& b);

// `t` broadcast to `shape` (numpy rules); nullopt when it does not broadcast or the result
// has more than kMaxKnownElements.
std::optional<SymTensor> SymBroadcastTo(const SymTensor& t, const std::vector<int64_t>& shape);

// The same elements under another shape of the same element count.
SymTensor SymReshape(SymTensor t, std::vector<int64_t> shape);
// numpy.take(t, indices, axis) with `indices` already in [0, dim); nullopt when too large.
std::optional<SymTensor> SymGather(const SymTensor& t, const std::vector<int64_t>& indices,
                                   const std::vector<int64_t>& indices_shape, int axis);
// Concatenation along `axis` of tensors of equal rank whose other dims agree.
std::optional<SymTensor> SymConcat(const std::vector<SymTensor>& parts, int axis);
// t[begin:end:step] along each of `axes`, with begin and end already clamped as numpy does.
std::optional<SymTensor> SymSlice(const SymTensor& t, const std::vector<int>& axes,
                                  const std::vector<int64_t>& begin,
                                  const std::vector<int64_t>& end,
                                  const std::vector<int64_t>& step);

// Elementwise op over broadcast SymTensors: `fn` gets the two elements and returns the result
// element, or nullopt when it cannot be computed at import time (then the whole op is).
template <typename Fn>
std::optional<SymTensor> SymBinary(const SymTensor& a, const SymTensor& b, DataType out_dtype,
                                   Fn fn);

// Implementation of SymBinary.
std::optional<std::vector<std::pair<int64_t, int64_t>>> BroadcastIndexPairs(
    const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out_shape);

template <typename Fn>
std::optional<SymTensor> SymBinary(const SymTensor& a, const SymTensor& b, DataType out_dtype,
                                   Fn fn) {
  SymTensor out;
  out.dtype = out_dtype;
  auto pairs = BroadcastIndexPairs(a.shape, b.shape, &out.shape);
  if (!pairs || static_cast<int64_t>(pairs->size()) > kMaxKnownElements) return std::nullopt;
  for (auto [i, j] : *pairs) {
    std::optional<PrimExpr> e = fn(a.elems[i], b.elems[j]);
    if (!e) return std::nullopt;
    out.elems.push_back(relax::SimplifyDim(*e));
  }
  return out;
}

}  // namespace kiln::ir::frontend::onnx
