// strided_slice (positive and negative strides, negative and out-of-range begins and ends,
// symbolic dims), take (any axis, negative indices, int32 and int64 indices, multi-dim
// indices), gather_elements and gather_nd, against python-slicing and gather references; and
// strided_slice with its bounds given as dim arguments.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// The indices python's range(dim)[begin:end:stride] visits.
std::vector<int64_t> PySlice(int64_t dim, int64_t begin, int64_t end, int64_t stride) {
  auto norm = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += dim;
    return std::clamp(v, lo, hi);
  };
  std::vector<int64_t> out;
  if (stride > 0) {
    for (int64_t i = norm(begin, 0, dim); i < norm(end, 0, dim); i += stride) out.push_back(i);
  } else {
    for (int64_t i = norm(begin, -1, dim - 1); i > norm(end, -1, dim - 1); i += stride) {
      out.push_back(i);
    }
  }
  return out;
}

struct SliceCase {
  std::vector<int64_t> axes, begin, end, strides;
};

void CheckSlice(std::vector<PrimExpr> dims, const Shape& shape, const SliceCase& c) {
  IRModule m = OpModule({TensorParam("x", std::move(dims))}, [&](const std::vector<Var>& p) {
    return Call("strided_slice", {p[0]},
                Attrs()
                    .Set("axes", c.axes)
                    .Set("begin", c.begin)
                    .Set("end", c.end)
                    .Set("strides", c.strides));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, shape, 17);
  Value out = RunMain(legal, {x});
  std::vector<std::vector<int64_t>> picks;
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> all;
    for (int64_t i = 0; i < shape[d]; ++i) all.push_back(i);
    picks.push_back(all);
  }
  for (size_t k = 0; k < c.axes.size(); ++k) {
    size_t a = c.axes[k] < 0 ? c.axes[k] + shape.size() : c.axes[k];
    picks[a] = PySlice(shape[a], c.begin[k], c.end[k], c.strides[k]);
  }
  for (const auto& p : picks) out_shape.push_back(static_cast<int64_t>(p.size()));
  HostTensor expected(kF32, out_shape);
  ForEachIndex(out_shape, [&](const Index& o) {
    Index i(o.size());
    for (size_t d = 0; d < o.size(); ++d) i[d] = picks[d][o[d]];
    SetAt(expected, o, At(x, i));
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeIndex, StridedSliceStatic) {
  CheckSlice({5, 6}, {5, 6}, {{0, 1}, {1, -1}, {4, 0}, {2, -2}});
  CheckSlice({5, 6}, {5, 6}, {{1}, {-100}, {100}, {1}});                 // clamped bounds
  CheckSlice({5, 6}, {5, 6}, {{0}, {2147483647}, {-2147483647}, {-1}});  // full reverse
  CheckSlice({5, 6}, {5, 6}, {{-1}, {-2}, {-7}, {-3}});
}

TEST(LegalizeIndex, StridedSliceSymbolic) {
  PrimVar n = SymbolicDim("n");
  CheckSlice({n, 4}, {7, 4}, {{0}, {1}, {2147483647}, {2}});
  CheckSlice({n, 4}, {7, 4}, {{0}, {-3}, {2147483647}, {1}});
  CheckSlice({n, 4}, {7, 4}, {{0}, {2147483647}, {-2147483647}, {-2}});
}

// The argument form: bounds as dims already inside the axis, here min(2, n) to n - 1 and
// n - 1 down to before 0, with a shape variable (seq) that no input has as a whole dim.
TEST(LegalizeIndex, StridedSliceWithBoundsAsArguments) {
  PrimVar n = SymbolicDim("n"), seq = SymbolicDim("seq");
  IRModule m = OpModule({TensorParam("x", {n, 6}), TensorParam("ids", {seq}, DataType::Int(64))},
                        [&](const std::vector<Var>& p) {
                          return Call("strided_slice",
                                      {p[0], ShapeExpr({Min(PrimExpr(2), n), n - 1}),
                                       ShapeExpr({n - 1, Min(seq, PrimExpr(6)) - 1 - 1})},
                                      Attrs().Set("axes", {0, 1}).Set("strides", {1, -1}));
                        });
  IRModule legal = LegalizeChecked(m);
  for (int64_t rows : {1, 5}) {
    SCOPED_TRACE("n = " + std::to_string(rows));
    HostTensor x = Random(kF32, {rows, 6}, 17);
    HostTensor ids(DataType::Int(64), {3});
    Value out = RunMain(legal, {x, ids});
    // Rows min(2, n) .. n - 2, columns n - 1 down to past min(3, 6) - 2 = 1.
    std::vector<int64_t> r, c;
    for (int64_t i = std::min<int64_t>(2, rows); i < rows - 1; ++i) r.push_back(i);
    for (int64_t j = rows - 1; j > 1; --j) c.push_back(j);
    Shape out_shape = {static_cast<int64_t>(r.size()), static_cast<int64_t>(c.size())};
    HostTensor expected(kF32, out_shape);
    ForEachIndex(out_shape, [&](const Index& o) { SetAt(expected, o, At(x, {r[o[0]], c[o[1]]})); });
    ExpectClose(expected, out.tensor());
  }
}

TEST(LegalizeIndex, GatherND) {
  PrimVar b = SymbolicDim("b");
  IRModule m =
      OpModule({TensorParam("x", {b, 4, 3, 2}), TensorParam("i", {b, 5, 2}, DataType::Int(64))},
               [&](const std::vector<Var>& p) {
                 return Call("gather_nd", {p[0], p[1]}, Attrs().Set("batch_dims", 1));
               });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, {2, 4, 3, 2}, 5);
  // Row entries in [-3, 2]: negative ones count from the end of their axis.
  HostTensor idx = Random(DataType::Int(64), {2, 5, 2}, 6, -3, 2);
  Value out = RunMain(legal, {x, idx});
  HostTensor expected(kF32, {2, 5, 2});
  ForEachIndex({2, 5, 2}, [&](const Index& o) {
    int64_t i0 = At(idx, {o[0], o[1], 0}), i1 = At(idx, {o[0], o[1], 1});
    SetAt(expected, o, At(x, {o[0], i0 < 0 ? i0 + 4 : i0, i1 < 0 ? i1 + 3 : i1, o[2]}));
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeIndex, Take) {
  PrimVar n = SymbolicDim("n");
  for (DataType index_dtype : {DataType::Int(32), DataType::Int(64)}) {
    for (int64_t axis : {0, 1, -1}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + " " + index_dtype.ToString());
      IRModule m = OpModule({TensorParam("x", {n, 4, 3}), TensorParam("i", {2, 2}, index_dtype)},
                            [&](const std::vector<Var>& p) {
                              return Call("take", {p[0], p[1]}, Attrs().Set("axis", axis));
                            });
      IRModule legal = LegalizeChecked(m);
      Shape shape = {5, 4, 3};
      int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
      HostTensor x = Random(kF32, shape, 2);
      // Negative indices count from the end.
      HostTensor idx = Random(index_dtype, {2, 2}, 3, -shape[a], shape[a] - 1);
      Value out = RunMain(legal, {x, idx});
      Shape out_shape(shape.begin(), shape.begin() + a);
      out_shape.insert(out_shape.end(), {2, 2});
      out_shape.insert(out_shape.end(), shape.begin() + a + 1, shape.end());
      HostTensor expected(kF32, out_shape);
      ForEachIndex(out_shape, [&](const Index& o) {
        Index i(o.begin(), o.begin() + a);
        int64_t j = At(idx, {o[a], o[a + 1]});
        i.push_back(j < 0 ? j + shape[a] : j);
        i.insert(i.end(), o.begin() + a + 2, o.end());
        SetAt(expected, o, At(x, i));
      });
      ExpectClose(expected, out.tensor());
    }
  }
}

// TVM's take modes on indices outside the axis: "clip" clamps (a negative index to 0), "wrap"
// takes the index modulo the axis.
TEST(LegalizeIndex, TakeClipAndWrapModes) {
  for (const char* mode : {"clip", "wrap"}) {
    SCOPED_TRACE(mode);
    IRModule m =
        OpModule({TensorParam("x", {5, 3}), TensorParam("i", {6}, DataType::Int(64))},
                 [&](const std::vector<Var>& p) {
                   return Call("take", {p[0], p[1]}, Attrs().Set("axis", 0).Set("mode", mode));
                 });
    IRModule legal = LegalizeChecked(m);
    HostTensor x = Random(kF32, {5, 3}, 2), idx(DataType::Int(64), {6});
    const int64_t indices[] = {-7, -1, 0, 4, 5, 12};
    for (int64_t k = 0; k < 6; ++k) idx.SetInt(k, indices[k]);
    Value out = RunMain(legal, {x, idx});
    HostTensor expected(kF32, {6, 3});
    for (int64_t k = 0; k < 6; ++k) {
      int64_t j = indices[k];
      int64_t row = std::string(mode) == "clip" ? std::clamp<int64_t>(j, 0, 4) : ((j % 5) + 5) % 5;
      for (int64_t c = 0; c < 3; ++c) expected.SetDouble(k * 3 + c, At(x, {row, c}));
    }
    ExpectClose(expected, out.tensor());
  }
}

TEST(LegalizeIndex, TakeScalarIndex) {
  IRModule m = OpModule({TensorParam("x", {4, 3}), TensorParam("i", {}, DataType::Int(64))},
                        [](const std::vector<Var>& p) {
                          return Call("take", {p[0], p[1]});
                        });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, {4, 3}, 2), idx(DataType::Int(64), {});
  idx.SetInt(0, 2);
  Value out = RunMain(legal, {x, idx});
  HostTensor expected(kF32, {3});
  for (int64_t j = 0; j < 3; ++j) expected.SetDouble(j, At(x, {2, j}));
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeIndex, GatherElements) {
  PrimVar n = SymbolicDim("n");
  for (int64_t axis : {0, 1}) {
    IRModule m = OpModule({TensorParam("x", {n, 4}), TensorParam("i", {2, 3}, DataType::Int(64))},
                          [&](const std::vector<Var>& p) {
                            return Call("gather_elements", {p[0], p[1]}, Attrs().Set("axis", axis));
                          });
    IRModule legal = LegalizeChecked(m);
    Shape shape = {3, 4};
    HostTensor x = Random(kF32, shape, 5);
    HostTensor idx = Random(DataType::Int(64), {2, 3}, 6, -shape[axis], shape[axis] - 1);
    Value out = RunMain(legal, {x, idx});
    HostTensor expected(kF32, {2, 3});
    ForEachIndex({2, 3}, [&](const Index& o) {
      Index i = o;
      int64_t j = At(idx, o);
      i[axis] = j < 0 ? j + shape[axis] : j;
      SetAt(expected, o, At(x, i));
    });
    ExpectClose(expected, out.tensor());
  }
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
