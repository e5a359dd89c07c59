// DetectBlockAccessRegions on the blocks schedules meet: matmul, inner loops, conv with
// padding and strides, neighbouring accesses, allocated buffers, init, nested blocks.
#include "ir/arith/region.h"

#include <gtest/gtest.h>

#include "ir/arith/expr_compare.h"
#include "tests/ir/arith/expr_text.h"

namespace kiln::ir::arith {
namespace {

using testing::ToText;

const DataType kF32 = DataType::Float(32);

struct Dim {
  Expr min, extent;
};

void ExpectRegion(const BufferRegion& got, const Buffer& buffer, const std::vector<Dim>& dims) {
  ASSERT_TRUE(got.buffer.same_as(buffer)) << "got " << ToText(got) << " expected " << buffer->name;
  ASSERT_EQ(got.region.size(), dims.size()) << ToText(got);
  for (size_t d = 0; d < dims.size(); ++d) {
    EXPECT_TRUE(ExprDeepEqual(got.region[d].min, dims[d].min) &&
                ExprDeepEqual(got.region[d].extent, dims[d].extent))
        << ToText(got) << " dim " << d << " expected " << ToText(dims[d].min) << " extent "
        << ToText(dims[d].extent);
  }
}

Dim Point(const Expr& e) { return {e, 1}; }

IterVar Iter(const Var& v, int extent, IterKind kind = IterKind::kSpatial) {
  return IterVar{v, Range{0, extent}, kind};
}

std::shared_ptr<BlockNode> MakeBlock(std::string name, std::vector<IterVar> iters, Stmt body,
                                     Stmt init = Stmt()) {
  auto node = std::make_shared<BlockNode>();
  node->name = std::move(name);
  node->iter_vars = std::move(iters);
  node->body = std::move(body);
  node->init = std::move(init);
  return node;
}

TEST(RegionTest, Matmul) {
  Buffer a = DeclBuffer("A", kF32, {128, 128});
  Buffer b = DeclBuffer("B", kF32, {128, 128});
  Buffer c = DeclBuffer("C", kF32, {128, 128});
  Var vi("vi"), vj("vj"), vk("vk");
  Stmt init = BufferStore(c, FloatImm(kF32, 0), {vi, vj});
  Stmt body = BufferStore(
      c, BufferLoad(c, {vi, vj}) + BufferLoad(a, {vi, vk}) * BufferLoad(b, {vk, vj}), {vi, vj});
  auto block = MakeBlock("matmul", {Iter(vi, 128), Iter(vj, 128), Iter(vk, 128, IterKind::kReduce)},
                         body, init);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 3u);
  ExpectRegion(r.reads[0], c, {Point(vi), Point(vj)});
  ExpectRegion(r.reads[1], a, {Point(vi), Point(vk)});
  ExpectRegion(r.reads[2], b, {Point(vk), Point(vj)});
  ASSERT_EQ(r.writes.size(), 1u);
  ExpectRegion(r.writes[0], c, {Point(vi), Point(vj)});
}

TEST(RegionTest, InnerLoopIsRelaxed) {
  Buffer a = DeclBuffer("A", kF32, {128, 16});
  Buffer b = DeclBuffer("B", kF32, {128});
  Var vi("vi"), k("k");
  Stmt body = For(k, 0, 16, ForKind::kSerial,
                  BufferStore(b, BufferLoad(b, {vi}) + BufferLoad(a, {vi, k}), {vi}));
  auto block = MakeBlock("rowsum", {Iter(vi, 128)}, body);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 2u);
  ExpectRegion(r.reads[0], b, {Point(vi)});
  ExpectRegion(r.reads[1], a, {Point(vi), {0, 16}});
  ASSERT_EQ(r.writes.size(), 1u);
  ExpectRegion(r.writes[0], b, {Point(vi)});
}

TEST(RegionTest, ConvWithPaddingAndStrides) {
  Buffer pad = DeclBuffer("A_pad", kF32, {1, 8, 34, 34});
  Buffer w = DeclBuffer("W", kF32, {8, 8, 3, 3});
  Buffer out = DeclBuffer("Out", kF32, {1, 8, 16, 16});
  Var n("n"), co("co"), h("h"), ww("w"), ci("ci"), rh("rh"), rw("rw");
  Stmt body = BufferStore(
      out,
      BufferLoad(out, {n, co, h, ww}) +
          BufferLoad(pad, {n, ci, h * 2 + rh, ww * 2 + rw}) * BufferLoad(w, {co, ci, rh, rw}),
      {n, co, h, ww});
  auto block =
      MakeBlock("conv",
                {Iter(n, 1), Iter(co, 8), Iter(h, 16), Iter(ww, 16), Iter(ci, 8, IterKind::kReduce),
                 Iter(rh, 3, IterKind::kReduce), Iter(rw, 3, IterKind::kReduce)},
                body);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 3u);
  // Iteration variables are not relaxed: the window is a point in them.
  ExpectRegion(r.reads[1], pad, {Point(n), Point(ci), Point(h * 2 + rh), Point(ww * 2 + rw)});

  // With the window as loops inside the block, it is relaxed to a 3x3 patch.
  Var lh("lh"), lw("lw");
  Stmt inner = For(lh, 0, 3, ForKind::kSerial,
                   For(lw, 0, 3, ForKind::kSerial,
                       BufferStore(out,
                                   BufferLoad(out, {n, co, h, ww}) +
                                       BufferLoad(pad, {n, ci, h * 2 + lh, ww * 2 + lw}) *
                                           BufferLoad(w, {co, ci, lh, lw}),
                                   {n, co, h, ww})));
  auto block2 = MakeBlock(
      "conv2", {Iter(n, 1), Iter(co, 8), Iter(h, 16), Iter(ww, 16), Iter(ci, 8, IterKind::kReduce)},
      inner);
  BlockAccessRegions r2 = DetectBlockAccessRegions(*block2);
  ASSERT_EQ(r2.reads.size(), 3u);
  ExpectRegion(r2.reads[1], pad, {Point(n), Point(ci), {h * 2, 3}, {ww * 2, 3}});
  ExpectRegion(r2.reads[2], w, {Point(co), Point(ci), {0, 3}, {0, 3}});
}

TEST(RegionTest, NeighbouringAccessesMerge) {
  Buffer a = DeclBuffer("A", kF32, {129});
  Buffer b = DeclBuffer("B", kF32, {128});
  Var vi("vi");
  Stmt body = BufferStore(b, BufferLoad(a, {vi}) + BufferLoad(a, {vi + 1}), {vi});
  auto block = MakeBlock("stencil", {Iter(vi, 128)}, body);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 1u);
  ExpectRegion(r.reads[0], a, {{vi, 2}});
}

TEST(RegionTest, VectorAccessCoversItsLanes) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Buffer b = DeclBuffer("B", kF32, {128});
  Var vi("vi");
  Stmt body = BufferStore(b, BufferLoad(a, {Ramp(vi * 4, 1, 4)}), {Ramp(vi * 4, 1, 4)});
  auto block = MakeBlock("copy4", {Iter(vi, 32)}, body);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 1u);
  ExpectRegion(r.reads[0], a, {{vi * 4, 4}});
  ExpectRegion(r.writes[0], b, {{vi * 4, 4}});
}

TEST(RegionTest, SymbolicLoopExtent) {
  Var n("n"), vi("vi"), k("k");
  Buffer a = DeclBuffer("A", kF32, {n});
  Buffer b = DeclBuffer("B", kF32, {1});
  Stmt body = For(k, 0, n, ForKind::kSerial, BufferStore(b, BufferLoad(a, {k}), {0}));
  BlockAccessRegions r = DetectBlockAccessRegions(*MakeBlock("sum", {Iter(vi, 1)}, body));
  ASSERT_EQ(r.reads.size(), 1u);
  ExpectRegion(r.reads[0], a, {{0, n}});
}

TEST(RegionTest, AllocatedBuffersAreExcluded) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Buffer t = DeclBuffer("T", kF32, {128}, "local");
  Buffer b = DeclBuffer("B", kF32, {128});
  Var vi("vi");
  Stmt body = SeqStmt({BufferStore(t, BufferLoad(a, {vi}), {vi}),
                       BufferStore(b, BufferLoad(t, {vi}) * FloatImm(kF32, 2), {vi})});
  auto block = MakeBlock("scale", {Iter(vi, 128)}, body);
  block->alloc_buffers = {t};
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 1u);
  ExpectRegion(r.reads[0], a, {Point(vi)});
  ASSERT_EQ(r.writes.size(), 1u);
  ExpectRegion(r.writes[0], b, {Point(vi)});
}

TEST(RegionTest, InitStoresAreWrites) {
  Buffer a = DeclBuffer("A", kF32, {128, 64});
  Buffer c = DeclBuffer("C", kF32, {128});
  Buffer d = DeclBuffer("D", kF32, {128});
  Var vi("vi"), vk("vk");
  Stmt init =
      SeqStmt({BufferStore(c, FloatImm(kF32, 0), {vi}), BufferStore(d, FloatImm(kF32, 1), {vi})});
  Stmt body = BufferStore(c, BufferLoad(c, {vi}) + BufferLoad(a, {vi, vk}), {vi});
  auto block = MakeBlock("sum", {Iter(vi, 128), Iter(vk, 64, IterKind::kReduce)}, body, init);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.writes.size(), 2u);
  ExpectRegion(r.writes[0], c, {Point(vi)});
  ExpectRegion(r.writes[1], d, {Point(vi)});
  // D is only written by init: it is not a read.
  ASSERT_EQ(r.reads.size(), 2u);
  ExpectRegion(r.reads[0], c, {Point(vi)});
  ExpectRegion(r.reads[1], a, {Point(vi), Point(vk)});
}

TEST(RegionTest, NestedBlockIsRelaxedThroughItsBinding) {
  Buffer a = DeclBuffer("A", kF32, {128, 64});
  Buffer b = DeclBuffer("B", kF32, {128, 64});
  Buffer scratch = DeclBuffer("S", kF32, {1}, "local");
  Var vi("vi"), ko("ko"), ki("ki"), vk("vk");
  auto inner = MakeBlock("inner", {Iter(vk, 64)},
                         SeqStmt({BufferStore(scratch, BufferLoad(a, {vi, vk}), {0}),
                                  BufferStore(b, BufferLoad(scratch, {0}), {vi, vk})}));
  inner->alloc_buffers = {scratch};
  Stmt realize = BlockRealize({ko * 16 + ki}, BoolImm(true), Block(inner));
  Stmt loops = For(ko, 0, 4, ForKind::kSerial, For(ki, 0, 16, ForKind::kSerial, realize));
  auto outer = MakeBlock("outer", {Iter(vi, 128)}, loops);
  BlockAccessRegions r = DetectBlockAccessRegions(*outer);
  ASSERT_EQ(r.reads.size(), 1u);
  ExpectRegion(r.reads[0], a, {Point(vi), {0, 64}});
  ASSERT_EQ(r.writes.size(), 1u);
  ExpectRegion(r.writes[0], b, {Point(vi), {0, 64}});
}

TEST(RegionTest, DataDependentIndexCoversTheDimension) {
  Buffer a = DeclBuffer("A", kF32, {128});
  Buffer idx = DeclBuffer("Idx", DataType::Int(32), {32});
  Buffer b = DeclBuffer("B", kF32, {32});
  Var vi("vi"), k("k");
  Stmt body = For(k, 0, 4, ForKind::kSerial,
                  BufferStore(b, BufferLoad(a, {BufferLoad(idx, {vi}) + k}), {vi}));
  auto block = MakeBlock("gather", {Iter(vi, 32)}, body);
  BlockAccessRegions r = DetectBlockAccessRegions(*block);
  ASSERT_EQ(r.reads.size(), 2u);
  ExpectRegion(r.reads[0], idx, {Point(vi)});
  // The load is independent of k: only k is relaxed, so the window has extent 4.
  ExpectRegion(r.reads[1], a, {{BufferLoad(idx, {vi}), 4}});
  Stmt body2 = For(k, 0, 4, ForKind::kSerial,
                   BufferStore(b, BufferLoad(a, {BufferLoad(idx, {vi * 4 + k})}), {vi}));
  BlockAccessRegions r2 = DetectBlockAccessRegions(*MakeBlock("gather2", {Iter(vi, 32)}, body2));
  ASSERT_EQ(r2.reads.size(), 2u);
  ExpectRegion(r2.reads[0], idx, {{vi * 4, 4}});
  ExpectRegion(r2.reads[1], a, {{0, 128}});
}

}  // namespace
}  // namespace kiln::ir::arith
