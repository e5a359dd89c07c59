// The C target's reductions end to end: innermost folds printed as OpenMP SIMD reductions,
// NaN through their max and min, and a vector of partial sums summed by halves; every kernel
// compared with the reference interpreter (tests/codegen/c_kernel_harness.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/codegen/c_kernel_harness.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::F32;
using testing::kF32;
using testing::MakeBlock;
using testing::Rand;
using testing::Root;
using testing::RunAndCompare;
using testing::Spatial;
using testing::T;

// Row sums and row maxima over 100 contiguous elements as reduction blocks (their init inside
// the loop, at k == 0), a sum of squares whose init comes before its loop, and a column sum
// (strided) and a sum of 4 elements (too short): the first three are printed as SIMD
// reductions into a scalar accumulator, the last two are not; all agree with the interpreter
// within float tolerance.
TEST(CEndToEndTest, InnermostReductionsBecomeSimdReductions) {
  constexpr int kRows = 24, kN = 100;
  Buffer a = DeclBuffer("A", kF32, {kRows, kN});
  Buffer sum = DeclBuffer("S", kF32, {kRows});
  Buffer mx = DeclBuffer("M", kF32, {kRows});
  Buffer sq = DeclBuffer("Q", kF32, {kRows});
  Buffer col = DeclBuffer("C", kF32, {kN});
  Buffer head = DeclBuffer("H", kF32, {kRows});
  Var i("i"), k("k"), vi("vi"), vk("vk"), i2("i2"), k2("k2"), wi("wi"), wk("wk");
  Var i3("i3"), k3("k3"), j4("j4"), k4("k4"), i5("i5"), k5("k5");
  Stmt sum_block =
      MakeBlock("S", {Spatial(vi, kRows), testing::Reduce(vk, kN)}, {i, k},
                BufferStore(sum, BufferLoad(sum, {vi}) + BufferLoad(a, {vi, vk}), {vi}),
                BufferStore(sum, F32(0), {vi}));
  Stmt max_block =
      MakeBlock("M", {Spatial(wi, kRows), testing::Reduce(wk, kN)}, {i2, k2},
                BufferStore(mx, Max(BufferLoad(mx, {wi}), BufferLoad(a, {wi, wk}) * F32(3)), {wi}),
                BufferStore(mx, F32(-3.0e38), {wi}));
  Expr centered = BufferLoad(a, {i3, k3}) - BufferLoad(sum, {i3}) * F32(0.01);
  Stmt squares =
      For(i3, 0, kRows, ForKind::kSerial,
          SeqStmt({BufferStore(sq, F32(0), {i3}),
                   For(k3, 0, kN, ForKind::kSerial,
                       BufferStore(sq, BufferLoad(sq, {i3}) + centered * centered, {i3}))}));
  Stmt columns =
      For(j4, 0, kN, ForKind::kSerial,
          SeqStmt({BufferStore(col, F32(0), {j4}),
                   For(k4, 0, kRows, ForKind::kSerial,
                       BufferStore(col, BufferLoad(col, {j4}) + BufferLoad(a, {k4, j4}), {j4}))}));
  Stmt body = SeqStmt(
      {For(i, 0, kRows, ForKind::kSerial, For(k, 0, kN, ForKind::kSerial, sum_block)),
       For(i2, 0, kRows, ForKind::kSerial, For(k2, 0, kN, ForKind::kSerial, max_block)), squares,
       columns,
       For(i5, 0, kRows, ForKind::kSerial,
           SeqStmt(
               {BufferStore(head, F32(0), {i5}),
                For(k5, 0, 4, ForKind::kSerial,
                    BufferStore(head, BufferLoad(head, {i5}) + BufferLoad(a, {i5, k5}), {i5}))}))});
  PrimFunc f = testing::MakeFunc("reductions", {a, sum, mx, sq, col, head}, Root(body));
  std::string code = RunAndCompare(
      f,
      {Rand(kF32, {kRows, kN}, 41, -2, 2), HostTensor(kF32, {kRows}), HostTensor(kF32, {kRows}),
       HostTensor(kF32, {kRows}), HostTensor(kF32, {kN}), HostTensor(kF32, {kRows})},
      [](auto& args) {
        HostTensor& x = T(args, 0);
        for (int r = 0; r < kRows; ++r) {
          double s = 0, m = -3.0e38;
          for (int c = 0; c < kN; ++c) {
            s += x.GetDouble(r * kN + c);
            m = std::max(m, double(float(x.GetDouble(r * kN + c)) * 3.0f));
          }
          T(args, 1).SetDouble(r, s);
          T(args, 2).SetDouble(r, m);
          double q = 0;
          for (int c = 0; c < kN; ++c) {
            double d = x.GetDouble(r * kN + c) - float(s) * 0.01f;
            q += d * d;
          }
          T(args, 3).SetDouble(r, q);
        }
        for (int c = 0; c < kN; ++c) {
          double s = 0;
          for (int r = 0; r < kRows; ++r) s += x.GetDouble(r * kN + c);
          T(args, 4).SetDouble(c, s);
        }
        for (int r = 0; r < kRows; ++r) {
          double s = 0;
          for (int c = 0; c < 4; ++c) s += x.GetDouble(r * kN + c);
          T(args, 5).SetDouble(r, s);
        }
      });
  auto count = [&](const std::string& what) {
    int n = 0;
    for (size_t at = code.find(what); at != std::string::npos; at = code.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("#pragma omp simd reduction(+:"), 2) << code;
  EXPECT_EQ(count("#pragma omp simd reduction(max:"), 1) << code;
  // The sum is seeded with its init (0) outside the loop; no k == 0 test is left in it.
  EXPECT_EQ(code.find("if (k == "), std::string::npos) << code;

  CEmitOptions serial;
  serial.simd_reductions = false;
  code = EmitC(Lower(f), "kiln_reductions", serial).code;
  EXPECT_EQ(count("#pragma omp simd"), 0) << code;
}

// The end of a reduction split over vector lanes (what rfactor and vectorize make of a row
// sum): 16 float32 partial sums per row, then their sum, and 8 float64 elements summed from an
// init inside the loop. Both folds are one vector load summed by halves, also under an unroll
// pragma that would otherwise replicate them, and agree with the interpreter.
TEST(CEndToEndTest, AVectorOfPartialSumsIsSummedByHalves) {
  constexpr int kRows = 12, kN = 64, kLanes = 16, kWide = 8;
  Buffer a = DeclBuffer("A", kF32, {kRows, kN});
  Buffer rf = DeclBuffer("RF", kF32, {kRows, kLanes});
  Buffer sum = DeclBuffer("S", kF32, {kRows});
  const DataType f64 = DataType::Float(64);
  Buffer e = DeclBuffer("E", f64, {kRows, kWide});
  Buffer d = DeclBuffer("D", f64, {kRows});
  Var i("i"), l("l"), ko("ko"), l2("l2"), l3("l3"), j("j"), k("k"), vj("vj"), vk("vk");
  Annotations unroll{{"pragma_auto_unroll_max_step", IntImm(DataType::Int(32), 512)},
                     {"pragma_unroll_explicit", IntImm(DataType::Int(32), 1)}};
  Stmt rows = For(
      i, 0, kRows, ForKind::kSerial,
      SeqStmt(
          {For(l, 0, kLanes, ForKind::kSerial, BufferStore(rf, F32(0), {i, l})),
           For(ko, 0, kN / kLanes, ForKind::kSerial,
               For(l2, 0, kLanes, ForKind::kSerial,
                   BufferStore(rf, BufferLoad(rf, {i, l2}) + BufferLoad(a, {i, ko * kLanes + l2}),
                               {i, l2}))),
           BufferStore(sum, F32(0), {i}),
           For(l3, 0, kLanes, ForKind::kSerial,
               BufferStore(sum, BufferLoad(sum, {i}) + BufferLoad(rf, {i, l3}), {i}))}),
      "", unroll);
  Stmt wide_block = MakeBlock("D", {Spatial(vj, kRows), testing::Reduce(vk, kWide)}, {j, k},
                              BufferStore(d, BufferLoad(d, {vj}) + BufferLoad(e, {vj, vk}), {vj}),
                              BufferStore(d, FloatImm(f64, 0.5), {vj}));
  Stmt wide = For(j, 0, kRows, ForKind::kSerial, For(k, 0, kWide, ForKind::kSerial, wide_block));
  PrimFunc f = testing::MakeFunc("lane_sums", {a, rf, sum, e, d}, Root(SeqStmt({rows, wide})));
  std::string code = RunAndCompare(
      f,
      {Rand(kF32, {kRows, kN}, 51, -2, 2), HostTensor(kF32, {kRows, kLanes}),
       HostTensor(kF32, {kRows}), Rand(f64, {kRows, kWide}, 52), HostTensor(f64, {kRows})},
      [](auto& args) {
        for (int r = 0; r < kRows; ++r) {
          double s = 0;
          for (int lane = 0; lane < kLanes; ++lane) {
            double part = 0;
            for (int c = lane; c < kN; c += kLanes) part += T(args, 0).GetDouble(r * kN + c);
            T(args, 1).SetDouble(r * kLanes + lane, part);
            s += part;
          }
          T(args, 2).SetDouble(r, s);
          double w = 0.5;
          for (int c = 0; c < kWide; ++c) w += T(args, 3).GetDouble(r * kWide + c);
          T(args, 4).SetDouble(r, w);
        }
      });
  EXPECT_NE(code.find("kiln_vsum_float32x16(kiln_vload_float32x16("), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_vsum_float64x8(kiln_vload_float64x8("), std::string::npos) << code;
  EXPECT_EQ(code.find("omp simd"), std::string::npos) << code;
}

// A NaN in a row reaches that row's maximum and minimum through the SIMD reduction's NaN flag
// (OpenMP's own max and min, which combine the partial results, drop it), as in the
// interpreter; the other rows are unaffected.
TEST(CEndToEndTest, SimdMaxAndMinReductionsPropagateNaN) {
  constexpr int kRows = 3, kN = 40;
  Buffer a = DeclBuffer("A", kF32, {kRows, kN});
  Buffer mx = DeclBuffer("M", kF32, {kRows});
  Buffer mn = DeclBuffer("N", kF32, {kRows});
  Var i("i"), k("k");
  Stmt body =
      For(i, 0, kRows, ForKind::kSerial,
          SeqStmt({BufferStore(mx, F32(-1e30), {i}),
                   For(k, 0, kN, ForKind::kSerial,
                       BufferStore(mx, Max(BufferLoad(mx, {i}), BufferLoad(a, {i, k})), {i})),
                   BufferStore(mn, F32(1e30), {i}),
                   For(k, 0, kN, ForKind::kSerial,
                       BufferStore(mn, Min(BufferLoad(mn, {i}), BufferLoad(a, {i, k})), {i}))}));
  PrimFunc f = testing::MakeFunc("nan_reductions", {a, mx, mn}, body);
  HostTensor input = Rand(kF32, {kRows, kN}, 43);
  input.SetDouble(1 * kN + 17, std::nan(""));
  std::string code = RunAndCompare(f, {input, HostTensor(kF32, {kRows}), HostTensor(kF32, {kRows})},
                                   [](auto& args) {
                                     for (int r = 0; r < kRows; ++r) {
                                       double m = -1e30, n = 1e30;
                                       for (int c = 0; c < kN; ++c) {
                                         double v = T(args, 0).GetDouble(r * kN + c);
                                         m = std::isnan(m) || std::isnan(v) ? NAN : std::max(m, v);
                                         n = std::isnan(n) || std::isnan(v) ? NAN : std::min(n, v);
                                       }
                                       T(args, 1).SetDouble(r, m);
                                       T(args, 2).SetDouble(r, n);
                                     }
                                   });
  EXPECT_NE(code.find("#pragma omp simd reduction(max:"), std::string::npos) << code;
  EXPECT_NE(code.find("#pragma omp simd reduction(min:"), std::string::npos) << code;
}

}  // namespace
}  // namespace kiln::codegen
