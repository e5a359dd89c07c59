// softmax / log_softmax on any axis (and their stability on large inputs), layer_norm over one
// and several axes, rms_norm, group_norm (NCHW and channels-last), batch_norm in inference,
// float16 inputs, TVM's center=False / scale=False, against references in double.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);
constexpr DataType kF16 = DataType::Float(16);

// Rows along `axis` of `shape`: fn(indices of the row's elements).
void ForEachRow(const Shape& shape, int axis, const std::function<void(std::vector<Index>)>& fn) {
  Shape outer = shape;
  outer[axis] = 1;
  ForEachIndex(outer, [&](const Index& o) {
    std::vector<Index> row;
    for (int64_t k = 0; k < shape[axis]; ++k) {
      Index i = o;
      i[axis] = k;
      row.push_back(i);
    }
    fn(row);
  });
}

HostTensor RefSoftmax(const HostTensor& x, int axis, bool log) {
  HostTensor out(x.dtype(), x.shape());
  ForEachRow(x.shape(), axis, [&](const std::vector<Index>& row) {
    double m = -INFINITY, sum = 0;
    for (const Index& i : row) m = std::max(m, At(x, i));
    for (const Index& i : row) sum += std::exp(At(x, i) - m);
    for (const Index& i : row) {
      SetAt(out, i, log ? At(x, i) - m - std::log(sum) : std::exp(At(x, i) - m) / sum);
    }
  });
  return out;
}

void CheckSoftmax(bool log, int64_t axis, std::vector<PrimExpr> dims, const Shape& shape,
                  double scale = 1, DataType dtype = kF32) {
  SCOPED_TRACE(std::string(log ? "log_softmax" : "softmax") + " axis " + std::to_string(axis));
  IRModule m = OpModule({TensorParam("x", std::move(dims), dtype)}, [&](const std::vector<Var>& p) {
    return Call(log ? "nn.log_softmax" : "nn.softmax", {p[0]}, Attrs().Set("axis", axis));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(dtype, shape, 5, -scale, scale);
  Value out = RunMain(legal, {x});
  int a = static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
  ExpectClose(RefSoftmax(x, a, log), out.tensor());
}

TEST(LegalizeNorm, SoftmaxAxes) {
  PrimVar n = SymbolicDim("n");
  for (bool log : {false, true}) {
    CheckSoftmax(log, -1, {n, 7}, {3, 7});
    CheckSoftmax(log, 0, {n, 7}, {3, 7});
    CheckSoftmax(log, 1, {2, n, 3}, {2, 4, 3});
    CheckSoftmax(log, 0, {5}, {5});
  }
}

TEST(LegalizeNorm, SoftmaxIsStableOnLargeInputs) {
  // exp(500) overflows float32: only the max-subtracted form gives finite results.
  for (bool log : {false, true}) CheckSoftmax(log, -1, {2, 6}, {2, 6}, 500);
}

TEST(LegalizeNorm, SoftmaxFloat16) { CheckSoftmax(false, -1, {3, 8}, {3, 8}, 2, kF16); }

// Normalizes x over `axes` (sorted), then applies scale/shift indexed by the reduced axes.
HostTensor RefNorm(const HostTensor& x, const std::vector<int>& axes, double eps, bool rms,
                   const std::function<double(const Index&, double)>& affine) {
  Shape kept = x.shape();
  for (int a : axes) kept[a] = 1;
  HostTensor out(x.dtype(), x.shape());
  Shape reduced;
  for (int a : axes) reduced.push_back(x.shape()[a]);
  ForEachIndex(kept, [&](const Index& k) {
    std::vector<Index> members;
    ForEachIndex(reduced, [&](const Index& r) {
      Index i = k;
      for (size_t j = 0; j < axes.size(); ++j) i[axes[j]] = r[j];
      members.push_back(i);
    });
    double mean = 0, var = 0, sq = 0;
    for (const Index& i : members) mean += At(x, i);
    mean /= members.size();
    for (const Index& i : members) {
      var += (At(x, i) - mean) * (At(x, i) - mean);
      sq += At(x, i) * At(x, i);
    }
    var /= members.size();
    sq /= members.size();
    for (const Index& i : members) {
      double v = rms ? At(x, i) / std::sqrt(sq + eps) : (At(x, i) - mean) / std::sqrt(var + eps);
      SetAt(out, i, affine(i, v));
    }
  });
  return out;
}

void CheckLayerNorm(std::vector<PrimExpr> dims, const Shape& shape, std::vector<int64_t> axes,
                    DataType dtype = kF32, bool center = true, bool scale = true) {
  SCOPED_TRACE(std::string("center=") + (center ? "True" : "False") +
               " scale=" + (scale ? "True" : "False"));
  int nd = static_cast<int>(shape.size());
  std::vector<int> norm;
  Shape param_shape;
  std::vector<PrimExpr> param_dims;
  for (int64_t a : axes) {
    int n = static_cast<int>(a < 0 ? a + nd : a);
    norm.push_back(n);
    param_shape.push_back(shape[n]);
    param_dims.push_back(dims[n]);
  }
  IRModule m = OpModule({TensorParam("x", dims, dtype), TensorParam("gamma", param_dims, dtype),
                         TensorParam("beta", param_dims, dtype)},
                        [&](const std::vector<Var>& p) {
                          return Call("nn.layer_norm", {p[0], p[1], p[2]},
                                      Attrs()
                                          .Set("axes", axes)
                                          .Set("epsilon", 1e-3)
                                          .Set("center", center)
                                          .Set("scale", scale));
                        });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(dtype, shape, 1, -2, 3), g = Random(dtype, param_shape, 2),
             b = Random(dtype, param_shape, 3);
  Value out = RunMain(legal, {x, g, b});
  std::vector<int> sorted = norm;
  std::sort(sorted.begin(), sorted.end());
  HostTensor expected = RefNorm(x, sorted, 1e-3, false, [&](const Index& i, double v) {
    Index p;
    for (int a : norm) p.push_back(i[a]);
    return v * (scale ? At(g, p) : 1.0) + (center ? At(b, p) : 0.0);
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeNorm, LayerNorm) {
  PrimVar n = SymbolicDim("n");
  CheckLayerNorm({n, 8}, {3, 8}, {-1});
  CheckLayerNorm({2, n, 4}, {2, 3, 4}, {-2, -1});
  // Axes given out of order: gamma follows the order given.
  CheckLayerNorm({2, 3, 4}, {2, 3, 4}, {2, 1});
  CheckLayerNorm({4, 16}, {4, 16}, {-1}, kF16);
  // TVM's center and scale: without them beta is not added, gamma not multiplied.
  CheckLayerNorm({n, 8}, {3, 8}, {-1}, kF32, false, true);
  CheckLayerNorm({n, 8}, {3, 8}, {-1}, kF32, true, false);
  CheckLayerNorm({2, n, 4}, {2, 3, 4}, {-2, -1}, kF32, false, false);
}

TEST(LegalizeNorm, RmsNorm) {
  PrimVar n = SymbolicDim("n");
  for (DataType dtype : {kF32, kF16}) {
    IRModule m = OpModule({TensorParam("x", {n, 6}, dtype), TensorParam("w", {6}, dtype)},
                          [](const std::vector<Var>& p) {
                            return Call("nn.rms_norm", {p[0], p[1]});
                          });
    IRModule legal = LegalizeChecked(m);
    HostTensor x = Random(dtype, {4, 6}, 3), w = Random(dtype, {6}, 4);
    Value out = RunMain(legal, {x, w});
    HostTensor expected =
        RefNorm(x, {1}, 1e-5, true, [&](const Index& i, double v) { return v * At(w, {i[1]}); });
    ExpectClose(expected, out.tensor());
  }
}

void CheckGroupNorm(std::vector<PrimExpr> dims, const Shape& shape, int64_t groups,
                    int64_t channel_axis, bool center = true, bool scale = true) {
  int nd = static_cast<int>(shape.size());
  int c_axis = static_cast<int>(channel_axis < 0 ? channel_axis + nd : channel_axis);
  int64_t channels = shape[c_axis];
  IRModule m = OpModule({TensorParam("x", dims), TensorParam("gamma", {DimConst(channels)}),
                         TensorParam("beta", {DimConst(channels)})},
                        [&](const std::vector<Var>& p) {
                          return Call("nn.group_norm", {p[0], p[1], p[2]},
                                      Attrs()
                                          .Set("num_groups", groups)
                                          .Set("channel_axis", channel_axis)
                                          .Set("center", center)
                                          .Set("scale", scale));
                        });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, shape, 6), g = Random(kF32, {channels}, 7),
             b = Random(kF32, {channels}, 8);
  Value out = RunMain(legal, {x, g, b});
  // Reference: per (batch, group), over the group's channels and every other axis.
  int64_t per = channels / groups;
  HostTensor expected(kF32, shape);
  int64_t batch = c_axis == 0 ? 1 : shape[0];
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t gi = 0; gi < groups; ++gi) {
      std::vector<Index> members;
      ForEachIndex(shape, [&](const Index& i) {
        if ((c_axis == 0 || i[0] == bi) && i[c_axis] / per == gi) members.push_back(i);
      });
      double mean = 0, var = 0;
      for (const Index& i : members) mean += At(x, i);
      mean /= members.size();
      for (const Index& i : members) var += (At(x, i) - mean) * (At(x, i) - mean);
      var /= members.size();
      for (const Index& i : members) {
        double v = (At(x, i) - mean) / std::sqrt(var + 1e-5);
        SetAt(expected, i,
              v * (scale ? At(g, {i[c_axis]}) : 1.0) + (center ? At(b, {i[c_axis]}) : 0.0));
      }
    }
  }
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeNorm, GroupNorm) {
  PrimVar h = SymbolicDim("h");
  CheckGroupNorm({2, 6, h, 3}, {2, 6, 4, 3}, 3, 1);
  CheckGroupNorm({2, 5, 4}, {2, 5, 4}, 2, -1);  // channels last
  CheckGroupNorm({4, 6}, {4, 6}, 2, 0);         // channels first: no batch axis
  CheckGroupNorm({2, 6, h, 3}, {2, 6, 4, 3}, 3, 1, false, true);
  CheckGroupNorm({2, 6, h, 3}, {2, 6, 4, 3}, 3, 1, true, false);
}

class BatchNormAffine : public ::testing::TestWithParam<std::pair<bool, bool>> {};

TEST_P(BatchNormAffine, Inference) {
  auto [center, scale] = GetParam();
  PrimVar n = SymbolicDim("n");
  IRModule m =
      OpModule({TensorParam("x", {n, 3, 2, 2}), TensorParam("gamma", {3}), TensorParam("beta", {3}),
                TensorParam("mean", {3}), TensorParam("var", {3})},
               [&](const std::vector<Var>& p) {
                 return Call("nn.batch_norm", {p[0], p[1], p[2], p[3], p[4]},
                             Attrs()
                                 .Set("epsilon", 1e-3)
                                 .Set("training", false)
                                 .Set("center", center)
                                 .Set("scale", scale));
               });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, {2, 3, 2, 2}, 1), g = Random(kF32, {3}, 2), b = Random(kF32, {3}, 3),
             mean = Random(kF32, {3}, 4), var = Random(kF32, {3}, 5, 0.1, 2);
  Value out = RunMain(legal, {x, g, b, mean, var});
  ASSERT_EQ(out.fields().size(), 3u);
  HostTensor expected(kF32, {2, 3, 2, 2});
  ForEachIndex({2, 3, 2, 2}, [&](const Index& i) {
    int64_t c = i[1];
    SetAt(expected, i,
          (At(x, i) - mean.GetDouble(c)) / std::sqrt(var.GetDouble(c) + 1e-3) *
                  (scale ? g.GetDouble(c) : 1.0) +
              (center ? b.GetDouble(c) : 0.0));
  });
  ExpectClose(expected, out.fields()[0].tensor());
  // The moving statistics pass through.
  ExpectClose(mean, out.fields()[1].tensor());
  ExpectClose(var, out.fields()[2].tensor());
}

INSTANTIATE_TEST_SUITE_P(CenterScale, BatchNormAffine,
                         ::testing::Values(std::pair{true, true}, std::pair{false, true},
                                           std::pair{true, false}, std::pair{false, false}),
                         [](const ::testing::TestParamInfo<std::pair<bool, bool>>& info) {
                           return std::string(info.param.first ? "center" : "no_center") + "_" +
                                  (info.param.second ? "scale" : "no_scale");
                         });

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
