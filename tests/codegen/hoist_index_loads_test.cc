// Golden tests of HoistIndexLoads: an integer load every iteration of a constant loop reads at
// the same address moves before the loop; one under a condition, in a loop of unknown trip
// count, at an address the loop varies, or from a buffer the loop writes stays.
#include "codegen/passes/hoist_index_loads.h"

#include <gtest/gtest.h>

#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;
using testing::DumpStmt;
using testing::F32;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

struct Buffers {
  Buffer idx = DeclBuffer("idx", kI32, {16});
  Buffer y = DeclBuffer("y", kF32, {64});
  Buffer out = DeclBuffer("out", kF32, {16});
};

// for p in serial(0, 16): for k in serial(0, extent): out[p] = out[p] + y[idx[p] * 4 + k]
PrimFunc Gather(const Buffers& b, Expr extent, const std::function<Stmt(Stmt)>& wrap = {}) {
  Var p("p"), k("k");
  Expr value = BufferLoad(b.out, {p}) + BufferLoad(b.y, {BufferLoad(b.idx, {p}) * 4 + k});
  Stmt store = BufferStore(b.out, value, {p});
  if (wrap) store = wrap(store);
  return testing::MakeFunc(
      "f", {b.idx, b.y, b.out},
      For(p, 0, 16, ForKind::kSerial, For(k, 0, extent, ForKind::kSerial, store)));
}

TEST(HoistIndexLoadsTest, AnIndexLoadMovesBeforeTheConstantLoop) {
  Buffers b;
  PrimFunc f = HoistIndexLoads(Gather(b, 4));
  EXPECT_EQ(DumpStmt(f->body),
            "for p in serial(0, 16):\n"
            "  let idx_at_0 = idx[p]\n"
            "  for k in serial(0, 4):\n"
            "    out[p] = (out[p] + y[((idx_at_0 * 4) + k)])\n");
}

TEST(HoistIndexLoadsTest, ALoopThatMayNotRunKeepsItsLoads) {
  Buffers b;
  Var n("n");
  PrimFunc f = Gather(b, n);
  EXPECT_EQ(DumpStmt(HoistIndexLoads(f)->body), DumpStmt(f->body));
  PrimFunc zero = Gather(b, 0);
  EXPECT_EQ(DumpStmt(HoistIndexLoads(zero)->body), DumpStmt(zero->body));
}

TEST(HoistIndexLoadsTest, AConditionalLoadStays) {
  Buffers b;
  PrimFunc f = Gather(b, 4, [](Stmt s) { return IfThenElse(GT(Var("c"), 0), s); });
  EXPECT_EQ(DumpStmt(HoistIndexLoads(f)->body), DumpStmt(f->body));
}

TEST(HoistIndexLoadsTest, ALoadOfAWrittenBufferOrAVaryingAddressStays) {
  Buffers b;
  Var p("p"), k("k");
  // idx is written in the loop: its value may change between iterations.
  Stmt body = SeqStmt({BufferStore(b.idx, IntImm(kI32, 1), {p}),
                       BufferStore(b.out, Cast(kF32, BufferLoad(b.idx, {p})), {p})});
  PrimFunc written = testing::MakeFunc(
      "f", {b.idx, b.out}, For(p, 0, 16, ForKind::kSerial, For(k, 0, 4, ForKind::kSerial, body)));
  EXPECT_EQ(DumpStmt(HoistIndexLoads(written)->body), DumpStmt(written->body));
  // idx[k] varies with the loop.
  Stmt varying = BufferStore(b.out, Cast(kF32, BufferLoad(b.idx, {k})), {p});
  PrimFunc f =
      testing::MakeFunc("f", {b.idx, b.out},
                        For(p, 0, 16, ForKind::kSerial, For(k, 0, 4, ForKind::kSerial, varying)));
  EXPECT_EQ(DumpStmt(HoistIndexLoads(f)->body), DumpStmt(f->body));
}

}  // namespace
}  // namespace kiln::codegen
