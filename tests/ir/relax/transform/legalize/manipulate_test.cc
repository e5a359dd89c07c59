// Shape manipulation: reshape (static, symbolic, -1), flatten, permute_dims, squeeze,
// expand_dims, concat (a tuple value or a tuple variable), split (sections, indices, uneven
// symbolic parts: one kernel with several outputs), broadcast_to and tile, each compared with
// a reference that moves elements by index.
#include <gtest/gtest.h>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// Runs main(x) = make(x) on a random x and returns (x, result).
std::pair<HostTensor, Value> RunUnary(std::vector<PrimExpr> dims, const Shape& shape,
                                      const std::function<Expr(const Var&)>& make) {
  IRModule m = OpModule({TensorParam("x", std::move(dims))},
                        [&](const std::vector<Var>& p) { return make(p[0]); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, shape, 21);
  return {x, RunMain(legal, {x})};
}

// The reference of a pure relayout: out.flat[i] = x.flat[source(out index)].
HostTensor Relayout(const HostTensor& x, const Shape& out_shape,
                    const std::function<Index(const Index&)>& source) {
  HostTensor out(x.dtype(), out_shape);
  ForEachIndex(out_shape, [&](const Index& o) { SetAt(out, o, At(x, source(o))); });
  return out;
}

// Row-major copy into another shape.
HostTensor Reshaped(const HostTensor& x, const Shape& shape) {
  HostTensor out(x.dtype(), shape);
  for (int64_t i = 0; i < x.numel(); ++i) out.SetDouble(i, x.GetDouble(i));
  return out;
}

TEST(LegalizeManipulate, Reshape) {
  PrimVar n = SymbolicDim("n");
  auto [x, out] = RunUnary({2, 3, 4}, {2, 3, 4}, [](const Var& v) {
    return Call("reshape", {v, ShapeExpr({DimConst(4), DimConst(-1)})});
  });
  ExpectClose(Reshaped(x, {4, 6}), out.tensor());
  auto [y, out2] = RunUnary({n, 6}, {3, 6}, [n](const Var& v) {
    return Call("reshape", {v, ShapeExpr({n, DimConst(2), DimConst(3)})});
  });
  ExpectClose(Reshaped(y, {3, 2, 3}), out2.tensor());
  auto [z, out3] = RunUnary({n, 2, 3}, {4, 2, 3}, [n](const Var& v) {
    return Call("reshape", {v, ShapeExpr({n * 3, DimConst(2)})});
  });
  ExpectClose(Reshaped(z, {12, 2}), out3.tensor());
}

TEST(LegalizeManipulate, Flatten) {
  PrimVar n = SymbolicDim("n");
  auto [x, out] = RunUnary({n, 2, 3, 2}, {2, 2, 3, 2}, [](const Var& v) {
    return Call("flatten", {v}, Attrs().Set("start_axis", 1).Set("end_axis", 2));
  });
  ExpectClose(Reshaped(x, {2, 6, 2}), out.tensor());
  auto [y, all] = RunUnary({n, 3}, {2, 3}, [](const Var& v) { return Call("flatten", {v}); });
  ExpectClose(Reshaped(y, {6}), all.tensor());
}

TEST(LegalizeManipulate, PermuteDims) {
  PrimVar n = SymbolicDim("n");
  auto [x, out] = RunUnary({n, 3, 4}, {2, 3, 4}, [](const Var& v) {
    return Call("permute_dims", {v}, Attrs().Set("axes", {2, 0, 1}));
  });
  ExpectClose(Relayout(x, {4, 2, 3},
                       [](const Index& o) {
                         return Index{o[1], o[2], o[0]};
                       }),
              out.tensor());
  auto [y, rev] = RunUnary({n, 3}, {2, 3}, [](const Var& v) { return Call("permute_dims", {v}); });
  ExpectClose(Relayout(y, {3, 2}, [](const Index& o) { return Index{o[1], o[0]}; }), rev.tensor());
}

TEST(LegalizeManipulate, SqueezeAndExpandDims) {
  PrimVar n = SymbolicDim("n");
  auto [x, out] = RunUnary({1, n, 1, 3}, {1, 2, 1, 3}, [](const Var& v) {
    return Call("squeeze", {v}, Attrs().Set("axis", {-2}));
  });
  ExpectClose(Reshaped(x, {1, 2, 3}), out.tensor());
  auto [y, all] =
      RunUnary({1, n, 1, 3}, {1, 2, 1, 3}, [](const Var& v) { return Call("squeeze", {v}); });
  ExpectClose(Reshaped(y, {2, 3}), all.tensor());
  auto [z, expanded] = RunUnary({n, 3}, {2, 3}, [](const Var& v) {
    return Call("expand_dims", {v}, Attrs().Set("axis", {0, -1}));
  });
  ExpectClose(Reshaped(z, {1, 2, 3, 1}), expanded.tensor());
}

TEST(LegalizeManipulate, ConcatAlongAnAxis) {
  PrimVar n = SymbolicDim("n"), m = SymbolicDim("m");
  IRModule mod =
      OpModule({TensorParam("a", {2, n}), TensorParam("b", {2, 3}), TensorParam("c", {2, m})},
               [](const std::vector<Var>& p) {
                 return Call("concat", {Tuple({p[0], p[1], p[2]})}, Attrs().Set("axis", -1));
               });
  IRModule legal = LegalizeChecked(mod);
  HostTensor a = Random(kF32, {2, 2}, 1), b = Random(kF32, {2, 3}, 2), c = Random(kF32, {2, 4}, 3);
  Value out = RunMain(legal, {a, b, c});
  HostTensor expected(kF32, {2, 9});
  ForEachIndex({2, 9}, [&](const Index& i) {
    int64_t j = i[1];
    double v = j < 2 ? At(a, {i[0], j}) : j < 5 ? At(b, {i[0], j - 2}) : At(c, {i[0], j - 5});
    SetAt(expected, i, v);
  });
  ExpectClose(expected, out.tensor());
}

TEST(LegalizeManipulate, ConcatSkipsEmptyInputs) {
  PrimVar n = SymbolicDim("n");
  IRModule mod = OpModule({TensorParam("cache", {2, 0}), TensorParam("x", {2, n})},
                          [](const std::vector<Var>& p) {
                            return Call("concat", {Tuple({p[0], p[1]})}, Attrs().Set("axis", 1));
                          });
  IRModule legal = LegalizeChecked(mod);
  // The empty cache is not passed to the kernel.
  const auto* seq = (*legal.LookupFunction("main"))->body.as<SeqExprNode>();
  const auto* call = seq->blocks[0].bindings.back().value.as<CallNode>();
  EXPECT_EQ(call->args[1].as<TupleNode>()->fields.size(), 1u);
  HostTensor cache(kF32, {2, 0}), x = Random(kF32, {2, 3}, 1);
  ExpectClose(x, RunMain(legal, {cache, x}).tensor());
}

TEST(LegalizeManipulate, ConcatOfATupleVariable) {
  // The tuple is a variable: its fields are bound with TupleGetItem before the call_tir.
  BlockBuilder bb;
  Var a = TensorParam("a", {3, 2}), b = TensorParam("b", {1, 2});
  bb.BeginFunction("main", {a, b});
  bb.BeginDataflow();
  Var t = bb.Emit(Tuple({a, b}), "t");
  Var gv = bb.EmitOutput(Call("concat", {t}));
  bb.EndDataflow();
  bb.EndFunction(gv);
  IRModule legal = LegalizeChecked(bb.Finalize());
  HostTensor x = Random(kF32, {3, 2}, 1), y = Random(kF32, {1, 2}, 2);
  Value out = RunMain(legal, {x, y});
  HostTensor expected(kF32, {4, 2});
  for (int64_t i = 0; i < 6; ++i) expected.SetDouble(i, x.GetDouble(i));
  for (int64_t i = 0; i < 2; ++i) expected.SetDouble(6 + i, y.GetDouble(i));
  ExpectClose(expected, out.tensor());
}

// The parts of splitting x (2, 7) along axis 1 at `bounds`.
void CheckSplitParts(const HostTensor& x, const Value& out, const std::vector<int64_t>& bounds) {
  ASSERT_EQ(out.fields().size(), bounds.size() - 1);
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    int64_t start = bounds[k], len = bounds[k + 1] - bounds[k];
    ExpectClose(Relayout(x, {x.shape()[0], len},
                         [&](const Index& o) {
                           return Index{o[0], o[1] + start};
                         }),
                out.fields()[k].tensor());
  }
}

TEST(LegalizeManipulate, SplitIsOneKernelWithAnOutputPerPart) {
  auto [x, out] = RunUnary({2, 7}, {2, 7}, [](const Var& v) {
    return Call("split", {v}, Attrs().Set("indices_or_sections", {2, 3}).Set("axis", 1));
  });
  CheckSplitParts(x, out, {0, 2, 3, 7});
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {2, n})}, [](const std::vector<Var>& p) {
    return Call("split", {p[0]}, Attrs().Set("indices_or_sections", 3).Set("axis", 1));
  });
  IRModule legal = LegalizeChecked(m);
  ASSERT_EQ(PrimFuncNames(legal), std::vector<std::string>{"split"});
  EXPECT_EQ((*legal.LookupPrimFunc("split"))->params.size(), 4u);
  // n = 7 in 3 sections: ceil parts 3, 3 and the rest 1.
  HostTensor y = Random(kF32, {2, 7}, 4);
  CheckSplitParts(y, RunMain(legal, {y}), {0, 3, 6, 7});
}

TEST(LegalizeManipulate, BroadcastTo) {
  auto [x, out] = RunUnary({3, 1}, {3, 1}, [](const Var& v) {
    return Call("broadcast_to", {v, ShapeExpr({DimConst(2), DimConst(3), DimConst(4)})});
  });
  ExpectClose(Relayout(x, {2, 3, 4}, [](const Index& o) { return Index{o[1], 0}; }), out.tensor());
}

TEST(LegalizeManipulate, Tile) {
  PrimVar n = SymbolicDim("n");
  auto [x, out] = RunUnary({n, 3}, {2, 3}, [](const Var& v) {
    return Call("tile", {v}, Attrs().Set("repeats", {2, 1, 2}));
  });
  ExpectClose(Relayout(x, {2, 2, 6},
                       [](const Index& o) {
                         return Index{o[1] % 2, o[2] % 3};
                       }),
              out.tensor());
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
