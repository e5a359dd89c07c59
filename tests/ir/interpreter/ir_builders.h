// Small helpers for writing TensorIR by hand in the interpreter tests: loops, blocks and a
// function whose body sits in a root block, as the front ends produce them.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "ir/stmt.h"

namespace kiln::ir::testing {

inline const DataType kF32 = DataType::Float(32);
inline const DataType kF64 = DataType::Float(64);
inline const DataType kF16 = DataType::Float(16);
inline const DataType kI32 = DataType::Int(32);

inline Expr F32(double v) { return FloatImm(kF32, v); }

inline Stmt Loop(const Var& v, Expr extent, Stmt body, ForKind kind = ForKind::kSerial,
                 std::string thread_tag = "") {
  return For(v, IntImm(v.dtype(), 0), std::move(extent), kind, std::move(body),
             std::move(thread_tag));
}

inline IterVar Axis(const Var& v, Expr extent, IterKind kind = IterKind::kSpatial) {
  return IterVar{v, RangeFromMinExtent(IntImm(v.dtype(), 0), std::move(extent)), kind};
}

struct BlockSpec {
  std::string name;
  std::vector<IterVar> iter_vars = {};
  std::vector<Expr> values = {};
  Stmt body = {};
  Stmt init = {};
  Expr predicate = {};  // undefined: true
  std::vector<Buffer> allocs = {};
};

inline Stmt MakeBlock(BlockSpec spec) {
  auto node = std::make_shared<BlockNode>();
  node->name = std::move(spec.name);
  node->iter_vars = std::move(spec.iter_vars);
  node->body = std::move(spec.body);
  node->init = std::move(spec.init);
  node->alloc_buffers = std::move(spec.allocs);
  return BlockRealize(std::move(spec.values), std::move(spec.predicate), Block(std::move(node)));
}

// A function of `buffers` (then `scalars`) whose body is wrapped in a root block that
// allocates `allocs`.
inline PrimFunc MakeFunc(const std::string& name, const std::vector<Buffer>& buffers, Stmt body,
                         std::vector<Buffer> allocs = {}, const std::vector<Var>& scalars = {}) {
  std::vector<Var> params;
  std::vector<std::pair<Var, Buffer>> buffer_map;
  for (const Buffer& b : buffers) {
    Var handle(b->name, DataType::Handle());
    params.push_back(handle);
    buffer_map.emplace_back(handle, b);
  }
  for (const Var& s : scalars) params.push_back(s);
  Stmt root = MakeBlock({"root", {}, {}, std::move(body), Stmt(), Expr(), std::move(allocs)});
  return MakePrimFunc(name, std::move(params), std::move(buffer_map), std::move(root));
}

// A compact buffer with a 1-D elementwise block over it: out[i] = fn(in[i]) for i < n.
inline PrimFunc Unary(DataType in_t, DataType out_t, int64_t n,
                      const std::function<Expr(Expr)>& fn) {
  Buffer a = DeclBuffer("A", in_t, {IntImm(kI32, n)});
  Buffer b = DeclBuffer("B", out_t, {IntImm(kI32, n)});
  Var i("i"), vi("vi");
  Stmt body = Loop(
      i, n, MakeBlock({"B", {Axis(vi, n)}, {i}, BufferStore(b, fn(BufferLoad(a, {vi})), {vi})}));
  return MakeFunc("unary", {a, b}, body);
}

}  // namespace kiln::ir::testing
