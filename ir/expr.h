// TensorIR expressions: node structs, the Var handle, and the functions that build them.
// Builders check dtypes and throw kiln::Error(kType) on a mismatch; an int literal next to a
// typed operand takes that operand's dtype (so `i + 1` works for an int64 `i`). Builders do
// not simplify: `x + 0` stays as written (arith::Simplify does that).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/node.h"

namespace kiln::ir {

class Buffer;

struct VarNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kVar;
  VarNode(std::string n, DataType t) : ExprNode(kKind, t), name(std::move(n)) {}
  std::string name;  // a hint only: structural equality ignores it
  KILN_FIELDS()
};

// A variable. Two Vars are the same variable only if they are the same object.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType dtype = DataType::Int(32));
  explicit Var(std::shared_ptr<const ExprNode> ptr);  // must hold a VarNode
  const VarNode* get() const { return static_cast<const VarNode*>(ptr_.get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};

struct IntImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kIntImm;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  int64_t value;
  KILN_FIELDS(value)
};

struct FloatImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kFloatImm;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  double value;
  KILN_FIELDS(value)
};

// Strings appear only as annotation values and call arguments.
struct StringImmNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kStringImm;
  explicit StringImmNode(std::string v) : ExprNode(kKind, DataType::Handle()), value(std::move(v)) {}
  std::string value;
  KILN_FIELDS(value)
};

// Binary nodes: arithmetic (dtype of the operands) and comparisons/logic (bool).
// Div and Mod truncate toward zero on integers (C semantics); FloorDiv and FloorMod round
// toward negative infinity (Python semantics, what index arithmetic wants).
#define KILN_DECLARE_BINARY(name)                                            \
  struct name##Node : ExprNode {                                             \
    static constexpr NodeKind kKind = NodeKind::k##name;                     \
    name##Node(DataType t, Expr x, Expr y)                                   \
        : ExprNode(kKind, t), a(std::move(x)), b(std::move(y)) {}            \
    Expr a, b;                                                               \
    KILN_FIELDS(a, b)                                                        \
  };
KILN_BINARY_NODES(KILN_DECLARE_BINARY)
#undef KILN_DECLARE_BINARY

struct NotNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kNot;
  NotNode(DataType t, Expr x) : ExprNode(kKind, t), a(std::move(x)) {}
  Expr a;
  KILN_FIELDS(a)
};

// cond ? true_value : false_value; both sides are evaluated (no short circuit).
struct SelectNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kSelect;
  SelectNode(DataType t, Expr c, Expr x, Expr y)
      : ExprNode(kKind, t), condition(std::move(c)), true_value(std::move(x)),
        false_value(std::move(y)) {}
  Expr condition, true_value, false_value;
  KILN_FIELDS(condition, true_value, false_value)
};

struct CastNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kCast;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  Expr value;
  KILN_FIELDS(value)
};

// A call to a named intrinsic ("exp", "tanh", "pow", ...; see ir/op.h).
struct CallNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kCall;
  CallNode(DataType t, std::string o, std::vector<Expr> a)
      : ExprNode(kKind, t), op(std::move(o)), args(std::move(a)) {}
  std::string op;
  std::vector<Expr> args;
  KILN_FIELDS(op, args)
};

// Vector of `lanes` values base, base + stride, ...
struct RampNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kRamp;
  RampNode(DataType t, Expr b, Expr s, int l)
      : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  Expr base, stride;
  int64_t lanes;
  KILN_FIELDS(base, stride, lanes)
};

struct BroadcastNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kBroadcast;
  BroadcastNode(DataType t, Expr v, int l) : ExprNode(kKind, t), value(std::move(v)), lanes(l) {}
  Expr value;
  int64_t lanes;
  KILN_FIELDS(value, lanes)
};

// let var = value in body.
struct LetNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::kLet;
  LetNode(DataType t, Var v, Expr val, Expr b)
      : ExprNode(kKind, t), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  Expr value, body;
  KILN_FIELDS(var, value, body)
};

// ---- Builders -----------------------------------------------------------------------------

Expr IntImm(DataType dtype, int64_t value);
Expr FloatImm(DataType dtype, double value);
Expr StringImm(std::string value);
Expr BoolImm(bool value);
// An immediate of `dtype` holding `value` (int or float as the dtype says).
Expr MakeConst(DataType dtype, double value);

#define KILN_DECLARE_BINARY_BUILDER(name) Expr name(Expr a, Expr b);
KILN_BINARY_NODES(KILN_DECLARE_BINARY_BUILDER)
#undef KILN_DECLARE_BINARY_BUILDER
Expr Not(Expr a);
Expr Select(Expr condition, Expr true_value, Expr false_value);
Expr Cast(DataType dtype, Expr value);
Expr Call(DataType dtype, std::string op, std::vector<Expr> args);
Expr Ramp(Expr base, Expr stride, int lanes);
Expr Broadcast(Expr value, int lanes);
Expr Let(Var var, Expr value, Expr body);

// Operators: + - * / % are Add Sub Mul Div Mod (Div and Mod truncate on integers).
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

// The constant value of an IntImm (nullopt for anything else).
std::optional<int64_t> AsConstInt(const Expr& e);
bool IsConstInt(const Expr& e, int64_t value);

}  // namespace kiln::ir
