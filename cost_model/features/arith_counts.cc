// Arithmetic counts on the typed functor: every node kind says what it counts as, so a new
// kind of expression cannot be silently skipped.
#include "cost_model/features/arith_counts.h"

#include <string_view>

#include "ir/typed_functor.h"

namespace kiln::cost_model {

using namespace ir;

double ArithCounts::FloatOps() const {
  return 2 * (*this)[ArithKind::kFloatMad] + (*this)[ArithKind::kFloatAddSub] +
         (*this)[ArithKind::kFloatMul] + (*this)[ArithKind::kFloatDivMod] +
         (*this)[ArithKind::kFloatCmp] + (*this)[ArithKind::kFloatMathFunc] +
         (*this)[ArithKind::kFloatOtherFunc];
}

namespace {

// Transcendental and power functions: what a compiler turns into a call or a long sequence,
// as opposed to rounding, abs and classification, which are a few instructions.
bool IsMathFunc(std::string_view op) {
  static constexpr std::string_view kMath[] = {
      "exp",  "exp2",    "exp10", "log",   "log2",  "log10", "log1p", "sqrt", "rsqrt",
      "tanh", "sigmoid", "erf",   "sin",   "cos",   "tan",   "asin",  "acos", "atan",
      "sinh", "cosh",    "asinh", "acosh", "atanh", "pow",   "atan2"};
  for (std::string_view m : kMath) {
    if (m == op) return true;
  }
  return false;
}

class Counter : public ExprFunctor<void(const Expr&)> {
 public:
  ArithCounts counts;

  void VisitExpr_(const VarNode*) override {}
  void VisitExpr_(const IntImmNode*) override {}
  void VisitExpr_(const FloatImmNode*) override {}
  void VisitExpr_(const StringImmNode*) override {}
  void VisitExpr_(const AddNode* op) override { AddSub(op->dtype, op->a, op->b); }
  void VisitExpr_(const SubNode* op) override { AddSub(op->dtype, op->a, op->b); }
  void VisitExpr_(const MulNode* op) override {
    Binary(op->dtype, op->a, op->b, ArithKind::kFloatMul, ArithKind::kIntMul);
  }
  void VisitExpr_(const DivNode* op) override { DivMod(op->dtype, op->a, op->b); }
  void VisitExpr_(const ModNode* op) override { DivMod(op->dtype, op->a, op->b); }
  void VisitExpr_(const FloorDivNode* op) override { DivMod(op->dtype, op->a, op->b); }
  void VisitExpr_(const FloorModNode* op) override { DivMod(op->dtype, op->a, op->b); }
  void VisitExpr_(const MinNode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const MaxNode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const EQNode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const NENode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const LTNode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const LENode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const GTNode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const GENode* op) override { Compare(op->a, op->b); }
  void VisitExpr_(const AndNode* op) override { Bool(op->dtype, {op->a, op->b}); }
  void VisitExpr_(const OrNode* op) override { Bool(op->dtype, {op->a, op->b}); }
  void VisitExpr_(const NotNode* op) override { Bool(op->dtype, {op->a}); }
  void VisitExpr_(const SelectNode* op) override {
    counts[ArithKind::kSelectOp] += op->dtype.lanes();
    VisitExpr(op->condition);
    VisitExpr(op->true_value);
    VisitExpr(op->false_value);
  }
  void VisitExpr_(const CastNode* op) override { VisitExpr(op->value); }
  void VisitExpr_(const CallNode* op) override {
    bool math = IsMathFunc(op->op);
    if (op->dtype.is_float()) {
      counts[math ? ArithKind::kFloatMathFunc : ArithKind::kFloatOtherFunc] += op->dtype.lanes();
    } else {
      counts[math ? ArithKind::kIntMathFunc : ArithKind::kIntOtherFunc] += op->dtype.lanes();
    }
    for (const Expr& arg : op->args) VisitExpr(arg);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    for (const Expr& index : op->indices) VisitExpr(index);
  }
  void VisitExpr_(const RampNode* op) override {
    VisitExpr(op->base);
    VisitExpr(op->stride);
  }
  void VisitExpr_(const BroadcastNode* op) override { VisitExpr(op->value); }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    VisitExpr(op->body);
  }

 private:
  void Binary(DataType t, const Expr& a, const Expr& b, ArithKind float_kind, ArithKind int_kind) {
    if (t.is_float()) {
      counts[float_kind] += t.lanes();
    } else if (t.is_integral()) {
      counts[int_kind] += t.lanes();
    }
    VisitExpr(a);
    VisitExpr(b);
  }
  void AddSub(DataType t, const Expr& a, const Expr& b) {
    // a * b + c: one multiply-add; the multiply's operands are still walked.
    const MulNode* mul = a.as<MulNode>();
    const Expr* other = &b;
    if (mul == nullptr) {
      mul = b.as<MulNode>();
      other = &a;
    }
    if (mul == nullptr || !(mul->dtype == t)) {
      Binary(t, a, b, ArithKind::kFloatAddSub, ArithKind::kIntAddSub);
      return;
    }
    counts[t.is_float() ? ArithKind::kFloatMad : ArithKind::kIntMad] += t.lanes();
    VisitExpr(mul->a);
    VisitExpr(mul->b);
    VisitExpr(*other);
  }
  void DivMod(DataType t, const Expr& a, const Expr& b) {
    Binary(t, a, b, ArithKind::kFloatDivMod, ArithKind::kIntDivMod);
  }
  void Compare(const Expr& a, const Expr& b) {
    DataType t = a.dtype();
    Binary(t, a, b, ArithKind::kFloatCmp, ArithKind::kIntCmp);
  }
  void Bool(DataType t, std::initializer_list<Expr> operands) {
    counts[ArithKind::kBoolOp] += t.lanes();
    for (const Expr& e : operands) VisitExpr(e);
  }
};

}  // namespace

ArithCounts CountArith(const BufferStoreNode* store) {
  Counter counter;
  counter.VisitExpr(store->value);
  for (const Expr& index : store->indices) counter.VisitExpr(index);
  return counter.counts;
}

}  // namespace kiln::cost_model
