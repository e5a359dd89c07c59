// What the interpreter reports instead of computing: out-of-bounds accesses, division by zero,
// argument mismatches, unknown intrinsics; and that reading fresh memory gives NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/interpreter/interpreter.h"
#include "tests/ir/interpreter/ir_builders.h"

namespace kiln::ir::testing {
namespace {

// The error `run` throws; fails the test when it throws none.
Error CaptureError(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorKind::kInternal, "");
}

void ExpectMentions(const Error& e, ErrorKind kind, const std::vector<std::string>& parts) {
  EXPECT_EQ(e.kind(), kind) << e.what();
  for (const std::string& part : parts) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "'" << e.what() << "' does not mention '" << part << "'";
  }
}

TEST(InterpreterErrorsTest, OutOfBoundsLoadNamesBufferIndexAndShape) {
  Buffer a = DeclBuffer("A", kF32, {3, 4});
  Buffer b = DeclBuffer("B", kF32, {3, 4});
  Var i("i"), j("j"), vi("vi"), vj("vj");
  Stmt body = Loop(i, 3,
                   Loop(j, 4,
                        MakeBlock({"shifted",
                                   {Axis(vi, 3), Axis(vj, 4)},
                                   {i, j},
                                   BufferStore(b, BufferLoad(a, {vi, vj + 1}), {vi, vj})})));
  PrimFunc f = MakeFunc("shift", {a, b}, body);
  Error e = CaptureError([&] {
    Interpret(f, {HostTensor(kF32, {3, 4}), HostTensor(kF32, {3, 4})});
  });
  ExpectMentions(e, ErrorKind::kRuntime,
                 {"shift", "block shifted", "load of A[0, 4]", "shape is [3, 4]"});
}

TEST(InterpreterErrorsTest, OutOfBoundsStore) {
  Buffer a = DeclBuffer("A", kI32, {4});
  Var i("i");
  PrimFunc f = MakeFunc("fill", {a}, Loop(i, 5, BufferStore(a, i, {i})));
  HostTensor t(kI32, {4});
  Error e = CaptureError([&] { Interpret(f, {t}); });
  ExpectMentions(e, ErrorKind::kRuntime, {"store of A[4]", "shape is [4]"});
  EXPECT_EQ(t.GetInt(3), 3);  // the in-bounds stores happened
}

TEST(InterpreterErrorsTest, StridedViewBeyondItsStorage) {
  auto node = std::make_shared<BufferNode>(*DeclBuffer("A", kF32, {4, 3}).get());
  node->strides = {IntImm(kI32, 6), IntImm(kI32, 1)};
  Buffer a(node);
  Var i("i"), j("j");
  PrimFunc f = MakeFunc("strided", {a}, Loop(i, 4, Loop(j, 3, BufferStore(a, F32(1), {i, j}))));
  Error e = CaptureError([&] { Interpret(f, {HostTensor(kF32, {3, 6})}); });
  ExpectMentions(e, ErrorKind::kRuntime, {"A[3, 0]", "outside its storage"});
}

TEST(InterpreterErrorsTest, IntegerDivisionByZero) {
  Buffer a = DeclBuffer("A", kI32, {2});
  Buffer b = DeclBuffer("B", kI32, {2});
  Var i("i");
  PrimFunc f = MakeFunc("div", {a, b}, Loop(i, 2, BufferStore(b, 10 / BufferLoad(a, {i}), {i})));
  HostTensor ta(kI32, {2});
  ta.SetInt(0, 5);
  Error e = CaptureError([&] { Interpret(f, {ta, HostTensor(kI32, {2})}); });
  ExpectMentions(e, ErrorKind::kRuntime, {"div", "division by zero"});
}

TEST(InterpreterErrorsTest, WrongArgumentCount) {
  Buffer a = DeclBuffer("A", kF32, {2});
  PrimFunc f = MakeFunc("one", {a}, BufferStore(a, F32(0), {0}));
  Error e = CaptureError([&] { Interpret(f, {}); });
  ExpectMentions(e, ErrorKind::kRuntime, {"expects 1 arguments (A) but got 0"});
}

TEST(InterpreterErrorsTest, DtypeAndKindMismatch) {
  Buffer a = DeclBuffer("A", kF32, {2});
  PrimFunc f = MakeFunc("one", {a}, BufferStore(a, F32(0), {0}));
  ExpectMentions(CaptureError([&] { Interpret(f, {HostTensor(kF16, {2})}); }), ErrorKind::kRuntime,
                 {"parameter A holds float32", "float16[2]"});
  ExpectMentions(CaptureError([&] { Interpret(f, {int64_t{3}}); }), ErrorKind::kRuntime,
                 {"parameter A is a buffer"});
  ExpectMentions(CaptureError([&] {
                   Interpret(f, {HostTensor(kF32, {2, 1})});
                 }),
                 ErrorKind::kRuntime, {"parameter A has 1 dimensions", "float32[2, 1]"});
  ExpectMentions(CaptureError([&] { Interpret(f, {HostTensor(kF32, {3})}); }), ErrorKind::kRuntime,
                 {"parameter A dimension 0: the tensor has 3", "says 2"});
}

TEST(InterpreterErrorsTest, SharedSymbolicDimMustAgree) {
  Var n("n");
  Buffer a = DeclBuffer("A", kF32, {n});
  Buffer b = DeclBuffer("B", kF32, {n});
  Var i("i");
  PrimFunc f = MakeFunc("copy", {a, b}, Loop(i, n, BufferStore(b, BufferLoad(a, {i}), {i})));
  Error e = CaptureError([&] { Interpret(f, {HostTensor(kF32, {4}), HostTensor(kF32, {5})}); });
  ExpectMentions(
      e, ErrorKind::kRuntime,
      {"parameter B dimension 0: the tensor has 5", "n = 4", "from parameter A dimension 0"});
}

TEST(InterpreterErrorsTest, DimThatCannotBeBound) {
  Var n("n");
  Buffer a = DeclBuffer("A", kF32, {n * 2});
  PrimFunc f = MakeFunc("unbindable", {a}, BufferStore(a, F32(0), {0}));
  Error e = CaptureError([&] { Interpret(f, {HostTensor(kF32, {4})}); });
  ExpectMentions(e, ErrorKind::kInvalidIR,
                 {"parameter A dimension 0 cannot be computed", "variable n"});
}

TEST(InterpreterErrorsTest, ScalarArgumentMismatch) {
  Buffer a = DeclBuffer("A", kI32, {1});
  Var k("k", kI32);
  PrimFunc f = MakeFunc("scalar", {a}, BufferStore(a, k, {0}), {}, {k});
  HostTensor t(kI32, {1});
  ExpectMentions(CaptureError([&] {
                   Interpret(f, {t, 1.5});
                 }),
                 ErrorKind::kRuntime, {"parameter k is int32 but its argument is a float"});
  ExpectMentions(CaptureError([&] {
                   Interpret(f, {t, t});
                 }),
                 ErrorKind::kRuntime, {"parameter k is a scalar"});
  ExpectMentions(CaptureError([&] {
                   Interpret(f, {t, int64_t{1} << 40});
                 }),
                 ErrorKind::kRuntime, {"does not fit in int32"});
  Interpret(f, {t, int64_t{-9}});
  EXPECT_EQ(t.GetInt(0), -9);
}

TEST(InterpreterErrorsTest, UnknownIntrinsicIsRejectedBeforeRunning) {
  Buffer a = DeclBuffer("A", kF32, {1});
  // The call sits on a branch that never runs; it is still an error.
  Stmt body =
      IfThenElse(BoolImm(false), BufferStore(a, Call(kF32, "softplus", {BufferLoad(a, {0})}), {0}));
  PrimFunc f = MakeFunc("unknown", {a}, body);
  ExpectMentions(CaptureError([&] { Interpret(f, {HostTensor(kF32, {1})}); }),
                 ErrorKind::kUnsupported, {"unknown intrinsic 'softplus'"});
  PrimFunc g = MakeFunc("arity", {a}, BufferStore(a, Call(kF32, "pow", {F32(2)}), {0}));
  ExpectMentions(CaptureError([&] { Interpret(g, {HostTensor(kF32, {1})}); }),
                 ErrorKind::kInvalidIR, {"pow takes 2 arguments, got 1"});
  PrimFunc h = MakeFunc("int_exp", {a}, BufferStore(a, Cast(kF32, Call(kI32, "exp", {1})), {0}));
  ExpectMentions(CaptureError([&] { Interpret(h, {HostTensor(kF32, {1})}); }), ErrorKind::kType,
                 {"exp needs float arguments"});
}

TEST(InterpreterErrorsTest, UndefinedVariable) {
  Buffer a = DeclBuffer("A", kI32, {1});
  Var ghost("ghost");
  PrimFunc f = MakeFunc("ghost", {a}, BufferStore(a, ghost, {0}));
  ExpectMentions(CaptureError([&] { Interpret(f, {HostTensor(kI32, {1})}); }),
                 ErrorKind::kInvalidIR, {"variable ghost is used where it is not defined"});
}

TEST(InterpreterErrorsTest, UninitializedAllocationReadsAsNaNOrPoison) {
  // Sum into a scratch buffer that nobody initialized: the output is NaN, not a plausible sum.
  Buffer a = DeclBuffer("A", kF32, {4});
  Buffer b = DeclBuffer("B", kF32, {1});
  Buffer acc = DeclBuffer("acc", kF32, {1}, "local");
  Var k("k");
  Stmt body = Allocate(
      acc, SeqStmt({Loop(k, 4, BufferStore(acc, BufferLoad(acc, {0}) + BufferLoad(a, {k}), {0})),
                    BufferStore(b, BufferLoad(acc, {0}), {0})}));
  PrimFunc f = MakeFunc("uninit", {a, b}, body);
  HostTensor tb(kF32, {1});
  Interpret(f, {HostTensor::Random(kF32, {4}, 1), tb});
  EXPECT_TRUE(std::isnan(tb.GetDouble(0)));

  // The same for a block's alloc_buffer, in float16, and with a max-reduction, which a NaN
  // must not slip through.
  Buffer h = DeclBuffer("H", kF16, {1});
  Buffer tmp = DeclBuffer("tmp", kF16, {1});
  Buffer out = DeclBuffer("O", kF16, {1});
  Stmt g_body = MakeBlock({"max",
                           {},
                           {},
                           BufferStore(out, Max(BufferLoad(h, {0}), BufferLoad(tmp, {0})), {0}),
                           Stmt(),
                           Expr(),
                           {tmp}});
  HostTensor to(kF16, {1});
  Interpret(MakeFunc("uninit_max", {h, out}, g_body), {HostTensor(kF16, {1}), to});
  EXPECT_TRUE(std::isnan(to.GetDouble(0)));

  // Integers read a poison pattern, not zero.
  Buffer ib = DeclBuffer("I", kI32, {1});
  Buffer itmp = DeclBuffer("itmp", kI32, {1});
  HostTensor ti(kI32, {1});
  Interpret(
      MakeFunc("uninit_int", {ib}, Allocate(itmp, BufferStore(ib, BufferLoad(itmp, {0}), {0}))),
      {ti});
  EXPECT_EQ(ti.GetInt(0), static_cast<int32_t>(0xA5A5A5A5u));
}

}  // namespace
}  // namespace kiln::ir::testing
