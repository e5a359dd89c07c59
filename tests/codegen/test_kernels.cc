// Hand-built kernels shared by the codegen tests.
#include "tests/codegen/test_kernels.h"

#include <memory>

namespace kiln::codegen::testing {

using namespace ir;

IterVar Spatial(const Var& v, Expr extent) {
  return IterVar{v, RangeFromMinExtent(IntImm(extent.dtype(), 0), extent), IterKind::kSpatial};
}

IterVar Reduce(const Var& v, Expr extent) {
  return IterVar{v, RangeFromMinExtent(IntImm(extent.dtype(), 0), extent), IterKind::kReduce};
}

Stmt MakeBlock(const std::string& name, std::vector<IterVar> iter_vars, std::vector<Expr> values,
               Stmt body, Stmt init, Expr predicate, std::vector<Buffer> allocs) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  block->iter_vars = std::move(iter_vars);
  block->body = std::move(body);
  block->init = std::move(init);
  block->alloc_buffers = std::move(allocs);
  return BlockRealize(std::move(values), predicate.defined() ? predicate : BoolImm(true),
                      Block(block));
}

Stmt Root(Stmt body, std::vector<Buffer> allocs) {
  return MakeBlock("root", {}, {}, std::move(body), Stmt(), Expr(), std::move(allocs));
}

PrimFunc MakeFunc(const std::string& name, const std::vector<Buffer>& buffers, Stmt body,
                  const std::vector<Var>& scalars, Annotations attrs) {
  std::vector<Var> params;
  std::vector<std::pair<Var, Buffer>> buffer_map;
  for (const Buffer& b : buffers) {
    Var handle(b->name + "_handle", DataType::Handle());
    params.push_back(handle);
    buffer_map.emplace_back(handle, b);
  }
  params.insert(params.end(), scalars.begin(), scalars.end());
  return MakePrimFunc(name, params, buffer_map, std::move(body), std::move(attrs));
}

Expr F32(double v) { return FloatImm(DataType::Float(32), v); }

PrimFunc Matmul(int64_t m, int64_t n, int64_t k) {
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {int(m), int(k)});
  Buffer b = DeclBuffer("B", f32, {int(k), int(n)});
  Buffer c = DeclBuffer("C", f32, {int(m), int(n)});
  Var i("i"), j("j"), r("k"), vi("vi"), vj("vj"), vk("vk");
  Stmt body = BufferStore(
      c, BufferLoad(c, {vi, vj}) + BufferLoad(a, {vi, vk}) * BufferLoad(b, {vk, vj}), {vi, vj});
  Stmt init = BufferStore(c, F32(0), {vi, vj});
  Stmt block = MakeBlock("C", {Spatial(vi, int(m)), Spatial(vj, int(n)), Reduce(vk, int(k))},
                         {i, j, r}, body, init);
  Stmt loops = For(i, 0, int(m), ForKind::kSerial,
                   For(j, 0, int(n), ForKind::kSerial, For(r, 0, int(k), ForKind::kSerial, block)));
  return MakeFunc("matmul", {a, b, c}, Root(loops));
}

}  // namespace kiln::codegen::testing
