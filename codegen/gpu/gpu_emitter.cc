// GpuEmitter: thread-bound loops, barriers, shared declarations.
#include "codegen/gpu/gpu_emitter.h"

#include <limits>

#include "codegen/gpu/barriers.h"
#include "codegen/passes/ir_utils.h"

namespace kiln::codegen::gpu {

using namespace ir;

void GpuEmitter::EmitKernelBody(const GpuKernel& kernel) {
  kernel_ = &kernel;
  for (const Buffer& b : kernel.shared) EmitSharedDecl(b, DeclareVar(b->data));
  EmitStmt(kernel.body);
  kernel_ = nullptr;
}

int64_t GpuEmitter::ConstantElements(const Buffer& buffer) {
  int64_t count = 1;
  for (const Expr& extent : buffer->shape) {
    auto c = AsConstInt(extent);
    KILN_CHECK(c.has_value(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": buffer " + buffer->name + " in scope " +
                   buffer->scope +
                   " has a symbolic size; a GPU kernel's own buffers need a "
                   "constant one");
    count *= *c;
  }
  return count;
}

void GpuEmitter::EmitThreadBinding(const ForNode* op) {
  bool is_block = false;
  int axis = 0;
  KILN_CHECK(ParseThreadTag(op->thread_tag, &is_block, &axis) && kernel_ != nullptr,
             ErrorKind::kUnsupported,
             "function " + function_name_ + ": loop " + op->loop_var.name() + " is bound to " +
                 op->thread_tag + ", which GPU kernels do not have");
  const Expr& launch =
      is_block ? kernel_->launch.extents.grid[axis] : kernel_->launch.extents.block[axis];
  auto extent = AsConstInt(op->extent);
  bool guarded = !SameExtent(op->extent, launch);
  std::string index = ThreadIndex(is_block, axis);
  DataType t = op->loop_var.dtype();
  Line() << "{\n";
  ++indent_;
  if (guarded) {
    Line() << "if (" << index << " < " << PrintExpr(CastTo(DataType::Int(32), op->extent))
           << ") {\n";
    ++indent_;
  }
  std::string value = ConvertThreadIndex(t, index);
  if (!IsConstInt(op->min, 0)) value = "(" + PrintExpr(op->min) + " + " + value + ")";
  std::string name = DeclareVar(op->loop_var);
  auto min = AsConstInt(op->min);
  if (min && extent) SetBounds(op->loop_var.get(), {*min, *min + *extent - 1});
  EmitConstDecl(t, name, value);
  MarkUsed(name);
  EmitStmt(op->body);
  if (guarded) {
    --indent_;
    Line() << "}\n";
  }
  --indent_;
  Line() << "}\n";
}

std::string GpuEmitter::ConvertThreadIndex(DataType t, const std::string& index) {
  return "(" + TypeName(t) + ")(" + index + ")";
}

void GpuEmitter::MarkUsed(const std::string& name) { Line() << "(void)" << name << ";\n"; }

std::optional<Expr> GpuEmitter::NarrowTo32(const Expr& e) {
  if (!e.dtype().is_int() || !e.dtype().is_scalar()) return std::nullopt;
  Bounds b = BoundsOf(e);
  if (b.min < std::numeric_limits<int32_t>::min() || b.max > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  const DataType i32 = DataType::Int(32);
  auto binary = [&](const Expr& x, const Expr& y, auto make) -> std::optional<Expr> {
    std::optional<Expr> a = NarrowTo32(x), c = NarrowTo32(y);
    if (!a || !c) return std::nullopt;
    return make(*a, *c);
  };
  switch (e.kind()) {
    case NodeKind::kIntImm:
      return IntImm(i32, e.as<IntImmNode>()->value);
    case NodeKind::kAdd:
      return binary(e.as<AddNode>()->a, e.as<AddNode>()->b, [](Expr x, Expr y) { return x + y; });
    case NodeKind::kSub:
      return binary(e.as<SubNode>()->a, e.as<SubNode>()->b, [](Expr x, Expr y) { return x - y; });
    case NodeKind::kMul:
      return binary(e.as<MulNode>()->a, e.as<MulNode>()->b, [](Expr x, Expr y) { return x * y; });
    case NodeKind::kFloorDiv:
      return binary(e.as<FloorDivNode>()->a, e.as<FloorDivNode>()->b, [&](Expr x, Expr y) {
        return Expr(std::make_shared<const FloorDivNode>(i32, std::move(x), std::move(y)));
      });
    case NodeKind::kFloorMod:
      return binary(e.as<FloorModNode>()->a, e.as<FloorModNode>()->b, [&](Expr x, Expr y) {
        return Expr(std::make_shared<const FloorModNode>(i32, std::move(x), std::move(y)));
      });
    default:
      // Variables, loads and anything else: converted once, their value fits.
      return Cast(i32, e);
  }
}

void GpuEmitter::EmitEvaluate(const EvaluateNode* op) {
  const auto* call = op->value.as<CallNode>();
  if (call != nullptr && call->op == kStorageSync) return EmitBarrier();
  CLikeEmitter::EmitEvaluate(op);
}

}  // namespace kiln::codegen::gpu
