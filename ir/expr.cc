// Expression builders and their dtype rules.
#include "ir/expr.h"

#include <cmath>

namespace kiln::ir {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
#define KILN_NODE_NAME(name) \
  case NodeKind::k##name:    \
    return #name;
    KILN_EXPR_NODES(KILN_NODE_NAME)
    KILN_STMT_NODES(KILN_NODE_NAME)
#undef KILN_NODE_NAME
  }
  return "?";
}

Expr::Expr(int value) : Expr(IntImm(DataType::Int(32), value)) {}

Var::Var(std::string name, DataType dtype)
    : Expr(std::make_shared<const VarNode>(std::move(name), dtype)) {}

Var::Var(std::shared_ptr<const ExprNode> ptr) : Expr(std::move(ptr)) {
  KILN_CHECK(ptr_ == nullptr || ptr_->kind == NodeKind::kVar, ErrorKind::kInternal,
             "Var handle made from a non-Var expression");
}

Expr IntImm(DataType dtype, int64_t value) {
  KILN_CHECK(dtype.is_integral() && dtype.is_scalar(), ErrorKind::kType,
             "IntImm needs a scalar integer or bool dtype, got " + dtype.ToString());
  if (dtype.is_bool()) value = value != 0;
  return Expr(std::make_shared<const IntImmNode>(dtype, value));
}

Expr FloatImm(DataType dtype, double value) {
  KILN_CHECK(dtype.is_float() && dtype.is_scalar(), ErrorKind::kType,
             "FloatImm needs a scalar float dtype, got " + dtype.ToString());
  return Expr(std::make_shared<const FloatImmNode>(dtype, value));
}

Expr StringImm(std::string value) {
  return Expr(std::make_shared<const StringImmNode>(std::move(value)));
}

Expr BoolImm(bool value) { return IntImm(DataType::Bool(), value); }

Expr MakeConst(DataType dtype, double value) {
  if (dtype.is_vector()) return Broadcast(MakeConst(dtype.element_of(), value), dtype.lanes());
  if (dtype.is_float()) return FloatImm(dtype, value);
  return IntImm(dtype, static_cast<int64_t>(value));
}

namespace {

bool IsImmediate(const Expr& e) {
  return e.as<IntImmNode>() != nullptr || e.as<FloatImmNode>() != nullptr;
}

// Gives an immediate operand the other operand's dtype; otherwise dtypes must agree.
void MatchOperandTypes(const char* op, Expr& a, Expr& b) {
  KILN_CHECK(a.defined() && b.defined(), ErrorKind::kInvalidIR,
             std::string(op) + ": undefined operand");
  if (a.dtype() == b.dtype()) return;
  auto retype = [](const Expr& imm, DataType to) {
    if (const auto* i = imm.as<IntImmNode>()) return MakeConst(to, static_cast<double>(i->value));
    return MakeConst(to, imm.as<FloatImmNode>()->value);
  };
  if (IsImmediate(b) && !(b.dtype().is_float() && !a.dtype().is_float())) {
    b = retype(b, a.dtype());
  } else if (IsImmediate(a) && !(a.dtype().is_float() && !b.dtype().is_float())) {
    a = retype(a, b.dtype());
  } else {
    throw Error(ErrorKind::kType, std::string(op) + ": operand dtypes differ: " +
                                      a.dtype().ToString() + " vs " + b.dtype().ToString());
  }
}

template <typename NodeT>
Expr MakeArith(const char* op, Expr a, Expr b) {
  MatchOperandTypes(op, a, b);
  return Expr(std::make_shared<const NodeT>(a.dtype(), std::move(a), std::move(b)));
}

template <typename NodeT>
Expr MakeCompare(const char* op, Expr a, Expr b) {
  MatchOperandTypes(op, a, b);
  DataType t = DataType::Bool(a.dtype().lanes());
  return Expr(std::make_shared<const NodeT>(t, std::move(a), std::move(b)));
}

template <typename NodeT>
Expr MakeLogic(const char* op, Expr a, Expr b) {
  MatchOperandTypes(op, a, b);
  KILN_CHECK(a.dtype().is_bool(), ErrorKind::kType,
             std::string(op) + ": operands must be bool, got " + a.dtype().ToString());
  DataType t = a.dtype();
  return Expr(std::make_shared<const NodeT>(t, std::move(a), std::move(b)));
}

}  // namespace

Expr Add(Expr a, Expr b) { return MakeArith<AddNode>("Add", std::move(a), std::move(b)); }
Expr Sub(Expr a, Expr b) { return MakeArith<SubNode>("Sub", std::move(a), std::move(b)); }
Expr Mul(Expr a, Expr b) { return MakeArith<MulNode>("Mul", std::move(a), std::move(b)); }
Expr Div(Expr a, Expr b) { return MakeArith<DivNode>("Div", std::move(a), std::move(b)); }
Expr Mod(Expr a, Expr b) { return MakeArith<ModNode>("Mod", std::move(a), std::move(b)); }
Expr FloorDiv(Expr a, Expr b) {
  return MakeArith<FloorDivNode>("FloorDiv", std::move(a), std::move(b));
}
Expr FloorMod(Expr a, Expr b) {
  return MakeArith<FloorModNode>("FloorMod", std::move(a), std::move(b));
}
Expr Min(Expr a, Expr b) { return MakeArith<MinNode>("Min", std::move(a), std::move(b)); }
Expr Max(Expr a, Expr b) { return MakeArith<MaxNode>("Max", std::move(a), std::move(b)); }
Expr EQ(Expr a, Expr b) { return MakeCompare<EQNode>("EQ", std::move(a), std::move(b)); }
Expr NE(Expr a, Expr b) { return MakeCompare<NENode>("NE", std::move(a), std::move(b)); }
Expr LT(Expr a, Expr b) { return MakeCompare<LTNode>("LT", std::move(a), std::move(b)); }
Expr LE(Expr a, Expr b) { return MakeCompare<LENode>("LE", std::move(a), std::move(b)); }
Expr GT(Expr a, Expr b) { return MakeCompare<GTNode>("GT", std::move(a), std::move(b)); }
Expr GE(Expr a, Expr b) { return MakeCompare<GENode>("GE", std::move(a), std::move(b)); }
Expr And(Expr a, Expr b) { return MakeLogic<AndNode>("And", std::move(a), std::move(b)); }
Expr Or(Expr a, Expr b) { return MakeLogic<OrNode>("Or", std::move(a), std::move(b)); }

Expr Not(Expr a) {
  KILN_CHECK(a.defined() && a.dtype().is_bool(), ErrorKind::kType, "Not: operand must be bool");
  DataType t = a.dtype();
  return Expr(std::make_shared<const NotNode>(t, std::move(a)));
}

Expr Select(Expr condition, Expr true_value, Expr false_value) {
  KILN_CHECK(condition.defined() && condition.dtype().is_bool(), ErrorKind::kType,
             "Select: condition must be bool");
  MatchOperandTypes("Select", true_value, false_value);
  DataType t = true_value.dtype();
  return Expr(std::make_shared<const SelectNode>(t, std::move(condition), std::move(true_value),
                                                 std::move(false_value)));
}

Expr Cast(DataType dtype, Expr value) {
  KILN_CHECK(value.defined(), ErrorKind::kInvalidIR, "Cast: undefined operand");
  KILN_CHECK(dtype.lanes() == value.dtype().lanes(), ErrorKind::kType,
             "Cast: lanes differ: " + value.dtype().ToString() + " to " + dtype.ToString());
  return Expr(std::make_shared<const CastNode>(dtype, std::move(value)));
}

Expr Call(DataType dtype, std::string op, std::vector<Expr> args) {
  return Expr(std::make_shared<const CallNode>(dtype, std::move(op), std::move(args)));
}

Expr Ramp(Expr base, Expr stride, int lanes) {
  MatchOperandTypes("Ramp", base, stride);
  KILN_CHECK(base.dtype().is_scalar() && lanes > 1, ErrorKind::kType,
             "Ramp: needs a scalar base and lanes > 1");
  DataType t = base.dtype().WithLanes(lanes);
  return Expr(std::make_shared<const RampNode>(t, std::move(base), std::move(stride), lanes));
}

Expr Broadcast(Expr value, int lanes) {
  KILN_CHECK(value.defined() && value.dtype().is_scalar() && lanes > 1, ErrorKind::kType,
             "Broadcast: needs a scalar value and lanes > 1");
  DataType t = value.dtype().WithLanes(lanes);
  return Expr(std::make_shared<const BroadcastNode>(t, std::move(value), lanes));
}

Expr Let(Var var, Expr value, Expr body) {
  KILN_CHECK(var.dtype() == value.dtype(), ErrorKind::kType,
             "Let: " + var.name() + " is " + var.dtype().ToString() + " but its value is " +
                 value.dtype().ToString());
  DataType t = body.dtype();
  return Expr(
      std::make_shared<const LetNode>(t, std::move(var), std::move(value), std::move(body)));
}

Expr operator+(Expr a, Expr b) { return Add(std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Sub(std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  DataType t = a.dtype();
  return Sub(MakeConst(t, 0), std::move(a));
}
Expr operator*(Expr a, Expr b) { return Mul(std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return Div(std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return Mod(std::move(a), std::move(b)); }
Expr operator==(Expr a, Expr b) { return EQ(std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return NE(std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return LT(std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return LE(std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return GT(std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return GE(std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return And(std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return Or(std::move(a), std::move(b)); }
Expr operator!(Expr a) { return Not(std::move(a)); }

std::optional<int64_t> AsConstInt(const Expr& e) {
  if (const auto* imm = e.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

bool IsConstInt(const Expr& e, int64_t value) {
  auto v = AsConstInt(e);
  return v && *v == value;
}

}  // namespace kiln::ir
