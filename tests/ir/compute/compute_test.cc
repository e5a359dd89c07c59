// The compute builder's output: the loop nests, blocks, iter vars, regions, init statements,
// root block and allocations that CreatePrimFunc generates, and the helpers around it.
#include <gtest/gtest.h>

#include <cfloat>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/functor.h"
#include "ir/structural.h"

namespace kiln::ir::compute {
namespace {

constexpr DataType kF32 = DataType::Float(32);

const BlockNode* Root(const PrimFunc& f) {
  const auto* realize = f->body.as<BlockRealizeNode>();
  return realize ? realize->block_node() : nullptr;
}

// The loops from `s` down to the first block realize, and that realize.
struct Nest {
  std::vector<const ForNode*> loops;
  const BlockRealizeNode* realize = nullptr;
  const BlockNode* block() const { return realize->block_node(); }
};
Nest NestOf(Stmt s) {
  Nest nest;
  while (const auto* loop = s.as<ForNode>()) {
    nest.loops.push_back(loop);
    s = loop->body;
  }
  nest.realize = s.as<BlockRealizeNode>();
  return nest;
}

std::vector<Stmt> Stages(const PrimFunc& f) {
  const Stmt& body = Root(f)->body;
  if (const auto* seq = body.as<SeqStmtNode>()) return seq->seq;
  return {body};
}

PrimFunc Matmul(const std::string& a_name = "A", const std::string& k_name = "k") {
  Tensor a = Placeholder(a_name, {32, 40}, kF32);
  Tensor b = Placeholder("B", {40, 48}, kF32);
  IterVar k = ReduceAxis(40, k_name);
  Tensor c = Compute({32, 48}, [&](Var i, Var j) { return Sum(a(i, k.var) * b(k.var, j), {k}); },
                     "C", {"i", "j"});
  return CreatePrimFunc({a, b, c}, "matmul");
}

bool IsPoint(const Range& r, const Expr& at) {
  return r.min.same_as(at) && IsConstInt(r.extent, 1);
}

TEST(ComputeTest, MatmulBlockStructure) {
  PrimFunc f = Matmul();
  ASSERT_EQ(f->params.size(), 3u);
  ASSERT_EQ(f->buffer_map.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(f->buffer_map[i].first.same_as(f->params[i]));
    EXPECT_TRUE(f->params[i].dtype().is_handle());
  }
  Buffer a = f->buffer_map[0].second, b = f->buffer_map[1].second, c = f->buffer_map[2].second;
  EXPECT_EQ(a->name, "A");
  EXPECT_EQ(c->dtype, kF32);
  EXPECT_EQ(f->attrs.at("global_symbol").as<StringImmNode>()->value, "matmul");
  EXPECT_TRUE(IsConstInt(f->attrs.at("tir.noalias"), 1));

  const BlockNode* root = Root(f);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->iter_vars.empty() && root->reads.empty() && root->writes.empty());
  EXPECT_TRUE(root->alloc_buffers.empty());
  EXPECT_FALSE(root->init.defined());

  Nest nest = NestOf(root->body);
  ASSERT_EQ(nest.loops.size(), 3u);
  ASSERT_NE(nest.realize, nullptr);
  std::vector<int64_t> extents = {32, 48, 40};
  std::vector<std::string> loop_names = {"i", "j", "k"};
  for (size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(nest.loops[l]->for_kind, ForKind::kSerial);
    EXPECT_TRUE(IsConstInt(nest.loops[l]->min, 0));
    EXPECT_TRUE(IsConstInt(nest.loops[l]->extent, extents[l]));
    EXPECT_EQ(nest.loops[l]->loop_var.name(), loop_names[l]);
  }
  const BlockNode* block = nest.block();
  EXPECT_EQ(block->name, "C");
  ASSERT_EQ(block->iter_vars.size(), 3u);
  std::vector<IterKind> kinds = {IterKind::kSpatial, IterKind::kSpatial, IterKind::kReduce};
  for (size_t v = 0; v < 3; ++v) {
    const IterVar& iv = block->iter_vars[v];
    EXPECT_EQ(iv.kind, kinds[v]);
    EXPECT_TRUE(IsConstInt(iv.dom.min, 0));
    EXPECT_TRUE(IsConstInt(iv.dom.extent, extents[v]));
    EXPECT_EQ(iv.var.name(), "v_" + loop_names[v]);
    EXPECT_TRUE(nest.realize->iter_values[v].same_as(nest.loops[v]->loop_var));
  }
  EXPECT_TRUE(IsConstInt(nest.realize->predicate, 1));
  const Var &vi = block->iter_vars[0].var, &vj = block->iter_vars[1].var,
            &vk = block->iter_vars[2].var;

  // Reads: A[vi, vk], B[vk, vj]; the accumulator C is written, not read.
  ASSERT_EQ(block->reads.size(), 2u);
  EXPECT_TRUE(block->reads[0].buffer.same_as(a));
  EXPECT_TRUE(IsPoint(block->reads[0].region[0], vi));
  EXPECT_TRUE(IsPoint(block->reads[0].region[1], vk));
  EXPECT_TRUE(block->reads[1].buffer.same_as(b));
  EXPECT_TRUE(IsPoint(block->reads[1].region[0], vk));
  EXPECT_TRUE(IsPoint(block->reads[1].region[1], vj));
  ASSERT_EQ(block->writes.size(), 1u);
  EXPECT_TRUE(block->writes[0].buffer.same_as(c));
  EXPECT_TRUE(IsPoint(block->writes[0].region[0], vi));
  EXPECT_TRUE(IsPoint(block->writes[0].region[1], vj));

  // init: C[vi, vj] = 0; body: C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj].
  const auto* init = block->init.as<BufferStoreNode>();
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(init->buffer.same_as(c));
  const auto* zero = init->value.as<FloatImmNode>();
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->value, 0.0);
  const auto* update = block->body.as<BufferStoreNode>();
  ASSERT_NE(update, nullptr);
  Expr expected = BufferLoad(c, {vi, vj}) + BufferLoad(a, {vi, vk}) * BufferLoad(b, {vk, vj});
  EXPECT_TRUE(StructuralEqual(update->value, expected));
  EXPECT_TRUE(update->indices[0].same_as(vi) && update->indices[1].same_as(vj));
}

TEST(ComputeTest, IndexFunctionFormsAndNamesDoNotChangeStructure) {
  PrimFunc f = Matmul();
  PrimFunc g = Matmul("X", "r");
  Tensor a = Placeholder("P", {32, 40}, kF32);
  Tensor b = Placeholder("Q", {40, 48}, kF32);
  IterVar k = ReduceAxis(40);
  Tensor c = Compute(
      {32, 48},
      [&](const std::vector<Var>& i) { return Sum(a(i[0], k.var) * b(k.var, i[1]), {k}); }, "C");
  PrimFunc h = CreatePrimFunc({a, b, c}, "other_name");
  EXPECT_TRUE(StructuralEqual(f, g));
  EXPECT_TRUE(StructuralEqual(f, h));
  EXPECT_EQ(StructuralHashHex(f), StructuralHashHex(h));
  // The stage name is the block name, which is structure.
  Tensor d = Compute(
      {32, 48}, [&](Var i, Var j) { return Sum(a(i, k.var) * b(k.var, j), {k}); }, "D");
  EXPECT_FALSE(StructuralEqual(f, CreatePrimFunc({a, b, d}, "matmul")));
}

TEST(ComputeTest, IntermediatesAreRootAllocationsInTopologicalOrder) {
  Tensor a = Placeholder("A", {8, 16}, kF32);
  IterVar k = ReduceAxis(16, "k");
  Tensor m = Compute(
      {8}, [&](Var i) { return Max(a(i, k.var), {k}); }, "row_max");
  Tensor e = Compute(
      {8, 16}, [&](Var i, Var j) { return Exp(a(i, j) - m(i)); }, "exp");
  Tensor s = Compute(
      {8}, [&](Var i) { return Sum(e(i, k.var), {k}); }, "row_sum");
  Tensor out = Compute(
      {8, 16}, [&](Var i, Var j) { return e(i, j) / s(i); }, "out");
  EXPECT_EQ(out->inputs.size(), 2u);
  PrimFunc f = CreatePrimFunc({a, out}, "softmax");
  ASSERT_EQ(f->params.size(), 2u);
  const BlockNode* root = Root(f);
  ASSERT_EQ(root->alloc_buffers.size(), 3u);
  EXPECT_TRUE(root->alloc_buffers[0].same_as(m.buffer()));
  EXPECT_TRUE(root->alloc_buffers[1].same_as(e.buffer()));
  EXPECT_TRUE(root->alloc_buffers[2].same_as(s.buffer()));
  std::vector<Stmt> stages = Stages(f);
  ASSERT_EQ(stages.size(), 4u);
  std::vector<std::string> names = {"row_max", "exp", "row_sum", "out"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(NestOf(stages[i]).block()->name, names[i]);

  // row_max starts from the lowest float32, row_sum from zero; exp has no init.
  const auto* max_init = NestOf(stages[0]).block()->init.as<BufferStoreNode>();
  ASSERT_NE(max_init, nullptr);
  EXPECT_EQ(max_init->value.as<FloatImmNode>()->value, -static_cast<double>(FLT_MAX));
  EXPECT_FALSE(NestOf(stages[1]).block()->init.defined());
  // out reads e and row_sum, one point each.
  const BlockNode* last = NestOf(stages[3]).block();
  ASSERT_EQ(last->reads.size(), 2u);
  EXPECT_TRUE(last->reads[0].buffer.same_as(e.buffer()));
  EXPECT_TRUE(last->reads[1].buffer.same_as(s.buffer()));
}

TEST(ComputeTest, ReducerIdentities) {
  EXPECT_EQ(ReduceIdentity(ReduceKind::kSum, kF32).as<FloatImmNode>()->value, 0.0);
  EXPECT_EQ(ReduceIdentity(ReduceKind::kProd, kF32).as<FloatImmNode>()->value, 1.0);
  EXPECT_EQ(ReduceIdentity(ReduceKind::kMax, DataType::Float(16)).as<FloatImmNode>()->value,
            -65504.0);
  EXPECT_EQ(ReduceIdentity(ReduceKind::kMin, DataType::Float(64)).as<FloatImmNode>()->value,
            DBL_MAX);
  EXPECT_TRUE(IsConstInt(ReduceIdentity(ReduceKind::kMax, DataType::Int(8)), -128));
  EXPECT_TRUE(IsConstInt(ReduceIdentity(ReduceKind::kMin, DataType::Int(32)), INT32_MAX));
  EXPECT_TRUE(IsConstInt(ReduceIdentity(ReduceKind::kMax, DataType::UInt(8)), 0));
  EXPECT_TRUE(IsConstInt(ReduceIdentity(ReduceKind::kMin, DataType::UInt(8)), 255));
  EXPECT_TRUE(IsConstInt(ReduceIdentity(ReduceKind::kProd, DataType::Int(32)), 1));
  EXPECT_EQ(ReduceIdentity(ReduceKind::kSum, DataType::Int(64)).dtype(), DataType::Int(64));
}

TEST(ComputeTest, SeveralReduceAxesAndAConditionalReduction) {
  Tensor a = Placeholder("A", {4, 6, 8}, kF32);
  IterVar r1 = ReduceAxis(6, "r1"), r2 = ReduceAxis(8, "r2");
  // Sum of the elements whose indices add up to an even number.
  Tensor s = Compute(
      {4},
      [&](Var i) {
        return Sum(a(i, r1.var, r2.var), {r1, r2}, FloorMod(r1.var + r2.var, 2) == 0);
      },
      "S");
  PrimFunc f = CreatePrimFunc({a, s}, "even_sum");
  Nest nest = NestOf(Root(f)->body);
  ASSERT_EQ(nest.loops.size(), 3u);
  EXPECT_EQ(nest.loops[1]->loop_var.name(), "r1");
  const BlockNode* block = nest.block();
  ASSERT_EQ(block->iter_vars.size(), 3u);
  EXPECT_EQ(block->iter_vars[1].kind, IterKind::kReduce);
  EXPECT_EQ(block->iter_vars[2].kind, IterKind::kReduce);
  const auto* update = block->body.as<BufferStoreNode>();
  ASSERT_NE(update, nullptr);
  const auto* add = update->value.as<AddNode>();
  ASSERT_NE(add, nullptr);
  const auto* select = add->b.as<SelectNode>();
  ASSERT_NE(select, nullptr);
  EXPECT_EQ(select->false_value.as<FloatImmNode>()->value, 0.0);
  ASSERT_EQ(block->reads.size(), 1u);
  EXPECT_TRUE(IsPoint(block->reads[0].region[1], block->iter_vars[1].var));
}

TEST(ComputeTest, SymbolicShapesAreSharedBetweenTensors) {
  Var m("m");
  Tensor a = Placeholder("A", {m, 16}, kF32);
  Tensor b = Placeholder("B", {16, 8}, kF32);
  IterVar k = ReduceAxis(16);
  Tensor c = Compute(
      {m, 8}, [&](Var i, Var j) { return Sum(a(i, k.var) * b(k.var, j), {k}); }, "C");
  PrimFunc f = CreatePrimFunc({a, b, c}, "matmul_m");
  Buffer ba = f->buffer_map[0].second, bc = f->buffer_map[2].second;
  EXPECT_TRUE(ba->shape[0].same_as(m));
  EXPECT_TRUE(bc->shape[0].same_as(m));
  Nest nest = NestOf(Root(f)->body);
  EXPECT_TRUE(nest.loops[0]->extent.same_as(m));
  EXPECT_TRUE(nest.block()->iter_vars[0].dom.extent.same_as(m));
}

TEST(ComputeTest, ScalarOutputHasNoSpatialLoops) {
  Tensor a = Placeholder("A", {10}, DataType::Float(64));
  IterVar k = ReduceAxis(10);
  Tensor total = Compute(
      {}, [&]() { return Sum(a(k.var), {k}); }, "total");
  PrimFunc f = CreatePrimFunc({a, total}, "total");
  Nest nest = NestOf(Root(f)->body);
  ASSERT_EQ(nest.loops.size(), 1u);
  ASSERT_EQ(nest.block()->iter_vars.size(), 1u);
  EXPECT_EQ(nest.block()->iter_vars[0].kind, IterKind::kReduce);
  EXPECT_EQ(nest.block()->writes[0].region.size(), 0u);
}

TEST(ComputeTest, PaddedLoadGuardsOnlyWhatMayLeaveTheTensor) {
  Tensor a = Placeholder("A", {3, 6}, kF32);
  Tensor padded = Compute(
      {3, 10},
      [&](Var c, Var x) {
        return PaddedLoad(a, {c, x - 2}, Const(kF32, 0));
      },
      "pad");
  const Expr& body = padded->body;
  const auto* select = body.as<SelectNode>();
  ASSERT_NE(select, nullptr);
  const auto* load = select->true_value.as<BufferLoadNode>();
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->indices[0].same_as(padded->axis[0]));  // c covers A's first dim
  EXPECT_NE(load->indices[1].as<MaxNode>(), nullptr);      // x - 2 is clamped
  // The condition covers only the padded dimension.
  EXPECT_NE(select->condition.as<AndNode>(), nullptr);
  Tensor same = Compute(
      {3, 6},
      [&](Var c, Var x) {
        return PaddedLoad(a, {c, x}, 0);
      },
      "copy");
  EXPECT_NE(same->body.as<BufferLoadNode>(), nullptr);
}

TEST(ComputeTest, IntrinsicsAreChecked) {
  Var x("x", kF32);
  EXPECT_EQ(Exp(x).as<CallNode>()->op, "exp");
  EXPECT_EQ(Exp(x).dtype(), kF32);
  EXPECT_EQ(Intrinsic("isnan", {x}).dtype(), DataType::Bool());
  EXPECT_EQ(Pow(x, Const(kF32, 2)).as<CallNode>()->args.size(), 2u);
  EXPECT_THROW(Intrinsic("no_such_op", {x}), Error);
  EXPECT_THROW(Intrinsic("exp", {x, x}), Error);
  EXPECT_THROW(Exp(Var("i")), Error);  // float-only op on an int
  EXPECT_THROW(Pow(x, Var("y", DataType::Float(64))), Error);
  EXPECT_EQ(Abs(Var("i")).dtype(), DataType::Int(32));
}

TEST(ComputeTest, TensorAccessors) {
  Var n("n");
  Tensor a = Placeholder("A", {n, 4}, DataType::Int(8));
  EXPECT_TRUE(a.is_placeholder());
  EXPECT_EQ(a.name(), "A");
  EXPECT_EQ(a.ndim(), 2u);
  EXPECT_EQ(a.dtype(), DataType::Int(8));
  EXPECT_TRUE(a.shape()[0].same_as(n));
  Tensor b = Compute(
      {n, 4}, [&](Var i, Var j) { return Cast(DataType::Int(32), a(i, j)); }, "B");
  EXPECT_FALSE(b.is_placeholder());
  EXPECT_EQ(b.dtype(), DataType::Int(32));
  ASSERT_EQ(b->inputs.size(), 1u);
  EXPECT_TRUE(b->inputs[0].same_as(a));
  EXPECT_EQ(b->axis[0].name(), "i0");
  EXPECT_FALSE(b->reduction.has_value());
}

}  // namespace
}  // namespace kiln::ir::compute
