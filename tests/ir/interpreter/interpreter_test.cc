// The interpreter on hand-written TensorIR: blocks, reductions with init, predicates, every
// loop kind, allocations, vectors, views, strides and symbolic shapes.
#include "ir/interpreter/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/ir/interpreter/ir_builders.h"

namespace kiln::ir::testing {
namespace {

// C[i, j] = A[i, k] * B[k, j] summed over k, with the loops in `order` (a permutation of
// "ijk"), every loop of `kind`.
PrimFunc Matmul(int64_t m, int64_t n, int64_t k, const std::string& order = "ijk",
                ForKind kind = ForKind::kSerial) {
  Buffer a = DeclBuffer("A", kF32, {IntImm(kI32, m), IntImm(kI32, k)});
  Buffer b = DeclBuffer("B", kF32, {IntImm(kI32, k), IntImm(kI32, n)});
  Buffer c = DeclBuffer("C", kF32, {IntImm(kI32, m), IntImm(kI32, n)});
  Var i("i"), j("j"), r("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt body = MakeBlock(
      {"C",
       {Axis(vi, m), Axis(vj, n), Axis(vk, k, IterKind::kReduce)},
       {i, j, r},
       BufferStore(c, BufferLoad(c, {vi, vj}) + BufferLoad(a, {vi, vk}) * BufferLoad(b, {vk, vj}),
                   {vi, vj}),
       BufferStore(c, F32(0), {vi, vj})});
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (*it == 'i')
      body = Loop(i, m, body, kind, kind == ForKind::kThreadBinding ? "blockIdx.x" : "");
    if (*it == 'j')
      body = Loop(j, n, body, kind, kind == ForKind::kThreadBinding ? "threadIdx.x" : "");
    if (*it == 'k')
      body = Loop(r, k, body, kind, kind == ForKind::kThreadBinding ? "threadIdx.y" : "");
  }
  return MakeFunc("matmul", {a, b, c}, body);
}

// The same sums in plain C++, accumulating in float in k order.
HostTensor ReferenceMatmul(const HostTensor& a, const HostTensor& b) {
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  HostTensor c(kF32, {m, n});
  const auto* pa = static_cast<const float*>(a.data());
  const auto* pb = static_cast<const float*>(b.data());
  auto* pc = static_cast<float*>(c.data());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t r = 0; r < k; ++r) {
        float prod = pa[i * k + r] * pb[r * n + j];
        acc = acc + prod;
      }
      pc[i * n + j] = acc;
    }
  }
  return c;
}

void ExpectMatmulCorrect(const PrimFunc& f, int64_t m, int64_t n, int64_t k, uint64_t seed) {
  HostTensor a = HostTensor::Random(kF32, {m, k}, seed);
  HostTensor b = HostTensor::Random(kF32, {k, n}, seed + 1);
  // Garbage in C: init must overwrite it.
  HostTensor c = HostTensor::Random(kF32, {m, n}, seed + 2, 100, 200);
  Interpret(f, {a, b, c});
  TensorComparison cmp = CompareTensors(ReferenceMatmul(a, b), c, 0, 0);
  EXPECT_TRUE(cmp.ok) << cmp.message;
}

TEST(InterpreterTest, Elementwise) {
  Buffer a = DeclBuffer("A", kF32, {4, 6});
  Buffer b = DeclBuffer("B", kF32, {4, 6});
  Buffer c = DeclBuffer("C", kF32, {4, 6});
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt body = Loop(
      i, 4,
      Loop(j, 6,
           MakeBlock({"C",
                      {Axis(vi, 4), Axis(vj, 6)},
                      {i, j},
                      BufferStore(c, BufferLoad(a, {vi, vj}) * F32(2) + BufferLoad(b, {vi, vj}),
                                  {vi, vj})})));
  PrimFunc f = MakeFunc("add", {a, b, c}, body);
  HostTensor ta = HostTensor::Random(kF32, {4, 6}, 1), tb = HostTensor::Random(kF32, {4, 6}, 2);
  HostTensor tc(kF32, {4, 6});
  HostTensor a_before = ta.Clone();
  Interpret(f, {ta, tb, tc});
  for (int64_t e = 0; e < 24; ++e) {
    float want = static_cast<float>(ta.GetDouble(e)) * 2.0f + static_cast<float>(tb.GetDouble(e));
    EXPECT_EQ(tc.GetDouble(e), want) << e;
  }
  EXPECT_TRUE(CompareTensors(a_before, ta, 0, 0).ok);
}

TEST(InterpreterTest, MatmulWithInitAndReduceIterVar) {
  ExpectMatmulCorrect(Matmul(24, 20, 33), 24, 20, 33, 7);
}

TEST(InterpreterTest, InitRunsOncePerOutputWhenTheReduceLoopIsOutermost) {
  // k outside i and j: init must run for every (i, j) when k == 0 and never again.
  ExpectMatmulCorrect(Matmul(8, 5, 9, "kij"), 8, 5, 9, 11);
  ExpectMatmulCorrect(Matmul(8, 5, 9, "ikj"), 8, 5, 9, 12);
}

TEST(InterpreterTest, MatmulOfAFewMillionOperations) {
  // 128^3 = 2M multiply-adds: the size the tests across Kiln check kernels at.
  ExpectMatmulCorrect(Matmul(128, 128, 128), 128, 128, 128, 3);
}

// The loop kind's name, so test listings show it rather than the enum's bytes.
struct LoopKindParam {
  ForKind kind;
  friend void PrintTo(const LoopKindParam& p, std::ostream* os) { *os << ForKindName(p.kind); }
};

class LoopKindTest : public ::testing::TestWithParam<LoopKindParam> {};

TEST_P(LoopKindTest, EveryLoopKindRunsAsASequentialLoop) {
  ExpectMatmulCorrect(Matmul(6, 7, 5, "ijk", GetParam().kind), 6, 7, 5, 21);
}

INSTANTIATE_TEST_SUITE_P(Kinds, LoopKindTest,
                         ::testing::Values(LoopKindParam{ForKind::kSerial},
                                           LoopKindParam{ForKind::kParallel},
                                           LoopKindParam{ForKind::kVectorized},
                                           LoopKindParam{ForKind::kUnrolled},
                                           LoopKindParam{ForKind::kThreadBinding}),
                         [](const ::testing::TestParamInfo<LoopKindParam>& info) {
                           return std::string(ForKindName(info.param.kind));
                         });

TEST(InterpreterTest, PredicateGuardsANonDivisibleSplit) {
  // i in [0, 10) split by 4: io in [0, 3), ii in [0, 4), predicate io * 4 + ii < 10.
  Buffer a = DeclBuffer("A", kF32, {10});
  Buffer b = DeclBuffer("B", kF32, {10});
  Var io("io"), ii("ii"), vi("vi");
  auto build = [&](Expr predicate) {
    Stmt body = Loop(io, 3,
                     Loop(ii, 4,
                          MakeBlock({"B",
                                     {Axis(vi, 10)},
                                     {io * 4 + ii},
                                     BufferStore(b, BufferLoad(a, {vi}) + F32(1), {vi}),
                                     Stmt(),
                                     predicate})));
    return MakeFunc("split", {a, b}, body);
  };
  HostTensor ta = HostTensor::Random(kF32, {10}, 5), tb(kF32, {10});
  Interpret(build(io * 4 + ii < 10), {ta, tb});
  for (int64_t e = 0; e < 10; ++e) {
    EXPECT_EQ(tb.GetDouble(e), static_cast<float>(ta.GetDouble(e)) + 1.0f);
  }
  // Without the predicate the binding leaves the block's domain.
  HostTensor tc(kF32, {10});
  try {
    Interpret(build(BoolImm(true)), {ta, tc});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find("vi = 10 is outside its domain [0, 10)"),
              std::string::npos)
        << e.what();
  }
  // A false predicate skips the block entirely.
  HostTensor td = HostTensor::Random(kF32, {10}, 9);
  HostTensor td_before = td.Clone();
  Interpret(build(BoolImm(false)), {ta, td});
  EXPECT_TRUE(CompareTensors(td_before, td, 0, 0).ok);
}

TEST(InterpreterTest, AllocBufferInBlocksHoldsAnIntermediate) {
  // T = A * 2 in the root block's buffer, then B = T + 1; and a per-block scratch buffer.
  Buffer a = DeclBuffer("A", kF32, {8});
  Buffer b = DeclBuffer("B", kF32, {8});
  Buffer t = DeclBuffer("T", kF32, {8});
  Buffer s = DeclBuffer("S", kF32, {1}, "local");
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt produce = Loop(
      i, 8,
      MakeBlock({"T", {Axis(vi, 8)}, {i}, BufferStore(t, BufferLoad(a, {vi}) * F32(2), {vi})}));
  Stmt consume = Loop(j, 8,
                      MakeBlock({"B",
                                 {Axis(vj, 8)},
                                 {j},
                                 SeqStmt({BufferStore(s, BufferLoad(t, {vj}) + F32(1), {0}),
                                          BufferStore(b, BufferLoad(s, {0}), {vj})}),
                                 Stmt(),
                                 Expr(),
                                 {s}}));
  PrimFunc f = MakeFunc("two_stage", {a, b}, SeqStmt({produce, consume}), {t});
  HostTensor ta = HostTensor::Random(kF32, {8}, 3), tb(kF32, {8});
  Interpret(f, {ta, tb});
  for (int64_t e = 0; e < 8; ++e) {
    EXPECT_EQ(tb.GetDouble(e), static_cast<float>(ta.GetDouble(e)) * 2.0f + 1.0f);
  }
}

TEST(InterpreterTest, AllocateAndDeclBufferView) {
  // A flat scratch allocation, and a 1-D DeclBuffer view of the 2-D output's storage.
  Buffer a = DeclBuffer("A", kI32, {2, 3});
  Buffer b = DeclBuffer("B", kI32, {2, 3});
  auto flat_node = std::make_shared<BufferNode>(*b.get());
  flat_node->name = "B_flat";
  flat_node->shape = {IntImm(kI32, 6)};
  Buffer b_flat(flat_node);
  Buffer tmp = DeclBuffer("tmp", kI32, {6}, "local");
  Var i("i"), j("j");
  Stmt fill = Loop(i, 2, Loop(j, 3, BufferStore(tmp, BufferLoad(a, {i, j}) * 10, {i * 3 + j})));
  Stmt copy = Loop(i, 6, BufferStore(b_flat, BufferLoad(tmp, {i}) + 1, {i}));
  Stmt body = Allocate(tmp, SeqStmt({fill, DeclBufferStmt(b_flat, copy)}));
  Var pa("A", DataType::Handle()), pb("B", DataType::Handle());
  PrimFunc f = MakePrimFunc("alloc", {pa, pb}, {{pa, a}, {pb, b}}, body);
  HostTensor ta = HostTensor::Random(kI32, {2, 3}, 4, -50, 50), tb(kI32, {2, 3});
  Interpret(f, {ta, tb});
  for (int64_t e = 0; e < 6; ++e) EXPECT_EQ(tb.GetInt(e), ta.GetInt(e) * 10 + 1);
}

TEST(InterpreterTest, VectorRampAndBroadcastLoadsAndStores) {
  // B[ramp(4i, 1, 4)] = A[ramp(4i, 1, 4)] * broadcast(3) + ramp(0, 1, 4) as floats.
  Buffer a = DeclBuffer("A", kF32, {16});
  Buffer b = DeclBuffer("B", kF32, {16});
  Var i("i");
  Expr lanes = Cast(DataType::Float(32, 4), Ramp(IntImm(kI32, 0), IntImm(kI32, 1), 4));
  Stmt body = Loop(i, 4,
                   BufferStore(b, BufferLoad(a, {Ramp(i * 4, 1, 4)}) * Broadcast(F32(3), 4) + lanes,
                               {Ramp(i * 4, 1, 4)}),
                   ForKind::kVectorized);
  PrimFunc f = MakeFunc("vec", {a, b}, body);
  HostTensor ta = HostTensor::Random(kF32, {16}, 8), tb(kF32, {16});
  Interpret(f, {ta, tb});
  for (int64_t e = 0; e < 16; ++e) {
    EXPECT_EQ(tb.GetDouble(e), static_cast<float>(ta.GetDouble(e)) * 3.0f + (e % 4)) << e;
  }
}

TEST(InterpreterTest, VectorStoreReadsEveryLaneBeforeWriting) {
  // A[ramp(1, 1, 4)] = A[ramp(0, 1, 4)] shifts by one, as one vector instruction would; a lane
  // by lane copy would smear A[0] over all of them.
  Buffer a = DeclBuffer("A", kI32, {5});
  Stmt body = BufferStore(a, BufferLoad(a, {Ramp(0, 1, 4)}), {Ramp(1, 1, 4)});
  PrimFunc f = MakeFunc("shift", {a}, body);
  HostTensor ta(kI32, {5});
  for (int64_t e = 0; e < 5; ++e) ta.SetInt(e, 10 + e);
  Interpret(f, {ta});
  std::vector<int64_t> got;
  for (int64_t e = 0; e < 5; ++e) got.push_back(ta.GetInt(e));
  EXPECT_EQ(got, (std::vector<int64_t>{10, 10, 11, 12, 13}));
}

TEST(InterpreterTest, VectorElementBuffersAndVectorLetStmt) {
  // A holds float32x4 elements; B[ramp(4i, 1, 4)] = A[i] + x where x = let-bound ramp.
  DataType f32x4 = DataType::Float(32, 4);
  Buffer a = DeclBuffer("A", f32x4, {2});
  Buffer b = DeclBuffer("B", kF32, {8});
  Var i("i"), x("x", f32x4), idx("idx", DataType::Int(32, 4));
  Expr ramp_f = Cast(f32x4, Ramp(IntImm(kI32, 10), IntImm(kI32, 10), 4));
  Stmt body = Loop(i, 2,
                   LetStmt(idx, Ramp(i * 4, 1, 4),
                           LetStmt(x, ramp_f, BufferStore(b, BufferLoad(a, {i}) + x, {idx}))));
  PrimFunc f = MakeFunc("vec_elems", {a, b}, body);
  HostTensor ta(f32x4, {2}), tb(kF32, {8});
  for (int64_t e = 0; e < 8; ++e) ta.SetDouble(e, 0.5 * e - 1);  // lane by lane
  Interpret(f, {ta, tb});
  for (int64_t e = 0; e < 8; ++e) {
    EXPECT_EQ(tb.GetDouble(e), static_cast<float>(ta.GetDouble(e)) + 10.0f * (e % 4 + 1)) << e;
  }
}

TEST(InterpreterTest, UndeclaredBufferReachesStorageThroughItsDataVar) {
  // Lowered code may index a flattened copy of a parameter buffer that shares its data Var.
  Buffer b = DeclBuffer("B", kI32, {2, 3});
  auto flat = std::make_shared<BufferNode>(*b.get());
  flat->shape = {IntImm(kI32, 6)};
  Buffer b_flat(flat);
  Var i("i");
  PrimFunc f = MakeFunc("flat", {b}, Loop(i, 6, BufferStore(b_flat, i * i, {i})));
  HostTensor tb(kI32, {2, 3});
  Interpret(f, {tb});
  for (int64_t e = 0; e < 6; ++e) EXPECT_EQ(tb.GetInt(e), e * e);
}

TEST(InterpreterTest, StridedParameterViewsItsTensorStorage) {
  // A is the left 4x3 half of a 4x6 tensor (row stride 6), starting at element 1.
  auto node = std::make_shared<BufferNode>(*DeclBuffer("A", kF32, {4, 3}).get());
  node->strides = {IntImm(kI32, 6), IntImm(kI32, 1)};
  node->elem_offset = IntImm(kI32, 1);
  Buffer a(node);
  Buffer b = DeclBuffer("B", kF32, {4, 3});
  Var i("i"), j("j");
  Stmt body = Loop(i, 4, Loop(j, 3, BufferStore(b, BufferLoad(a, {i, j}), {i, j})));
  PrimFunc f = MakeFunc("strided", {a, b}, body);
  HostTensor ta = HostTensor::Random(kF32, {4, 6}, 2), tb(kF32, {4, 3});
  Interpret(f, {ta, tb});
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(tb.GetDouble(r * 3 + c), ta.GetDouble(r * 6 + c + 1));
  }
}

TEST(InterpreterTest, SymbolicShapeIsBoundFromTheTensor) {
  Var n("n");
  Buffer a = DeclBuffer("A", kF32, {n, 2});
  Buffer b = DeclBuffer("B", kF32, {n * 2});
  Var i("i"), vi("vi");
  Stmt body =
      Loop(i, n * 2,
           MakeBlock({"B",
                      {Axis(vi, n * 2)},
                      {i},
                      BufferStore(b, BufferLoad(a, {FloorDiv(vi, 2), FloorMod(vi, 2)}), {vi})}));
  PrimFunc f = MakeFunc("flatten", {a, b}, body);
  for (int64_t size : {3, 7}) {
    HostTensor ta = HostTensor::Random(kF32, {size, 2}, size), tb(kF32, {size * 2});
    Interpret(f, {ta, tb});
    for (int64_t e = 0; e < size * 2; ++e) EXPECT_EQ(tb.GetDouble(e), ta.GetDouble(e));
  }
}

TEST(InterpreterTest, ScalarParametersLetAndSelect) {
  // B[i] = let t = A[i] * scale in select(i < limit, t, -t)
  Buffer a = DeclBuffer("A", kF32, {6});
  Buffer b = DeclBuffer("B", kF32, {6});
  Var scale("scale", kF32), limit("limit", kI32), i("i"), t("t", kF32);
  Expr value = Let(t, BufferLoad(a, {i}) * scale, Select(i < limit, t, F32(0) - t));
  PrimFunc f =
      MakeFunc("scaled", {a, b}, Loop(i, 6, BufferStore(b, value, {i})), {}, {scale, limit});
  HostTensor ta = HostTensor::Random(kF32, {6}, 6), tb(kF32, {6});
  Interpret(f, {ta, tb, 0.5, int64_t{4}});
  for (int64_t e = 0; e < 6; ++e) {
    float v = static_cast<float>(ta.GetDouble(e)) * 0.5f;
    EXPECT_EQ(tb.GetDouble(e), e < 4 ? v : -v);
  }
}

TEST(InterpreterTest, IfThenElseAndLetStmt) {
  Buffer b = DeclBuffer("B", kI32, {6});
  Var i("i"), half("half");
  Stmt body = Loop(i, 6,
                   LetStmt(half, FloorDiv(i, 2),
                           IfThenElse(FloorMod(i, 2) == 0, BufferStore(b, half, {i}),
                                      BufferStore(b, 0 - half, {i}))));
  PrimFunc f = MakeFunc("branches", {b}, SeqStmt({Evaluate(0), body}));
  HostTensor tb(kI32, {6});
  Interpret(f, {tb});
  std::vector<int64_t> got;
  for (int64_t e = 0; e < 6; ++e) got.push_back(tb.GetInt(e));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 0, 1, -1, 2, -2}));
}

}  // namespace
}  // namespace kiln::ir::testing

namespace kiln::ir::testing {
namespace {

TEST(InterpreterTest, ComparisonsIntoBoolAndUnsignedBuffers) {
  DataType u8 = DataType::UInt(8);
  Buffer a = DeclBuffer("A", u8, {4});
  Buffer m = DeclBuffer("M", DataType::Bool(), {4});
  Var i("i");
  Stmt body = Loop(
      i, 4,
      BufferStore(m, BufferLoad(a, {i}) > IntImm(u8, 128) || BufferLoad(a, {i}) == IntImm(u8, 0),
                  {i}));
  HostTensor ta(u8, {4}), tm(DataType::Bool(), {4});
  std::vector<int64_t> in = {0, 127, 129, 255};
  for (int64_t e = 0; e < 4; ++e) ta.SetInt(e, in[e]);
  Interpret(MakeFunc("mask", {a, m}, body), {ta, tm});
  std::vector<int64_t> got;
  for (int64_t e = 0; e < 4; ++e) got.push_back(tm.GetInt(e));
  EXPECT_EQ(got, (std::vector<int64_t>{1, 0, 1, 1}));
}

TEST(InterpreterTest, SelectEvaluatesBothSides) {
  // select(i < 4, A[i], A[i - 4]) reads A[-4] on its untaken side at i = 0: the IR is wrong
  // (a guarded read needs IfThenElse), and the oracle says so instead of hiding it.
  Buffer a = DeclBuffer("A", kF32, {4});
  Buffer b = DeclBuffer("B", kF32, {4});
  Var i("i");
  Expr value = Select(i < 4, BufferLoad(a, {i}), BufferLoad(a, {i - 4}));
  PrimFunc f = MakeFunc("select", {a, b}, Loop(i, 4, BufferStore(b, value, {i})));
  try {
    Interpret(f, {HostTensor(kF32, {4}), HostTensor(kF32, {4})});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("load of A[-4]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::testing
