// End-to-end tests of the C path: build TensorIR, Lower, EmitC, compile with gcc into a
// shared object, call it through the packed convention on random inputs and compare every
// output with the reference interpreter (or, where it is not built, with a reference
// written here). Reductions have their own file (c_reductions_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "tests/codegen/c_kernel_harness.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::CloneArgs;
using testing::CompiledKernel;
using testing::F32;
using testing::kF32;
using testing::MakeBlock;
using testing::Pack;
using testing::Rand;
using testing::Reference;
using testing::Root;
using testing::RunAndCompare;
using testing::Spatial;
using testing::T;

// B[i, j] = A[i, j] * 2 + 1 through a heap intermediate and a stack array, both used by two
// loop nests (so that they stay whole at the root).
PrimFunc ElementwiseThroughHeap() {
  Buffer a = DeclBuffer("A", kF32, {128, 160});
  Buffer b = DeclBuffer("B", kF32, {128, 160});
  Buffer tmp = DeclBuffer("T", kF32, {128, 160});  // 80 KiB: heap
  Buffer ones = DeclBuffer("L", kF32, {160}, "local");
  Var i("i"), j("j"), i2("i2"), j2("j2"), vi("vi"), vj("vj"), wi("wi"), wj("wj");
  Stmt produce = MakeBlock("T", {Spatial(vi, 128), Spatial(vj, 160)}, {i, j},
                           SeqStmt({BufferStore(tmp, BufferLoad(a, {vi, vj}) * F32(2), {vi, vj}),
                                    BufferStore(ones, F32(1), {vj})}));
  Stmt consume =
      MakeBlock("B", {Spatial(wi, 128), Spatial(wj, 160)}, {i2, j2},
                BufferStore(b, BufferLoad(tmp, {wi, wj}) + BufferLoad(ones, {wj}), {wi, wj}));
  Stmt loops =
      SeqStmt({For(i, 0, 128, ForKind::kSerial, For(j, 0, 160, ForKind::kSerial, produce)),
               For(i2, 0, 128, ForKind::kSerial, For(j2, 0, 160, ForKind::kSerial, consume))});
  return testing::MakeFunc("elementwise", {a, b}, Root(loops, {tmp, ones}));
}

TEST(CEndToEndTest, ElementwiseWithAllocations) {
  PrimFunc f = ElementwiseThroughHeap();
  std::string code =
      RunAndCompare(f, {Rand(kF32, {128, 160}, 1), HostTensor(kF32, {128, 160})}, [](auto& args) {
        for (int64_t k = 0; k < 128 * 160; ++k) {
          T(args, 1).SetDouble(k, float(float(T(args, 0).GetDouble(k)) * 2.0f) + 1.0f);
        }
      });
  EXPECT_NE(code.find("kiln_alloc"), std::string::npos);
  EXPECT_NE(code.find("free("), std::string::npos);
  EXPECT_NE(code.find("float L[160] __attribute__((aligned(64)))"), std::string::npos) << code;
}

// Heap buffers come from the per-thread workspace pool (codegen/c/c_workspace.h): calls
// repeated on the main thread and on threads that start and end meanwhile all compute the
// right values, and a thread that used the pool can end after the library is unloaded
// (its pool's destructor would otherwise run from unmapped code).
TEST(CEndToEndTest, HeapBuffersComeFromAPerThreadPool) {
  PrimFunc f = ElementwiseThroughHeap();
  EmittedSource source = EmitC(Lower(f), "kiln_pooled");
  ASSERT_NE(source.code.find("kiln_free(T);"), std::string::npos) << source.code;
  CompiledKernel kernel(source, /*unloadable=*/true);
  ASSERT_EQ(kernel.error(), "");
  // The number of calls whose outputs differ from the interpreter's.
  auto run = [&](uint64_t seed) {
    std::vector<ArgValue> inputs = {Rand(kF32, {128, 160}, seed), HostTensor(kF32, {128, 160})};
    std::vector<ArgValue> expected = CloneArgs(inputs);
    Interpret(f, expected);
    std::vector<PackedValue> packed = Pack(source.signature, inputs);
    if (kernel.Call(packed) != 0) return 1;
    const auto& want = std::get<HostTensor>(expected[1]);
    return CompareTensors(want, std::get<HostTensor>(inputs[1]), 1e-6, 1e-6).ok ? 0 : 1;
  };
  int failures = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) failures += run(seed);
  std::atomic<int> thread_failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t = uint64_t(t)] {
      for (uint64_t seed = 10 * t; seed < 10 * t + 3; ++seed) thread_failures += run(seed);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(thread_failures.load(), 0);

  std::mutex mutex;
  std::condition_variable changed;
  bool called = false, unloaded = false;
  std::thread survivor([&] {
    int result = run(99);
    std::unique_lock lock(mutex);
    thread_failures += result;
    called = true;
    changed.notify_all();
    changed.wait(lock, [&] { return unloaded; });
  });
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return called; });
  }
  kernel.Unload();
  {
    std::lock_guard lock(mutex);
    unloaded = true;
  }
  changed.notify_all();
  survivor.join();
  EXPECT_EQ(thread_failures.load(), 0);
}

TEST(CEndToEndTest, MatmulWithInit) {
  PrimFunc f = testing::Matmul(24, 20, 16);
  RunAndCompare(f, {Rand(kF32, {24, 16}, 2), Rand(kF32, {16, 20}, 3), Rand(kF32, {24, 20}, 4)},
                [](auto& args) {
                  for (int i = 0; i < 24; ++i) {
                    for (int j = 0; j < 20; ++j) {
                      float acc = 0;
                      for (int k = 0; k < 16; ++k) {
                        acc += float(T(args, 0).GetDouble(i * 16 + k)) *
                               float(T(args, 1).GetDouble(k * 20 + j));
                      }
                      T(args, 2).SetDouble(i * 20 + j, acc);
                    }
                  }
                });
}

// Matmul scheduled as i, jo, k, ji with ji vectorized: the init guard (k == 0) is the same
// for every lane, so both the init and the update become vector statements.
TEST(CEndToEndTest, VectorizedMatmulWithInit) {
  Buffer a = DeclBuffer("A", kF32, {8, 12});
  Buffer b = DeclBuffer("B", kF32, {12, 32});
  Buffer c = DeclBuffer("C", kF32, {8, 32});
  Var i("i"), jo("jo"), k("k"), ji("ji"), vi("vi"), vj("vj"), vk("vk");
  Stmt body = BufferStore(
      c, BufferLoad(c, {vi, vj}) + BufferLoad(a, {vi, vk}) * BufferLoad(b, {vk, vj}), {vi, vj});
  Stmt block = MakeBlock("C", {Spatial(vi, 8), Spatial(vj, 32), testing::Reduce(vk, 12)},
                         {i, jo * 8 + ji, k}, body, BufferStore(c, F32(0), {vi, vj}));
  Stmt loops =
      For(i, 0, 8, ForKind::kParallel,
          For(jo, 0, 4, ForKind::kSerial,
              For(k, 0, 12, ForKind::kSerial, For(ji, 0, 8, ForKind::kVectorized, block))));
  PrimFunc f = testing::MakeFunc("matmul_vec", {a, b, c}, Root(loops));
  std::string code =
      RunAndCompare(f, {Rand(kF32, {8, 12}, 25), Rand(kF32, {12, 32}, 26), Rand(kF32, {8, 32}, 27)},
                    [](auto& args) {
                      for (int i = 0; i < 8; ++i) {
                        for (int j = 0; j < 32; ++j) {
                          float acc = 0;
                          for (int k = 0; k < 12; ++k) {
                            acc += float(T(args, 0).GetDouble(i * 12 + k)) *
                                   float(T(args, 1).GetDouble(k * 32 + j));
                          }
                          T(args, 2).SetDouble(i * 32 + j, acc);
                        }
                      }
                    });
  EXPECT_NE(code.find("kiln_vstore_float32x8"), std::string::npos) << code;
  EXPECT_EQ(code.find("ivdep"), std::string::npos) << code;
}

// Scalar parameters of each kind, and a kernel with no parameters at all.
TEST(CEndToEndTest, ScalarParametersOfEveryKind) {
  Var k("k", DataType::Int(64)), d("d", DataType::Float(64)), h("h", DataType::Float(16));
  Buffer b = DeclBuffer("B", kF32, {3});
  Stmt body = SeqStmt({BufferStore(b, Cast(kF32, k), {0}), BufferStore(b, Cast(kF32, d), {1}),
                       BufferStore(b, Cast(kF32, h * FloatImm(DataType::Float(16), 2)), {2})});
  PrimFunc f = testing::MakeFunc("scalars", {b}, body, {k, d, h});
  RunAndCompare(f, {HostTensor(kF32, {3}), int64_t{-7}, 2.5, 0.333}, [](auto& args) {
    T(args, 0).SetDouble(0, -7);
    T(args, 0).SetDouble(1, 2.5);
    HostTensor half(DataType::Float(16), {1});
    half.SetDouble(0, 0.333);
    T(args, 0).SetDouble(2, half.GetDouble(0) * 2);
  });
  RunAndCompare(testing::MakeFunc("nothing", {}, Evaluate(0)), {}, [](auto&) {});
}

// B[i, j] = A[i, j] * alpha over a symbolic number of rows.
TEST(CEndToEndTest, SymbolicShapeAndScalarParameter) {
  Var n("n"), alpha("alpha", kF32);
  Buffer a = DeclBuffer("A", kF32, {n, 8});
  Buffer b = DeclBuffer("B", kF32, {n, 8});
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt block = MakeBlock("B", {Spatial(vi, n), Spatial(vj, 8)}, {i, j},
                         BufferStore(b, BufferLoad(a, {vi, vj}) * alpha, {vi, vj}));
  PrimFunc f = testing::MakeFunc(
      "scale", {a, b}, Root(For(i, 0, n, ForKind::kSerial, For(j, 0, 8, ForKind::kSerial, block))),
      {alpha});
  for (int64_t rows : {1, 13}) {
    RunAndCompare(f, {Rand(kF32, {rows, 8}, 5), HostTensor(kF32, {rows, 8}), 0.75},
                  [rows](auto& args) {
                    for (int64_t k = 0; k < rows * 8; ++k) {
                      T(args, 1).SetDouble(k, float(T(args, 0).GetDouble(k)) * 0.75f);
                    }
                  });
  }
}

// C = A + B with two nested parallel loops: only the outer one opens an OpenMP region.
TEST(CEndToEndTest, ParallelLoop) {
  Buffer a = DeclBuffer("A", kF32, {64, 32});
  Buffer b = DeclBuffer("B", kF32, {64, 32});
  Buffer c = DeclBuffer("C", kF32, {64, 32});
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt block =
      MakeBlock("C", {Spatial(vi, 64), Spatial(vj, 32)}, {i, j},
                BufferStore(c, BufferLoad(a, {vi, vj}) + BufferLoad(b, {vi, vj}), {vi, vj}));
  PrimFunc f = testing::MakeFunc(
      "add_parallel", {a, b, c},
      Root(For(i, 0, 64, ForKind::kParallel, For(j, 0, 32, ForKind::kParallel, block))), {},
      {{"tir.noalias", BoolImm(true)}});
  std::string code = RunAndCompare(
      f, {Rand(kF32, {64, 32}, 6), Rand(kF32, {64, 32}, 7), HostTensor(kF32, {64, 32})},
      [](auto& args) {
        for (int64_t k = 0; k < 64 * 32; ++k) {
          T(args, 2).SetDouble(k, float(T(args, 0).GetDouble(k)) + float(T(args, 1).GetDouble(k)));
        }
      });
  size_t first = code.find("#pragma omp parallel for");
  EXPECT_NE(first, std::string::npos);
  EXPECT_EQ(code.find("#pragma omp parallel for", first + 1), std::string::npos);
  EXPECT_NE(code.find("#include <omp.h>"), std::string::npos);
  EXPECT_NE(code.find("restrict"), std::string::npos);
}

// B[i, j] = A[i, j] * 3 + At[j, i] with j split and its inner part vectorized: one
// contiguous and one strided vector load.
TEST(CEndToEndTest, VectorizedLoop) {
  Buffer a = DeclBuffer("A", kF32, {16, 32});
  Buffer at = DeclBuffer("At", kF32, {32, 16});
  Buffer b = DeclBuffer("B", kF32, {16, 32});
  Var i("i"), jo("jo"), ji("ji"), vi("vi"), vj("vj");
  Stmt block = MakeBlock(
      "B", {Spatial(vi, 16), Spatial(vj, 32)}, {i, jo * 8 + ji},
      BufferStore(b, BufferLoad(a, {vi, vj}) * F32(3) + BufferLoad(at, {vj, vi}), {vi, vj}));
  Stmt loops = For(i, 0, 16, ForKind::kSerial,
                   For(jo, 0, 4, ForKind::kSerial, For(ji, 0, 8, ForKind::kVectorized, block)));
  PrimFunc f = testing::MakeFunc("vec", {a, at, b}, Root(loops));
  std::string code = RunAndCompare(
      f, {Rand(kF32, {16, 32}, 8), Rand(kF32, {32, 16}, 9), HostTensor(kF32, {16, 32})},
      [](auto& args) {
        for (int i = 0; i < 16; ++i) {
          for (int j = 0; j < 32; ++j) {
            T(args, 2).SetDouble(i * 32 + j, float(float(T(args, 0).GetDouble(i * 32 + j)) * 3.0f) +
                                                 float(T(args, 1).GetDouble(j * 16 + i)));
          }
        }
      });
  EXPECT_NE(code.find("kiln_vload_float32x8"), std::string::npos);
  EXPECT_NE(code.find("kiln_vgather_float32x8"), std::string::npos);
  EXPECT_NE(code.find("vector_size(32)"), std::string::npos);
}

// B[i] = max(float(C[i]) + float(i), 0) vectorized: vector casts, a ramp used as a value and
// a lane-wise max.
TEST(CEndToEndTest, VectorizedCastRampAndMax) {
  DataType i32 = DataType::Int(32);
  Buffer c = DeclBuffer("C", i32, {64});
  Buffer b = DeclBuffer("B", kF32, {64});
  Var io("io"), ii("ii");
  Expr idx = io * 16 + ii;
  Stmt body = For(
      io, 0, 4, ForKind::kSerial,
      For(ii, 0, 16, ForKind::kVectorized,
          BufferStore(b, Max(Cast(kF32, BufferLoad(c, {idx})) + Cast(kF32, idx) * F32(-1), F32(0)),
                      {idx})));
  PrimFunc f = testing::MakeFunc("vec_cast", {c, b}, body);
  std::string code =
      RunAndCompare(f, {Rand(i32, {64}, 22, -100, 100), HostTensor(kF32, {64})}, [](auto& args) {
        for (int k = 0; k < 64; ++k) {
          T(args, 1).SetDouble(k, std::max(float(T(args, 0).GetInt(k)) - float(k), 0.0f));
        }
      });
  EXPECT_NE(code.find("__builtin_convertvector"), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_vramp_int32x16"), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_max_float32x16"), std::string::npos) << code;
}

// Vector min and max as a compare and a blend: float32 with NaN in either operand (NaN wins,
// as in the interpreter), float64, int32 and uint32 lanes.
TEST(CEndToEndTest, VectorMinMaxPropagateNaNOnEveryElementType) {
  constexpr int kN = 16;
  DataType f64 = DataType::Float(64), i32 = DataType::Int(32), u32 = DataType::UInt(32);
  Buffer x = DeclBuffer("X", kF32, {kN}), y = DeclBuffer("Y", kF32, {kN});
  Buffer d = DeclBuffer("D", f64, {kN}), q = DeclBuffer("Q", i32, {kN});
  Buffer u = DeclBuffer("U", u32, {kN});
  Buffer fo = DeclBuffer("FO", kF32, {2, kN}), dout = DeclBuffer("DO", f64, {kN});
  Buffer io_ = DeclBuffer("IO", i32, {2, kN}), uo = DeclBuffer("UO", u32, {kN});
  Var i("i");
  Expr xv = BufferLoad(x, {i}), yv = BufferLoad(y, {i}), dv = BufferLoad(d, {i});
  Expr qv = BufferLoad(q, {i}), uv = BufferLoad(u, {i});
  Stmt body =
      For(i, 0, kN, ForKind::kVectorized,
          SeqStmt({BufferStore(fo, Max(xv, yv), {0, i}), BufferStore(fo, Min(xv, yv), {1, i}),
                   BufferStore(dout, Max(dv, MakeConst(f64, 0.25)), {i}),
                   BufferStore(io_, Max(qv, MakeConst(i32, -3)), {0, i}),
                   BufferStore(io_, Min(qv, MakeConst(i32, 7)), {1, i}),
                   BufferStore(uo, Min(uv, MakeConst(u32, 40)), {i})}));
  PrimFunc f = testing::MakeFunc("vector_min_max", {x, y, d, q, u, fo, dout, io_, uo}, body);
  HostTensor xs = Rand(kF32, {kN}, 51), ys = Rand(kF32, {kN}, 52);
  xs.SetDouble(3, std::nan(""));
  ys.SetDouble(5, std::nan(""));
  xs.SetDouble(7, std::nan(""));
  ys.SetDouble(7, std::nan(""));
  std::string code =
      RunAndCompare(f,
                    {xs, ys, Rand(f64, {kN}, 53), Rand(i32, {kN}, 54, -20, 20),
                     Rand(u32, {kN}, 55, 0, 100), HostTensor(kF32, {2, kN}), HostTensor(f64, {kN}),
                     HostTensor(i32, {2, kN}), HostTensor(u32, {kN})},
                    [](auto& args) {
                      for (int k = 0; k < kN; ++k) {
                        double a = T(args, 0).GetDouble(k), b = T(args, 1).GetDouble(k);
                        bool nan = std::isnan(a) || std::isnan(b);
                        T(args, 5).SetDouble(k, nan ? NAN : std::max(a, b));
                        T(args, 5).SetDouble(kN + k, nan ? NAN : std::min(a, b));
                        T(args, 6).SetDouble(k, std::max(T(args, 2).GetDouble(k), 0.25));
                        T(args, 7).SetInt(k, std::max<int64_t>(T(args, 3).GetInt(k), -3));
                        T(args, 7).SetInt(kN + k, std::min<int64_t>(T(args, 3).GetInt(k), 7));
                        T(args, 8).SetInt(k, std::min<int64_t>(T(args, 4).GetInt(k), 40));
                      }
                    });
  EXPECT_NE(code.find("kiln_max_float32x16"), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_min_uint32x16"), std::string::npos) << code;
  EXPECT_EQ(code.find("for (int i = 0; i < 16; ++i) r[i]"), std::string::npos) << code;
}

// A vectorized loop whose body has control flow stays a loop (with an ivdep hint).
TEST(CEndToEndTest, VectorizeFallbackWithCondition) {
  Buffer a = DeclBuffer("A", kF32, {64});
  Buffer b = DeclBuffer("B", kF32, {64});
  Var io("io"), ii("ii");
  Expr idx = io * 8 + ii;
  Stmt body =
      For(io, 0, 8, ForKind::kSerial,
          For(ii, 0, 8, ForKind::kVectorized,
              IfThenElse(BufferLoad(a, {idx}) > F32(0), BufferStore(b, BufferLoad(a, {idx}), {idx}),
                         BufferStore(b, F32(0), {idx}))));
  PrimFunc f = testing::MakeFunc("relu_if", {a, b}, body);
  std::string code =
      RunAndCompare(f, {Rand(kF32, {64}, 10), HostTensor(kF32, {64})}, [](auto& args) {
        for (int k = 0; k < 64; ++k) {
          double x = T(args, 0).GetDouble(k);
          T(args, 1).SetDouble(k, x > 0 ? x : 0);
        }
      });
  EXPECT_NE(code.find("#pragma GCC ivdep"), std::string::npos);
}

// Explicit unrolling, unrolling left to the compiler, and the auto-unroll pragma.
TEST(CEndToEndTest, UnrolledLoops) {
  Buffer a = DeclBuffer("A", kF32, {8, 128});
  Buffer b = DeclBuffer("B", kF32, {8, 128});
  Var i("i"), jo("jo"), ji("ji"), vi("vi"), vj("vj");
  Stmt block = MakeBlock("B", {Spatial(vi, 8), Spatial(vj, 128)}, {i, jo * 4 + ji},
                         BufferStore(b, BufferLoad(a, {vi, vj}) - F32(0.5), {vi, vj}));
  Annotations pragma{{"pragma_auto_unroll_max_step", IntImm(DataType::Int(32), 16)},
                     {"pragma_unroll_explicit", IntImm(DataType::Int(32), 1)}};
  Stmt loops =
      For(i, 0, 8, ForKind::kSerial,
          For(jo, 0, 32, ForKind::kUnrolled, For(ji, 0, 4, ForKind::kSerial, block)), "", pragma);
  PrimFunc f = testing::MakeFunc("unrolled", {a, b}, Root(loops));
  std::string code =
      RunAndCompare(f, {Rand(kF32, {8, 128}, 11), HostTensor(kF32, {8, 128})}, [](auto& args) {
        for (int k = 0; k < 8 * 128; ++k) {
          T(args, 1).SetDouble(k, float(T(args, 0).GetDouble(k)) - 0.5f);
        }
      });
  // jo (32 > 16 steps... kUnrolled, extent 32 <= 64) is replicated; ji (4 steps) too.
  EXPECT_EQ(code.find("for (int32_t jo"), std::string::npos) << code;
  EXPECT_EQ(code.find("for (int32_t ji"), std::string::npos) << code;
}

// A split that does not divide: the block's predicate guards the tail.
TEST(CEndToEndTest, SplitWithPredicate) {
  Buffer a = DeclBuffer("A", kF32, {30});
  Buffer b = DeclBuffer("B", kF32, {30});
  Var io("io"), ii("ii"), vi("vi");
  Expr idx = io * 8 + ii;
  Stmt block =
      MakeBlock("B", {Spatial(vi, 30)}, {idx},
                BufferStore(b, Call(kF32, "exp", {BufferLoad(a, {vi})}), {vi}), Stmt(), idx < 30);
  PrimFunc f = testing::MakeFunc(
      "split_exp", {a, b},
      Root(For(io, 0, 4, ForKind::kSerial, For(ii, 0, 8, ForKind::kSerial, block))));
  RunAndCompare(f, {Rand(kF32, {30}, 12), HostTensor(kF32, {30})}, [](auto& args) {
    for (int k = 0; k < 30; ++k) T(args, 1).SetDouble(k, std::exp(float(T(args, 0).GetDouble(k))));
  });
}

// D = A * B + A in float16, and its float32 copy.
TEST(CEndToEndTest, Float16Elementwise) {
  DataType f16 = DataType::Float(16);
  Buffer a = DeclBuffer("A", f16, {100});
  Buffer b = DeclBuffer("B", f16, {100});
  Buffer d = DeclBuffer("D", f16, {100});
  Buffer e = DeclBuffer("E", kF32, {100});
  Var i("i"), vi("vi");
  Expr value = BufferLoad(a, {vi}) * BufferLoad(b, {vi}) + BufferLoad(a, {vi});
  Stmt block = MakeBlock("D", {Spatial(vi, 100)}, {i},
                         SeqStmt({BufferStore(d, value, {vi}),
                                  BufferStore(e, Cast(kF32, BufferLoad(d, {vi})), {vi})}));
  PrimFunc f =
      testing::MakeFunc("half", {a, b, d, e}, Root(For(i, 0, 100, ForKind::kSerial, block)));
  std::string code = RunAndCompare(
      f,
      {Rand(f16, {100}, 13), Rand(f16, {100}, 14), HostTensor(f16, {100}), HostTensor(kF32, {100})},
      [](auto& args) {
        for (int k = 0; k < 100; ++k) {
          float x = float(T(args, 0).GetDouble(k)), y = float(T(args, 1).GetDouble(k));
          T(args, 2).SetDouble(k, x * y);
          T(args, 2).SetDouble(k, float(T(args, 2).GetDouble(k)) + x);
          T(args, 3).SetDouble(k, T(args, 2).GetDouble(k));
        }
      });
  EXPECT_NE(code.find("uint16_t"), std::string::npos);
  EXPECT_NE(code.find("kiln_round_f16"), std::string::npos);
}

// C = A * B - A in bfloat16, rounded after each operation.
TEST(CEndToEndTest, BFloat16Elementwise) {
  DataType bf16 = DataType::BFloat16();
  Buffer a = DeclBuffer("A", bf16, {64});
  Buffer b = DeclBuffer("B", bf16, {64});
  Buffer c = DeclBuffer("C", bf16, {64});
  Var i("i");
  Expr value = BufferLoad(a, {i}) * BufferLoad(b, {i}) - BufferLoad(a, {i});
  PrimFunc f = testing::MakeFunc("bf16", {a, b, c},
                                 For(i, 0, 64, ForKind::kSerial, BufferStore(c, value, {i})));
  std::string code = RunAndCompare(
      f, {Rand(bf16, {64}, 23), Rand(bf16, {64}, 24), HostTensor(bf16, {64})}, [](auto& args) {
        for (int k = 0; k < 64; ++k) {
          float x = float(T(args, 0).GetDouble(k)), y = float(T(args, 1).GetDouble(k));
          T(args, 2).SetDouble(k, x * y);
          T(args, 2).SetDouble(k, float(T(args, 2).GetDouble(k)) - x);
        }
      });
  EXPECT_NE(code.find("kiln_round_bf16"), std::string::npos);
}

// C[i] = sum_k int32(A[i, k]) * int32(B[k]).
TEST(CEndToEndTest, Int8DotToInt32) {
  DataType i8 = DataType::Int(8), i32 = DataType::Int(32);
  Buffer a = DeclBuffer("A", i8, {16, 64});
  Buffer b = DeclBuffer("B", i8, {64});
  Buffer c = DeclBuffer("C", i32, {16});
  Var i("i"), k("k"), vi("vi"), vk("vk");
  Stmt body = BufferStore(
      c, BufferLoad(c, {vi}) + Cast(i32, BufferLoad(a, {vi, vk})) * Cast(i32, BufferLoad(b, {vk})),
      {vi});
  Stmt block = MakeBlock("C", {Spatial(vi, 16), testing::Reduce(vk, 64)}, {i, k}, body,
                         BufferStore(c, IntImm(i32, 0), {vi}));
  PrimFunc f = testing::MakeFunc(
      "dot_i8", {a, b, c},
      Root(For(i, 0, 16, ForKind::kSerial, For(k, 0, 64, ForKind::kSerial, block))));
  RunAndCompare(f,
                {Rand(i8, {16, 64}, 15, -128, 127), Rand(i8, {64}, 16, -128, 127),
                 Rand(i32, {16}, 17, -100, 100)},
                [](auto& args) {
                  for (int i = 0; i < 16; ++i) {
                    int64_t acc = 0;
                    for (int k = 0; k < 64; ++k) {
                      acc += T(args, 0).GetInt(i * 64 + k) * T(args, 1).GetInt(k);
                    }
                    T(args, 2).SetInt(i, acc);
                  }
                });
}

// One row per intrinsic class: float unary, float binary, predicates, integer abs, floor
// division and modulo of negative numbers, min/max/select, and float64.
TEST(CEndToEndTest, IntrinsicClasses) {
  constexpr int kN = 64;
  DataType f64 = DataType::Float(64), i32 = DataType::Int(32);
  Buffer x = DeclBuffer("X", kF32, {kN});
  Buffer y = DeclBuffer("Y", kF32, {kN});
  Buffer q = DeclBuffer("Q", i32, {kN});
  Buffer d = DeclBuffer("D", f64, {kN});
  Buffer out = DeclBuffer("O", kF32, {17, kN});
  Buffer iout = DeclBuffer("I", i32, {4, kN});
  Buffer dout = DeclBuffer("DO", f64, {2, kN});
  Var i("i");
  Expr xv = BufferLoad(x, {i}), yv = BufferLoad(y, {i}), qv = BufferLoad(q, {i});
  Expr dv = BufferLoad(d, {i});
  Expr pos = Call(kF32, "fabs", {xv}) + F32(0.5);
  std::vector<Expr> rows = {
      Call(kF32, "exp", {xv}),
      Call(kF32, "log", {pos}),
      Call(kF32, "tanh", {xv}),
      Call(kF32, "sigmoid", {xv}),
      Call(kF32, "rsqrt", {pos}),
      Call(kF32, "erf", {xv}),
      Call(kF32, "sin", {xv}) + Call(kF32, "cos", {yv}),
      Call(kF32, "floor", {xv * F32(4)}) + Call(kF32, "ceil", {yv * F32(4)}),
      Call(kF32, "pow", {pos, yv}),
      Call(kF32, "atan2", {xv, yv}),
      Call(kF32, "fmod", {xv * F32(5), pos}),
      Select(Call(DataType::Bool(), "isnan", {Call(kF32, "log", {xv})}), F32(-1), F32(1)),
      Min(xv, yv) + Max(xv, yv) * F32(2),
      Select(xv < yv, xv * yv, xv - yv),
      FloorDiv(xv * F32(7), pos),
      Call(kF32, "exp2", {xv}) + Call(kF32, "log2", {pos}) + Call(kF32, "sqrt", {pos}),
      Max(Call(kF32, "log", {xv}), yv),  // NaN for x < 0: min and max propagate it
  };
  std::vector<Expr> irows = {Call(i32, "abs", {qv}), FloorDiv(qv, 3), FloorMod(qv, 3),
                             Min(qv, 5) * Max(qv, -5)};
  std::vector<Expr> drows = {Call(f64, "exp", {dv}), Call(f64, "log1p", {Call(f64, "fabs", {dv})})};
  std::vector<Stmt> stores;
  for (int r = 0; r < 17; ++r) stores.push_back(BufferStore(out, rows[r], {r, i}));
  for (int r = 0; r < 4; ++r) stores.push_back(BufferStore(iout, irows[r], {r, i}));
  for (int r = 0; r < 2; ++r) stores.push_back(BufferStore(dout, drows[r], {r, i}));
  PrimFunc f = testing::MakeFunc("intrinsics", {x, y, q, d, out, iout, dout},
                                 For(i, 0, kN, ForKind::kSerial, SeqStmt(stores)));
  std::string code = RunAndCompare(
      f,
      {Rand(kF32, {kN}, 18, -2, 2), Rand(kF32, {kN}, 19, -2, 2), Rand(i32, {kN}, 20, -50, 50),
       Rand(f64, {kN}, 21, -3, 3), HostTensor(kF32, {17, kN}), HostTensor(i32, {4, kN}),
       HostTensor(f64, {2, kN})},
      [](auto& args) {
        for (int k = 0; k < kN; ++k) {
          float x = float(T(args, 0).GetDouble(k)), y = float(T(args, 1).GetDouble(k));
          int64_t q = T(args, 2).GetInt(k);
          double d = T(args, 3).GetDouble(k);
          float pos = std::fabs(x) + 0.5f;
          float log_x = std::log(x);
          float r[17] = {std::exp(x),
                         std::log(pos),
                         std::tanh(x),
                         1.0f / (1.0f + std::exp(-x)),
                         1.0f / std::sqrt(pos),
                         std::erf(x),
                         std::sin(x) + std::cos(y),
                         std::floor(x * 4) + std::ceil(y * 4),
                         std::pow(pos, y),
                         std::atan2(x, y),
                         std::fmod(x * 5, pos),
                         std::isnan(std::log(x)) ? -1.0f : 1.0f,
                         std::min(x, y) + std::max(x, y) * 2,
                         x < y ? x * y : x - y,
                         std::floor(x * 7 / pos),
                         std::exp2(x) + std::log2(pos) + std::sqrt(pos),
                         std::isnan(log_x) ? log_x : std::max(log_x, y)};
          for (int row = 0; row < 17; ++row) T(args, 4).SetDouble(row * kN + k, r[row]);
          int64_t fd = q >= 0 ? q / 3 : -((-q + 2) / 3);
          int64_t ir[4] = {q < 0 ? -q : q, fd, q - fd * 3,
                           std::min<int64_t>(q, 5) * std::max<int64_t>(q, -5)};
          for (int row = 0; row < 4; ++row) T(args, 5).SetInt(row * kN + k, ir[row]);
          T(args, 6).SetDouble(k, std::exp(d));
          T(args, 6).SetDouble(kN + k, std::log1p(std::fabs(d)));
        }
      });
  EXPECT_NE(code.find("kiln_floordiv_i32"), std::string::npos);
  EXPECT_NE(code.find("kiln_exp_f32("), std::string::npos);
  EXPECT_NE(code.find("kiln_sigmoid_f32("), std::string::npos);
  EXPECT_NE(code.find("exp2f("), std::string::npos);
  EXPECT_NE(code.find("log1p("), std::string::npos);
}

// GELU through erf, exp, tanh, sigmoid and log over 100 elements: a loop vectorized by 8 over
// the first 96 (the inline vector helpers) and a scalar tail (the scalar ones), against the
// interpreter; with inline_math off, the vector loop applies libm lane by lane.
TEST(CEndToEndTest, VectorizedTranscendentals) {
  constexpr int kN = 100;
  Buffer x = DeclBuffer("X", kF32, {kN});
  Buffer out = DeclBuffer("O", kF32, {5, kN});
  auto stores = [&](const Expr& i) {
    Expr xv = BufferLoad(x, {i});
    std::vector<Expr> rows = {
        F32(0.5) * xv * (F32(1) + Call(kF32, "erf", {xv * F32(0.70710678)})),
        Call(kF32, "exp", {xv * F32(3) - F32(2)}),
        Call(kF32, "tanh", {xv}),
        Call(kF32, "sigmoid", {xv * F32(4)}),
        Call(kF32, "log", {Call(kF32, "fabs", {xv}) + F32(0.01)}),
    };
    std::vector<Stmt> s;
    for (int r = 0; r < 5; ++r) s.push_back(BufferStore(out, rows[r], {r, i}));
    return SeqStmt(s);
  };
  Var io("io"), ii("ii"), t("t");
  Stmt body = SeqStmt(
      {For(io, 0, 12, ForKind::kSerial, For(ii, 0, 8, ForKind::kVectorized, stores(io * 8 + ii))),
       For(t, 96, 4, ForKind::kSerial, stores(t))});
  PrimFunc f = testing::MakeFunc("transcendentals", {x, out}, body);
  auto reference = [](auto& args) {
    for (int k = 0; k < kN; ++k) {
      float v = float(T(args, 0).GetDouble(k));
      float r[5] = {0.5f * v * (1.0f + std::erf(v * 0.70710678f)), std::exp(v * 3 - 2),
                    std::tanh(v), 1.0f / (1.0f + std::exp(-v * 4)), std::log(std::fabs(v) + 0.01f)};
      for (int row = 0; row < 5; ++row) T(args, 1).SetDouble(row * kN + k, r[row]);
    }
  };
  std::vector<ArgValue> inputs = {Rand(kF32, {kN}, 31, -6, 6), HostTensor(kF32, {5, kN})};
  std::string code = RunAndCompare(f, inputs, reference);
  for (const char* fn : {"erf", "exp", "tanh", "sigmoid", "log"}) {
    EXPECT_NE(code.find(std::string("kiln_") + fn + "_float32x8("), std::string::npos) << fn;
    EXPECT_NE(code.find(std::string("kiln_") + fn + "_f32("), std::string::npos) << fn;
  }
  CEmitOptions libm;
  libm.inline_math = false;
  code = RunAndCompare(f, inputs, reference, libm);
  EXPECT_NE(code.find("kiln_vmap_erf_float32x8("), std::string::npos);
  EXPECT_NE(code.find("erff("), std::string::npos);
  EXPECT_EQ(code.find("kiln_erf_"), std::string::npos);
}

}  // namespace
}  // namespace kiln::codegen
