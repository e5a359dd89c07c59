// The compute builder's errors: each misuse throws kiln::Error of the expected kind with a
// message that names the tensor or stage at fault.
#include <gtest/gtest.h>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"

namespace kiln::ir::compute {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// Runs `fn`, expecting kiln::Error of `kind` whose message contains `fragment`.
template <typename F>
void ExpectError(F fn, ErrorKind kind, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ComputeErrorsTest, WrongIndexCount) {
  Tensor a = Placeholder("A", {4, 4}, kF32);
  ExpectError([&] { a(1); }, ErrorKind::kType, "tensor A has 2 dimensions");
  ExpectError(
      [&] {
        Compute(
            {4}, [&](Var i) { return a(i, i, i); }, "B");
      },
      ErrorKind::kType, "indexed with 3 indices");
}

TEST(ComputeErrorsTest, IndexFunctionArityMustMatchTheShape) {
  ExpectError(
      [] {
        Compute(
            {4, 4}, [](Var i) { return i; }, "B");
      },
      ErrorKind::kType, "Compute B: the index function takes 1 indices but the shape has 2");
  ExpectError(
      [] {
        Compute({4}, [](const std::vector<Var>& i) { return i[0]; }, "B", {"x", "y"});
      },
      ErrorKind::kInvalidIR, "2 axis names for 1 dimensions");
}

TEST(ComputeErrorsTest, DtypeMismatches) {
  Tensor a = Placeholder("A", {4}, kF32);
  Tensor h = Placeholder("H", {4}, DataType::Float(16));
  ExpectError(
      [&] {
        Compute(
            {4}, [&](Var i) { return a(i) + h(i); }, "B");
      },
      ErrorKind::kType, "float32 vs float16");
  ExpectError([&] { a(Var("x", kF32)); }, ErrorKind::kType, "index 0 is not a scalar integer");
  ExpectError([] { Placeholder("A", {Var("x", kF32)}, kF32); }, ErrorKind::kType,
              "placeholder A: dimension 0");
  ExpectError([] { Placeholder("A", {4}, DataType::Handle()); }, ErrorKind::kType,
              "not a scalar element type");
  Tensor flags = Placeholder("F", {4}, DataType::Bool());
  IterVar k = ReduceAxis(4);
  ExpectError(
      [&] {
        Compute(
            {1}, [&](Var) { return Sum(flags(k.var), {k}); }, "S");
      },
      ErrorKind::kType, "Sum: cannot reduce values of dtype bool");
  ExpectError([&] { Sum(a(k.var), {k}, a(k.var)); }, ErrorKind::kType, "not a scalar bool");
}

TEST(ComputeErrorsTest, ReduceAxisOutsideAReducer) {
  Tensor a = Placeholder("A", {4, 8}, kF32);
  IterVar k = ReduceAxis(8, "k");
  Tensor b = Compute(
      {4}, [&](Var i) { return a(i, k.var); }, "B");
  ExpectError([&] { CreatePrimFunc({a, b}); }, ErrorKind::kInvalidIR, "uses variable k of stage B");
  // A reduce axis of one stage's reducer is not visible to another stage.
  Tensor s = Compute(
      {4}, [&](Var i) { return Sum(a(i, k.var), {k}); }, "S");
  Tensor t = Compute(
      {4}, [&](Var i) { return s(i) + a(i, k.var); }, "T");
  ExpectError([&] { CreatePrimFunc({a, t}); }, ErrorKind::kInvalidIR, "variable k of stage T");
}

TEST(ComputeErrorsTest, ReducerMustBeTheWholeValue) {
  Tensor a = Placeholder("A", {4, 8}, kF32);
  IterVar k = ReduceAxis(8, "k");
  ExpectError(
      [&] {
        Compute(
            {4}, [&](Var i) { return Sum(a(i, k.var), {k}) * Const(kF32, 2); }, "B");
      },
      ErrorKind::kInvalidIR, "must be the whole value of its stage");
  IterVar l = ReduceAxis(4, "l");
  ExpectError(
      [&] {
        Compute(
            {1}, [&](Var) { return Sum(Max(a(l.var, k.var), {k}), {l}); }, "B");
      },
      ErrorKind::kInvalidIR, "a reducer inside a reducer");
  ExpectError([&] { Sum(a(0, k.var), {}); }, ErrorKind::kInvalidIR, "no reduce axes");
  ExpectError([&] { Sum(a(0, k.var), {k, k}); }, ErrorKind::kInvalidIR, "listed twice");
  IterVar spatial{Var("s"), Range{0, 4}, IterKind::kSpatial};
  ExpectError([&] { Sum(a(0, spatial.var), {spatial}); }, ErrorKind::kInvalidIR,
              "not a reduce axis");
  ExpectError([] { ReduceAxis(0); }, ErrorKind::kInvalidIR, "extent must be positive");
}

TEST(ComputeErrorsTest, PlaceholderMustBeAnArgument) {
  Tensor a = Placeholder("A", {4}, kF32);
  Tensor w = Placeholder("W", {4}, kF32);
  Tensor b = Compute(
      {4}, [&](Var i) { return a(i) * w(i); }, "B");
  ExpectError(
      [&] {
        CreatePrimFunc({a, b}, "f");
      },
      ErrorKind::kInvalidIR,
      "CreatePrimFunc f: stage B loads placeholder W, which is not an argument");
}

TEST(ComputeErrorsTest, ArgumentsAndNames) {
  Tensor a = Placeholder("A", {4}, kF32);
  Tensor b = Compute(
      {4}, [&](Var i) { return a(i) + Const(kF32, 1); }, "B");
  ExpectError([&] { CreatePrimFunc({a, b, b}); }, ErrorKind::kInvalidIR, "passed twice");
  ExpectError(
      [&] {
        CreatePrimFunc({a, Tensor()});
      },
      ErrorKind::kInvalidIR, "argument 1 is undefined");
  ExpectError([&] { CreatePrimFunc({a}); }, ErrorKind::kInvalidIR, "nothing to compute");
  Tensor a2 = Placeholder("A", {4}, kF32);
  Tensor c = Compute(
      {4}, [&](Var i) { return a(i) + a2(i); }, "C");
  ExpectError(
      [&] {
        CreatePrimFunc({a, a2, c});
      },
      ErrorKind::kInvalidIR, "two tensors are named A");
  Tensor b2 = Compute(
      {4}, [&](Var i) { return b(i) * Const(kF32, 2); }, "B");
  ExpectError([&] { CreatePrimFunc({a, b2}); }, ErrorKind::kInvalidIR, "two tensors are named B");
}

TEST(ComputeErrorsTest, ShapeVariablesMustComeFromArguments) {
  Var n("n"), m("m");
  Tensor a = Placeholder("A", {n}, kF32);
  // An intermediate whose size no argument defines.
  Tensor mid = Compute(
      {m}, [&](Var i) { return a(FloorMod(i, n)); }, "mid");
  Tensor out = Compute(
      {n}, [&](Var i) { return mid(i); }, "out");
  ExpectError(
      [&] {
        CreatePrimFunc({a, out});
      },
      ErrorKind::kInvalidIR, "the shape of intermediate stage mid uses variable m");
  // With m defined by an argument, the same graph is fine.
  Tensor shape_source = Placeholder("S", {m}, kF32);
  EXPECT_NO_THROW(CreatePrimFunc({a, shape_source, out}));
}

TEST(ComputeErrorsTest, LoadsMustGoThroughTensorsInsideTheFunction) {
  Tensor a = Placeholder("A", {4}, kF32);
  Expr outside = a(0);  // built before any stage: no stage can tell whose buffer it is
  ExpectError(
      [&] {
        Compute(
            {4}, [&](Var) { return outside; }, "B");
      },
      ErrorKind::kInvalidIR, "loads buffer A, which was not loaded through a Tensor");
  Buffer raw = DeclBuffer("raw", kF32, {4});
  ExpectError(
      [&] {
        Compute(
            {4}, [&](Var i) { return BufferLoad(raw, {i}); }, "B");
      },
      ErrorKind::kInvalidIR, "loads buffer raw");
}

TEST(ComputeErrorsTest, CyclesAreRejected) {
  // The builder cannot make a cycle (a stage loads only tensors that exist before it), but a
  // graph assembled by hand from TensorNodes can hold one, and CreatePrimFunc refuses it.
  Tensor a = Placeholder("A", {4}, kF32);
  Tensor b = Compute(
      {4}, [&](Var i) { return a(i) + Const(kF32, 1); }, "B");
  auto node = std::make_shared<TensorNode>(*b.get());
  node->inputs.push_back(Tensor(node));
  Tensor looped(node);
  ExpectError(
      [&] {
        CreatePrimFunc({a, looped});
      },
      ErrorKind::kInvalidIR, "stage B depends on itself (a cycle)");
  node->inputs.clear();  // frees the node
}

}  // namespace
}  // namespace kiln::ir::compute
