// Reductions (sum, max, min, prod, mean, variance, std) over single, several, negative and
// all axes with and without keepdims; argmax/argmin with ties, no axis and keepdims; cumsum and
// cumprod along an axis, flattened, exclusive and with a dtype; against references in double.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kI32 = DataType::Int(32);

using Combine = std::function<double(const std::vector<double>&)>;

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}
double Mean(const std::vector<double>& v) { return Sum(v) / v.size(); }
double Variance(const std::vector<double>& v) {
  double m = Mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / v.size();
}

// Reduces `x` over `axes` (normalized, sorted; empty = all) with `combine`.
HostTensor RefReduce(const HostTensor& x, std::vector<int> axes, bool keepdims,
                     const Combine& combine, DataType out_dtype) {
  int nd = static_cast<int>(x.shape().size());
  if (axes.empty()) {
    for (int d = 0; d < nd; ++d) axes.push_back(d);
  }
  auto reduced = [&](int d) { return std::find(axes.begin(), axes.end(), d) != axes.end(); };
  Shape kept = x.shape(), out_shape;
  for (int d = 0; d < nd; ++d) {
    if (reduced(d)) kept[d] = 1;
    if (!reduced(d)) {
      out_shape.push_back(x.shape()[d]);
    } else if (keepdims) {
      out_shape.push_back(1);
    }
  }
  HostTensor out(out_dtype, out_shape);
  ForEachIndex(kept, [&](const Index& k) {
    std::vector<double> values;
    ForEachIndex(x.shape(), [&](const Index& i) {
      for (int d = 0; d < nd; ++d) {
        if (!reduced(d) && i[d] != k[d]) return;
      }
      values.push_back(At(x, i));
    });
    Index o;
    for (int d = 0; d < nd; ++d) {
      if (!reduced(d) || keepdims) o.push_back(reduced(d) ? 0 : k[d]);
    }
    SetAt(out, o, combine(values));
  });
  return out;
}

struct ReduceCase {
  std::string op;
  Combine combine;
};

std::vector<ReduceCase> Cases() {
  return {
      {"sum", Sum},
      {"max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }},
      {"min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }},
      {"prod",
       [](const std::vector<double>& v) {
         double p = 1;
         for (double x : v) p *= x;
         return p;
       }},
      {"mean", Mean},
      {"variance", Variance},
      {"std", [](const std::vector<double>& v) { return std::sqrt(Variance(v)); }},
  };
}

void CheckReduce(const ReduceCase& c, std::optional<std::vector<int64_t>> axis, bool keepdims,
                 DataType dtype = kF32) {
  SCOPED_TRACE(c.op + (keepdims ? " keepdims" : ""));
  PrimVar n = SymbolicDim("n");
  Shape shape = {2, 3, 4};
  Attrs attrs;
  attrs.Set("keepdims", keepdims);
  if (axis) attrs.Set("axis", *axis);
  IRModule m = OpModule({TensorParam("x", {2, n, 4}, dtype)},
                        [&](const std::vector<Var>& p) { return Call(c.op, {p[0]}, attrs); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(dtype, shape, 3, dtype.is_float() ? 0.5 : -3, dtype.is_float() ? 1.5 : 3);
  Value out = RunMain(legal, {x});
  std::vector<int> axes;
  if (axis) {
    for (int64_t a : *axis) axes.push_back(static_cast<int>(a < 0 ? a + 3 : a));
    std::sort(axes.begin(), axes.end());
  }
  ExpectClose(RefReduce(x, axes, keepdims, c.combine, dtype), out.tensor());
}

TEST(LegalizeReduce, EveryOpOverAxisVariants) {
  for (const ReduceCase& c : Cases()) {
    CheckReduce(c, std::vector<int64_t>{1}, false);
    CheckReduce(c, std::vector<int64_t>{-1}, true);
    CheckReduce(c, std::vector<int64_t>{0, -1}, false);
    CheckReduce(c, std::nullopt, false);
    CheckReduce(c, std::nullopt, true);
  }
}

TEST(LegalizeReduce, Integers) {
  for (const ReduceCase& c : Cases()) {
    if (c.op == "mean" || c.op == "variance" || c.op == "std") continue;
    CheckReduce(c, std::vector<int64_t>{1, 2}, false, kI32);
  }
}

TEST(LegalizeReduce, BoolMaxIsAny) {
  IRModule m = OpModule(
      {TensorParam("x", {3, 4}, DataType::Bool())},
      [](const std::vector<Var>& p) { return Call("max", {p[0]}, Attrs().Set("axis", {1})); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(DataType::Bool(), {3, 4}, 8, 0, 1);
  Value out = RunMain(legal, {x});
  ExpectClose(
      RefReduce(
          x, {1}, false,
          [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); },
          DataType::Bool()),
      out.tensor());
}

// First index of the extreme value along `axis` (or of the flattened tensor).
HostTensor RefArg(const HostTensor& x, std::optional<int> axis, bool keepdims, bool max) {
  Shape shape = x.shape();
  if (!axis) {
    double best = x.GetDouble(0);
    int64_t at = 0;
    for (int64_t i = 1; i < x.numel(); ++i) {
      double v = x.GetDouble(i);
      if (max ? v > best : v < best) best = v, at = i;
    }
    HostTensor out(DataType::Int(64), keepdims ? Shape(shape.size(), 1) : Shape{});
    out.SetInt(0, at);
    return out;
  }
  Shape kept = shape;
  kept[*axis] = 1;
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int>(d) != *axis || keepdims) out_shape.push_back(kept[d]);
  }
  HostTensor out(DataType::Int(64), out_shape);
  ForEachIndex(kept, [&](const Index& k) {
    Index i = k;
    double best = At(x, i);
    int64_t at = 0;
    for (int64_t j = 1; j < shape[*axis]; ++j) {
      i[*axis] = j;
      double v = At(x, i);
      if (max ? v > best : v < best) best = v, at = j;
    }
    Index o;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int>(d) != *axis || keepdims) o.push_back(k[d]);
    }
    out.SetInt(FlatIndex(out_shape, o), at);
  });
  return out;
}

TEST(LegalizeReduce, ArgmaxArgmin) {
  PrimVar n = SymbolicDim("n");
  for (bool max : {true, false}) {
    for (std::optional<int64_t> axis :
         {std::optional<int64_t>(1), std::optional<int64_t>(-1), std::optional<int64_t>()}) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(max ? "argmax" : "argmin") + " axis " +
                     (axis ? std::to_string(*axis) : "none") + (keepdims ? " keepdims" : ""));
        Attrs attrs;
        attrs.Set("keepdims", keepdims);
        if (axis) attrs.Set("axis", *axis);
        IRModule m = OpModule({TensorParam("x", {n, 5}, kI32)}, [&](const std::vector<Var>& p) {
          return Call(max ? "argmax" : "argmin", {p[0]}, attrs);
        });
        IRModule legal = LegalizeChecked(m);
        // Small integers: ties are common, and the first index must win.
        HostTensor x = Random(kI32, {3, 5}, 12, -2, 2);
        Value out = RunMain(legal, {x});
        std::optional<int> a;
        if (axis) a = static_cast<int>(*axis < 0 ? *axis + 2 : *axis);
        ExpectClose(RefArg(x, a, keepdims, max), out.tensor());
      }
    }
  }
}

HostTensor RefScan(const HostTensor& x, std::optional<int> axis, bool exclusive, bool prod,
                   DataType dtype) {
  HostTensor flat = x;
  Shape shape = x.shape();
  int a = 0;
  if (!axis) {
    shape = {x.numel()};
  } else {
    a = *axis;
  }
  HostTensor out(dtype, shape);
  ForEachIndex(shape, [&](const Index& i) {
    double acc = prod ? 1 : 0;
    Index j = i;
    int64_t last = exclusive ? i[a] - 1 : i[a];
    for (int64_t k = 0; k <= last; ++k) {
      j[a] = k;
      double v = axis ? At(x, j) : x.GetDouble(k);
      acc = prod ? acc * v : acc + v;
    }
    SetAt(out, i, acc);
  });
  return out;
}

TEST(LegalizeReduce, CumsumCumprod) {
  PrimVar n = SymbolicDim("n");
  for (bool prod : {false, true}) {
    for (std::optional<int64_t> axis :
         {std::optional<int64_t>(1), std::optional<int64_t>(-2), std::optional<int64_t>()}) {
      for (bool exclusive : {false, true}) {
        SCOPED_TRACE(std::string(prod ? "cumprod" : "cumsum") + " axis " +
                     (axis ? std::to_string(*axis) : "none") + (exclusive ? " exclusive" : ""));
        Attrs attrs;
        attrs.Set("exclusive", exclusive);
        if (axis) attrs.Set("axis", *axis);
        IRModule m = OpModule({TensorParam("x", {n, 4})}, [&](const std::vector<Var>& p) {
          return Call(prod ? "cumprod" : "cumsum", {p[0]}, attrs);
        });
        IRModule legal = LegalizeChecked(m);
        HostTensor x = Random(kF32, {3, 4}, 2, 0.5, 1.5);
        Value out = RunMain(legal, {x});
        std::optional<int> a;
        if (axis) a = static_cast<int>(*axis < 0 ? *axis + 2 : *axis);
        ExpectClose(RefScan(x, a, exclusive, prod, kF32), out.tensor());
      }
    }
  }
}

TEST(LegalizeReduce, CumsumWithDtype) {
  IRModule m = OpModule({TensorParam("x", {2, 5}, kI32)}, [](const std::vector<Var>& p) {
    return Call("cumsum", {p[0]}, Attrs().Set("axis", 1).Set("dtype", "int64"));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kI32, {2, 5}, 2, -9, 9);
  Value out = RunMain(legal, {x});
  ExpectClose(RefScan(x, 1, false, false, DataType::Int(64)), out.tensor());
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
