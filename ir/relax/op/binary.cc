// Elementwise binary ops with numpy broadcasting over symbolic dims, and where. On two
// scalars with known values (R.Prim(value=n)) the arithmetic ops compute the value, which
// is how the shape arithmetic of exported models (seq // 2, n * 12) stays symbolic.
#include <algorithm>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

enum class Category { kArith, kCompare, kLogical };

// An argument seen as a tensor: a Prim is a 0-d tensor of its dtype.
struct Operand {
  DataType dtype;
  std::optional<std::vector<PrimExpr>> shape;
  int ndim;
};

Operand AsOperand(const OpCall& call, size_t i) {
  const StructInfo& s = call.args[i].struct_info();
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    return Operand{p->dtype, std::vector<PrimExpr>{}, 0};
  }
  const TensorStructInfoNode* t = TensorArg(call, i);
  return Operand{t->dtype, t->shape, t->ndim};
}

// Shape of broadcasting all operands (nullopt when unknown) and its rank.
std::pair<std::optional<std::vector<PrimExpr>>, int> BroadcastAll(
    const OpCall& call, const std::vector<Operand>& operands) {
  std::optional<std::vector<PrimExpr>> shape = std::vector<PrimExpr>{};
  int ndim = 0;
  for (const Operand& o : operands) {
    if (o.ndim == kUnknownNDim || ndim == kUnknownNDim) {
      ndim = kUnknownNDim;
    } else {
      ndim = std::max(ndim, o.ndim);
    }
    if (shape && o.shape) {
      shape = BroadcastShapes(call, *shape, *o.shape);
    } else {
      shape = std::nullopt;
    }
  }
  return {shape, ndim};
}

std::optional<PrimExpr> PrimArith(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  if (op == "add") return a + b;
  if (op == "subtract") return a - b;
  if (op == "multiply") return a * b;
  if (op == "floor_divide") return FloorDiv(a, b);
  if (op == "floor_mod") return FloorMod(a, b);
  if (op == "maximum") return Max(a, b);
  if (op == "minimum") return Min(a, b);
  return std::nullopt;
}

StructInfo InferBinary(const OpCall& call, Category category) {
  const auto* pa = call.args[0].struct_info().as<PrimStructInfoNode>();
  const auto* pb = call.args[1].struct_info().as<PrimStructInfoNode>();
  if (pa != nullptr && pb != nullptr) {
    DataType t = CommonDType(call, pa->dtype, pb->dtype);
    if (category == Category::kCompare) return PrimStructInfo(DataType::Bool());
    if (category == Category::kArith && pa->value.defined() && pb->value.defined()) {
      if (auto v = PrimArith(call.op, pa->value, pb->value)) return PrimStructInfo(*v);
    }
    return PrimStructInfo(t);
  }
  Operand a = AsOperand(call, 0), b = AsOperand(call, 1);
  DataType dtype = CommonDType(call, a.dtype, b.dtype);
  if (category == Category::kLogical && !dtype.is_void() && !dtype.is_bool()) {
    Fail(call, "operands must be bool tensors, got " + dtype.ToString());
  }
  auto [shape, ndim] = BroadcastAll(call, {a, b});
  return MakeTensor(shape, ndim, category == Category::kCompare ? DataType::Bool() : dtype);
}

StructInfo InferWhere(const OpCall& call) {
  Operand c = AsOperand(call, 0), x = AsOperand(call, 1), y = AsOperand(call, 2);
  if (!c.dtype.is_void() && !c.dtype.is_bool()) {
    Fail(call, "condition must be a bool tensor, got " + c.dtype.ToString());
  }
  DataType dtype = CommonDType(call, x.dtype, y.dtype);
  auto [shape, ndim] = BroadcastAll(call, {c, x, y});
  return MakeTensor(shape, ndim, dtype);
}

}  // namespace

void RegisterBinaryOps(OpRegistry& r) {
  auto reg = [&](const char* name, Category c) {
    r.Register(OpInfo{name, 2, 2, {}, [c](const OpCall& call) { return InferBinary(call, c); }});
  };
  for (const char* name : {"add", "subtract", "multiply", "divide", "floor_divide", "power",
                           "maximum", "minimum", "mod", "floor_mod"}) {
    reg(name, Category::kArith);
  }
  for (const char* name :
       {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    reg(name, Category::kCompare);
  }
  for (const char* name : {"logical_and", "logical_or", "logical_xor"}) {
    reg(name, Category::kLogical);
  }
  r.Register(OpInfo{"where", 3, 3, {}, InferWhere});
  r.SetPattern({"add",           "subtract",    "multiply",   "divide",      "floor_divide",
                "power",         "maximum",     "minimum",    "mod",         "floor_mod",
                "equal",         "not_equal",   "less",       "less_equal",  "greater",
                "greater_equal", "logical_and", "logical_or", "logical_xor", "where"},
               OpPattern::kBroadcast);
}

}  // namespace kiln::ir::relax
