// nn.pad in its three modes (constant with a value, edge, reflect), with symbolic dims and a
// negative width that crops, against numpy.pad's definition.
#include <gtest/gtest.h>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// numpy.pad: the source index of output index `j` along a dim of `n` with `before` in front.
int64_t PadSource(int64_t j, int64_t before, int64_t n, const std::string& mode) {
  int64_t i = j - before;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  if (mode == "reflect") {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

void CheckPad(std::vector<PrimExpr> dims, const Shape& shape, const std::vector<int64_t>& width,
              const std::string& mode, double value = 0) {
  SCOPED_TRACE(mode);
  IRModule m = OpModule({TensorParam("x", std::move(dims))}, [&](const std::vector<Var>& p) {
    return Call("nn.pad", {p[0]},
                Attrs().Set("pad_width", width).Set("pad_mode", mode).Set("pad_value", value));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, shape, 13);
  Value out = RunMain(legal, {x});
  Shape out_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    out_shape.push_back(shape[d] + width[2 * d] + width[2 * d + 1]);
  }
  HostTensor expected(kF32, out_shape);
  ForEachIndex(out_shape, [&](const Index& o) {
    Index i(o.size());
    bool inside = true;
    for (size_t d = 0; d < o.size(); ++d) {
      i[d] = PadSource(o[d], width[2 * d], shape[d], mode);
      inside = inside && i[d] >= 0 && i[d] < shape[d];
    }
    SetAt(expected, o, inside ? At(x, i) : value);
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeNN, PadModes) {
  PrimVar n = SymbolicDim("n");
  CheckPad({n, 4}, {3, 4}, {1, 2, 0, 3}, "constant", 1.5);
  CheckPad({n, 4}, {3, 4}, {2, 1, 3, 0}, "edge");
  CheckPad({n, 4}, {3, 4}, {2, 2, 1, 3}, "reflect");
}

TEST(LegalizeNN, PadNegativeWidthCrops) { CheckPad({5, 4}, {5, 4}, {-1, 2, 1, -2}, "constant"); }

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
