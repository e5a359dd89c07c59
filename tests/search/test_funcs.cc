// Builders of the schedule tests' functions.
#include "tests/search/test_funcs.h"

#include <string>
#include <vector>

namespace kiln::search::testing {

using namespace ir;

namespace {

Expr I32(int64_t v) { return IntImm(DataType::Int(32), v); }

struct Axis {
  std::string name;
  int64_t extent;
  IterKind kind = IterKind::kSpatial;
};

// A loop nest over `axes` around one block whose iter vars are bound to the loops.
// `make` receives the iter vars and fills in the block's regions, init and body.
template <typename F>
Stmt Stage(const std::string& name, const std::vector<Axis>& axes, F make) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  std::vector<Var> loops;
  std::vector<Expr> values;
  std::vector<Var> iters;
  for (const Axis& axis : axes) {
    Var loop(axis.name);
    Var iter("v" + axis.name);
    loops.push_back(loop);
    values.push_back(loop);
    iters.push_back(iter);
    block->iter_vars.push_back(
        IterVar{iter, RangeFromMinExtent(I32(0), I32(axis.extent)), axis.kind});
  }
  make(*block, iters);
  Stmt body = BlockRealize(values, BoolImm(true), Block(block));
  for (size_t i = axes.size(); i-- > 0;) {
    body = For(loops[i], I32(0), I32(axes[i].extent), ForKind::kSerial, body);
  }
  return body;
}

Range Point(const Expr& e) { return RangeFromMinExtent(e, I32(1)); }

PrimFunc Wrap(const std::string& name, const std::vector<Buffer>& params,
              std::vector<Buffer> allocs, std::vector<Stmt> stages) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->alloc_buffers = std::move(allocs);
  root->body = SeqStmt(std::move(stages));
  std::vector<Var> vars;
  std::vector<std::pair<Var, Buffer>> buffer_map;
  for (const Buffer& b : params) {
    Var handle(b->name, DataType::Handle());
    vars.push_back(handle);
    buffer_map.emplace_back(handle, b);
  }
  return MakePrimFunc(name, vars, buffer_map, BlockRealize({}, BoolImm(true), Block(root)),
                      {{"global_symbol", StringImm(name)}, {"tir.noalias", BoolImm(true)}});
}

Stmt MatmulStage(const Buffer& a, const Buffer& b, const Buffer& c, int64_t m, int64_t n,
                 int64_t k) {
  return Stage("C", {{"i", m}, {"j", n}, {"k", k, IterKind::kReduce}},
               [&](BlockNode& blk, const std::vector<Var>& v) {
                 blk.reads = {BufferRegion{a, {Point(v[0]), Point(v[2])}},
                              BufferRegion{b, {Point(v[2]), Point(v[1])}}};
                 blk.writes = {BufferRegion{c, {Point(v[0]), Point(v[1])}}};
                 blk.init = BufferStore(c, FloatImm(DataType::Float(32), 0), {v[0], v[1]});
                 blk.body =
                     BufferStore(c,
                                 BufferLoad(c, {v[0], v[1]}) +
                                     BufferLoad(a, {v[0], v[2]}) * BufferLoad(b, {v[2], v[1]}),
                                 {v[0], v[1]});
               });
}

}  // namespace

PrimFunc MakeMatmul(int64_t m, int64_t n, int64_t k) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {I32(m), I32(k)});
  Buffer b = DeclBuffer("B", f32, {I32(k), I32(n)});
  Buffer c = DeclBuffer("C", f32, {I32(m), I32(n)});
  return Wrap("main", {a, b, c}, {}, {MatmulStage(a, b, c, m, n, k)});
}

PrimFunc MakeTwoStage(int64_t m, int64_t n) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {I32(m), I32(n)});
  Buffer b = DeclBuffer("B", f32, {I32(m), I32(n)});
  Buffer c = DeclBuffer("C", f32, {I32(m), I32(n)});
  Stmt s1 = Stage("B", {{"i", m}, {"j", n}}, [&](BlockNode& blk, const std::vector<Var>& v) {
    blk.reads = {BufferRegion{a, {Point(v[0]), Point(v[1])}}};
    blk.writes = {BufferRegion{b, {Point(v[0]), Point(v[1])}}};
    blk.body = BufferStore(b, BufferLoad(a, {v[0], v[1]}) * FloatImm(f32, 2), {v[0], v[1]});
  });
  Stmt s2 = Stage("C", {{"i", m}, {"j", n}}, [&](BlockNode& blk, const std::vector<Var>& v) {
    blk.reads = {BufferRegion{b, {Point(v[0]), Point(v[1])}}};
    blk.writes = {BufferRegion{c, {Point(v[0]), Point(v[1])}}};
    blk.body = BufferStore(c, BufferLoad(b, {v[0], v[1]}) + FloatImm(f32, 1), {v[0], v[1]});
  });
  return Wrap("main", {a, c}, {b}, {s1, s2});
}

PrimFunc MakeMatmulRelu(int64_t m, int64_t n, int64_t k) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {I32(m), I32(k)});
  Buffer b = DeclBuffer("B", f32, {I32(k), I32(n)});
  Buffer c = DeclBuffer("C", f32, {I32(m), I32(n)});
  Buffer d = DeclBuffer("D", f32, {I32(m), I32(n)});
  Stmt relu = Stage("D", {{"i", m}, {"j", n}}, [&](BlockNode& blk, const std::vector<Var>& v) {
    blk.reads = {BufferRegion{c, {Point(v[0]), Point(v[1])}}};
    blk.writes = {BufferRegion{d, {Point(v[0]), Point(v[1])}}};
    blk.body = BufferStore(d, Max(BufferLoad(c, {v[0], v[1]}), FloatImm(f32, 0)), {v[0], v[1]});
  });
  return Wrap("main", {a, b, d}, {c}, {MatmulStage(a, b, c, m, n, k), relu});
}

void RandomReorder(Schedule& sch, const std::vector<LoopRV>& loops, RandomEngine& rng) {
  if (loops.size() < 2) return;
  std::vector<LoopRV> order = loops;
  for (size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[rng.UniformInt(0, static_cast<int64_t>(i))]);
  }
  order.resize(rng.UniformInt(2, static_cast<int64_t>(order.size()) + 1));
  sch.Reorder(order);
}

void RandomFuseOfNeighbours(Schedule& sch, const std::vector<LoopRV>& loops, RandomEngine& rng) {
  if (loops.size() < 2) return;
  size_t at = rng.UniformInt(0, static_cast<int64_t>(loops.size()) - 1);
  sch.Fuse({loops[at], loops[at + 1]});
}

}  // namespace kiln::search::testing
