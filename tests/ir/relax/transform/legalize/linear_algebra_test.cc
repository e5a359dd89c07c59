// matmul (2-D, batched with broadcast batch dims, 1-D operands, symbolic dims, out_dtype)
// and linear (with and without bias) against a numpy-rules reference in double.
#include <gtest/gtest.h>

#include "ir/text/printer.h"
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// numpy.matmul in double: a 1-D operand is promoted, then its dim dropped from the result.
HostTensor RefMatmul(const HostTensor& a, const HostTensor& b, DataType out_dtype,
                     const Shape& out_shape) {
  Shape as = a.shape(), bs = b.shape();
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  int64_t k_extent = as.back();
  Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
  size_t nb = std::max(a_batch.size(), b_batch.size());
  HostTensor out(out_dtype, out_shape);
  ForEachIndex(out_shape, [&](const Index& o) {
    Index batch(o.begin(), o.begin() + nb);
    size_t pos = nb;
    int64_t i = a_vec ? 0 : o[pos++];
    int64_t j = b_vec ? 0 : o[pos++];
    Index ab = BroadcastIndex(a_batch, batch), bb = BroadcastIndex(b_batch, batch);
    double sum = 0;
    for (int64_t k = 0; k < k_extent; ++k) {
      Index ai = ab, bi = bb;
      if (!a_vec) ai.push_back(i);
      ai.push_back(k);
      bi.push_back(k);
      if (!b_vec) bi.push_back(j);
      sum += At(a, ai) * At(b, bi);
    }
    SetAt(out, o, sum);
  });
  return out;
}

void CheckMatmul(std::vector<PrimExpr> a_dims, std::vector<PrimExpr> b_dims, const Shape& a_shape,
                 const Shape& b_shape, const Shape& out_shape, DataType dtype = kF32,
                 Attrs attrs = Attrs()) {
  IRModule m = OpModule(
      {TensorParam("a", std::move(a_dims), dtype), TensorParam("b", std::move(b_dims), dtype)},
      [&](const std::vector<Var>& p) {
        return Call("matmul", {p[0], p[1]}, attrs);
      });
  IRModule legal = LegalizeChecked(m);
  double lo = dtype.is_float() ? -1 : -3, hi = dtype.is_float() ? 1 : 3;
  HostTensor a = Random(dtype, a_shape, 11, lo, hi), b = Random(dtype, b_shape, 12, lo, hi);
  Value out = RunMain(legal, {a, b});
  DataType out_dtype =
      legal.LookupFunction("main")->get()->ret_struct_info.as<TensorStructInfoNode>()->dtype;
  ExpectClose(RefMatmul(a, b, out_dtype, out_shape), out.tensor());
}

TEST(LegalizeLinearAlgebra, Matmul2d) { CheckMatmul({4, 6}, {6, 5}, {4, 6}, {6, 5}, {4, 5}); }

TEST(LegalizeLinearAlgebra, MatmulSymbolic) {
  PrimVar n = SymbolicDim("n"), k = SymbolicDim("k");
  CheckMatmul({n, k}, {k, 3}, {5, 4}, {4, 3}, {5, 3});
}

TEST(LegalizeLinearAlgebra, MatmulBroadcastsBatchDims) {
  PrimVar n = SymbolicDim("n");
  // (2, 1, n, 4) @ (3, 4, 5) -> (2, 3, n, 5).
  CheckMatmul({2, 1, n, 4}, {3, 4, 5}, {2, 1, 3, 4}, {3, 4, 5}, {2, 3, 3, 5});
  // (b, n, 4) @ (4, 2): a 2-D right operand broadcast over the batch.
  PrimVar b = SymbolicDim("b");
  CheckMatmul({b, n, 4}, {4, 2}, {2, 3, 4}, {4, 2}, {2, 3, 2});
}

TEST(LegalizeLinearAlgebra, MatmulOneDOperands) {
  CheckMatmul({6}, {6, 3}, {6}, {6, 3}, {3});
  CheckMatmul({2, 4, 6}, {6}, {2, 4, 6}, {6}, {2, 4});
  CheckMatmul({5}, {5}, {5}, {5}, {});
  CheckMatmul({4}, {2, 4, 3}, {4}, {2, 4, 3}, {2, 3});
}

TEST(LegalizeLinearAlgebra, MatmulOutDtype) {
  CheckMatmul({3, 4}, {4, 2}, {3, 4}, {4, 2}, {3, 2}, DataType::Int(8),
              Attrs().Set("out_dtype", "int32"));
}

TEST(LegalizeLinearAlgebra, MatmulFloat16) {
  CheckMatmul({3, 6}, {6, 2}, {3, 6}, {6, 2}, {3, 2}, DataType::Float(16));
}

TEST(LegalizeLinearAlgebra, MatmulKernelIsOneReduction) {
  IRModule m =
      OpModule({TensorParam("a", {4, 6}), TensorParam("b", {6, 5})}, [](const std::vector<Var>& p) {
        return Call("matmul", {p[0], p[1]});
      });
  IRModule legal = LegalizeChecked(m);
  std::string text = PrintPrimFunc(*legal.LookupPrimFunc("matmul"));
  EXPECT_NE(text.find("T.sblock(\"T_matmul_NN\")"), std::string::npos) << text;
  EXPECT_NE(text.find("T.init()"), std::string::npos) << text;
}

void CheckLinear(bool bias, std::vector<PrimExpr> x_dims, const Shape& x_shape) {
  std::vector<Var> params = {TensorParam("x", std::move(x_dims)), TensorParam("w", {5, 4})};
  if (bias) params.push_back(TensorParam("bias", {5}));
  IRModule m = OpModule(params, [&](const std::vector<Var>& p) {
    std::vector<Expr> args(p.begin(), p.end());
    return Call("linear", args);
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, x_shape, 1), w = Random(kF32, {5, 4}, 2), b = Random(kF32, {5}, 3);
  std::vector<ArgValue> args = {x, w};
  if (bias) args.push_back(b);
  Value out = RunMain(legal, args);
  Shape out_shape(x_shape.begin(), x_shape.end() - 1);
  out_shape.push_back(5);
  HostTensor expected(kF32, out_shape);
  ForEachIndex(out_shape, [&](const Index& o) {
    double sum = bias ? At(b, {o.back()}) : 0;
    Index xi(o.begin(), o.end() - 1);
    xi.push_back(0);
    for (int64_t k = 0; k < 4; ++k) {
      xi.back() = k;
      sum += At(x, xi) * At(w, {o.back(), k});
    }
    SetAt(expected, o, sum);
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeLinearAlgebra, Linear) {
  PrimVar n = SymbolicDim("n");
  CheckLinear(false, {n, 4}, {3, 4});
  CheckLinear(true, {2, n, 4}, {2, 3, 4});
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
