// SymTensor construction, conversion to and from HostTensor, and broadcasting.
#include "ir/frontend/onnx/sym_tensor.h"

#include <algorithm>
#include <limits>

#include "support/error.h"

namespace kiln::ir::frontend::onnx {

SymTensor SymTensor::Vector(std::vector<PrimExpr> elems, DataType dtype) {
  SymTensor t;
  t.dtype = dtype;
  t.shape = {static_cast<int64_t>(elems.size())};
  for (PrimExpr& e : elems) e = relax::SimplifyDim(relax::ToDim(e));
  t.elems = std::move(elems);
  return t;
}

SymTensor SymTensor::Scalar(PrimExpr elem, DataType dtype) {
  SymTensor t;
  t.dtype = dtype;
  t.elems = {relax::SimplifyDim(relax::ToDim(elem))};
  return t;
}

SymTensor SymTensor::FromInts(const std::vector<int64_t>& values, std::vector<int64_t> shape,
                              DataType dtype) {
  SymTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  for (int64_t v : values) t.elems.push_back(relax::DimConst(v));
  return t;
}

std::optional<SymTensor> SymTensor::FromHostTensor(const HostTensor& t) {
  if (!t.dtype().is_integral() || !t.dtype().is_scalar() || t.numel() > kMaxKnownElements) {
    return std::nullopt;
  }
  SymTensor s;
  s.dtype = t.dtype();
  s.shape = t.shape();
  for (int64_t i = 0; i < t.numel(); ++i) {
    s.elems.push_back(relax::DimConst(t.dtype().is_bool() ? (t.GetInt(i) != 0) : t.GetInt(i)));
  }
  return s;
}

bool SymTensor::IsConstant() const {
  return std::all_of(elems.begin(), elems.end(),
                     [](const PrimExpr& e) { return AsConstInt(e).has_value(); });
}

std::optional<std::vector<int64_t>> SymTensor::ConstValues() const {
  std::vector<int64_t> values;
  for (const PrimExpr& e : elems) {
    auto v = AsConstInt(e);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

HostTensor SymTensor::ToHostTensor() const {
  auto values = ConstValues();
  KILN_CHECK(values.has_value(), ErrorKind::kInternal,
             "SymTensor::ToHostTensor on symbolic values " + ToString());
  HostTensor t(dtype, shape);
  for (size_t i = 0; i < values->size(); ++i) t.SetInt(static_cast<int64_t>(i), (*values)[i]);
  return t;
}

std::string SymTensor::ToString() const {
  std::string text = "[";
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i > 0) text += ", ";
    text += relax::DimToString(elems[i]);
  }
  return text + "]";
}

int64_t WrapToDType(int64_t value, DataType dtype) {
  if (dtype.is_bool()) return value != 0;
  int bits = dtype.bits();
  if (bits >= 64) return value;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(value) & mask;
  if (dtype.is_int() && (u >> (bits - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

std::optional<std::vector<int64_t>> BroadcastConstShapes(const std::vector<int64_t>& a,
                                                         const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i + a.size() >= n ? a[i + a.size() - n] : 1;
    int64_t db = i + b.size() >= n ? b[i + b.size() - n] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::optional<std::vector<std::pair<int64_t, int64_t>>> BroadcastIndexPairs(
    const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out_shape) {
  auto shape = BroadcastConstShapes(a, b);
  if (!shape) return std::nullopt;
  int64_t total = 1;
  for (int64_t d : *shape) {
    total *= d;
    if (total > kMaxKnownElements) return std::nullopt;
  }
  size_t n = shape->size();
  // Row-major strides of a and b over the broadcast shape (0 along broadcast dims).
  std::vector<int64_t> sa(n, 0), sb(n, 0);
  int64_t ka = 1, kb = 1;
  for (size_t i = n; i-- > 0;) {
    size_t ia = i + a.size(), ib = i + b.size();
    if (ia >= n) {
      int64_t d = a[ia - n];
      sa[i] = d == 1 ? 0 : ka;
      ka *= d;
    }
    if (ib >= n) {
      int64_t d = b[ib - n];
      sb[i] = d == 1 ? 0 : kb;
      kb *= d;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::vector<int64_t> index(n, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t ia = 0, ib = 0;
    for (size_t i = 0; i < n; ++i) {
      ia += index[i] * sa[i];
      ib += index[i] * sb[i];
    }
    pairs.emplace_back(ia, ib);
    for (size_t i = n; i-- > 0;) {
      if (++index[i] < (*shape)[i]) break;
      index[i] = 0;
    }
  }
  *out_shape = *shape;
  return pairs;
}

std::optional<SymTensor> SymBroadcastTo(const SymTensor& t, const std::vector<int64_t>& shape) {
  if (t.shape.size() > shape.size()) return std::nullopt;
  std::vector<int64_t> out_shape;
  SymTensor target;
  target.dtype = t.dtype;
  target.shape = shape;
  int64_t total = 1;
  for (int64_t d : shape) {
    total *= d;
    if (total > kMaxKnownElements) return std::nullopt;
  }
  auto pairs = BroadcastIndexPairs(t.shape, shape, &out_shape);
  if (!pairs || out_shape != shape) return std::nullopt;
  for (auto [i, j] : *pairs) target.elems.push_back(t.elems[i]);
  return target;
}

SymTensor SymReshape(SymTensor t, std::vector<int64_t> shape) {
  t.shape = std::move(shape);
  return t;
}

namespace {

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

}  // namespace

std::optional<SymTensor> SymGather(const SymTensor& t, const std::vector<int64_t>& indices,
                                   const std::vector<int64_t>& indices_shape, int axis) {
  SymTensor out;
  out.dtype = t.dtype;
  out.shape.assign(t.shape.begin(), t.shape.begin() + axis);
  out.shape.insert(out.shape.end(), indices_shape.begin(), indices_shape.end());
  out.shape.insert(out.shape.end(), t.shape.begin() + axis + 1, t.shape.end());
  int64_t outer = Product(t.shape, 0, axis), dim = t.shape[axis];
  int64_t inner = Product(t.shape, axis + 1, t.shape.size());
  if (outer * static_cast<int64_t>(indices.size()) * inner > kMaxKnownElements) return std::nullopt;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t idx : indices) {
      for (int64_t in = 0; in < inner; ++in)
        out.elems.push_back(t.elems[(o * dim + idx) * inner + in]);
    }
  }
  return out;
}

std::optional<SymTensor> SymConcat(const std::vector<SymTensor>& parts, int axis) {
  if (parts.empty()) return std::nullopt;
  SymTensor out;
  out.dtype = parts[0].dtype;
  out.shape = parts[0].shape;
  out.shape[axis] = 0;
  for (const SymTensor& p : parts) {
    if (p.rank() != parts[0].rank() || p.dtype != out.dtype) return std::nullopt;
    for (int i = 0; i < p.rank(); ++i) {
      if (i != axis && p.shape[i] != parts[0].shape[i]) return std::nullopt;
    }
    out.shape[axis] += p.shape[axis];
  }
  int64_t outer = Product(out.shape, 0, axis),
          inner = Product(out.shape, axis + 1, out.shape.size());
  if (outer * out.shape[axis] * inner > kMaxKnownElements) return std::nullopt;
  for (int64_t o = 0; o < outer; ++o) {
    for (const SymTensor& p : parts) {
      int64_t slab = p.shape[axis] * inner;
      for (int64_t k = 0; k < slab; ++k) out.elems.push_back(p.elems[o * slab + k]);
    }
  }
  return out;
}

std::optional<SymTensor> SymSlice(const SymTensor& t, const std::vector<int>& axes,
                                  const std::vector<int64_t>& begin,
                                  const std::vector<int64_t>& end,
                                  const std::vector<int64_t>& step) {
  int rank = t.rank();
  std::vector<int64_t> first(rank, 0), stride(rank, 1), out_shape = t.shape;
  for (size_t i = 0; i < axes.size(); ++i) {
    int a = axes[i];
    int64_t s = step[i];
    if (s == 0 || s == std::numeric_limits<int64_t>::min()) return std::nullopt;
    // begin and end are clamped to [-1, dim], so only the step can be large.
    int64_t span = s > 0 ? end[i] - begin[i] : begin[i] - end[i];
    int64_t n = span > 0 ? 1 + (span - 1) / (s > 0 ? s : -s) : 0;
    out_shape[a] = n;
    first[a] = begin[i];
    stride[a] = s;
  }
  SymTensor out;
  out.dtype = t.dtype;
  out.shape = out_shape;
  int64_t total = Product(out_shape, 0, out_shape.size());
  if (total > kMaxKnownElements) return std::nullopt;
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src = src * t.shape[d] + first[d] + index[d] * stride[d];
    out.elems.push_back(t.elems[src]);
    for (int d = rank; d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace kiln::ir::frontend::onnx
