// EstimateFlops: a walk over loops and stores (see flop_count.h).
#include "ir/analysis/flop_count.h"

#include "ir/arith/analyzer.h"
#include "ir/functor.h"

namespace kiln::ir {
namespace {

// Operations in a stored value; loads are leaves (their indices are address arithmetic).
class ValueOpCounter : public IRVisitor {
 public:
  using IRVisitor::VisitExpr_;
  int64_t count = 0;

#define KILN_COUNT_BINARY(name)                    \
  void VisitExpr_(const name##Node* op) override { \
    ++count;                                       \
    VisitChildren(op);                             \
  }
  KILN_BINARY_NODES(KILN_COUNT_BINARY)
#undef KILN_COUNT_BINARY
  void VisitExpr_(const NotNode* op) override {
    ++count;
    VisitChildren(op);
  }
  void VisitExpr_(const SelectNode* op) override {
    ++count;
    VisitChildren(op);
  }
  void VisitExpr_(const CallNode* op) override {
    ++count;
    VisitChildren(op);
  }
  void VisitExpr_(const BufferLoadNode*) override {}
};

// Sums, over stores, the value's operations times the product of enclosing loop extents.
class FlopCounter : public IRVisitor {
 public:
  using IRVisitor::VisitStmt_;
  Expr total = IntImm(DataType::Int(64), 0);

  void VisitStmt_(const ForNode* op) override {
    Expr saved = trip_count_;
    trip_count_ = trip_count_ * Cast(DataType::Int(64), op->extent);
    VisitStmt(op->body);
    trip_count_ = saved;
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    ValueOpCounter ops;
    ops.VisitExpr(op->value);
    if (ops.count > 0) {
      total = total + trip_count_ * IntImm(DataType::Int(64), ops.count);
    }
  }

 private:
  Expr trip_count_ = IntImm(DataType::Int(64), 1);
};

}  // namespace

Expr EstimateFlops(const PrimFunc& f) {
  if (auto it = f->attrs.find("kiln.sparse_flops"); it != f->attrs.end()) {
    if (auto flops = AsConstInt(it->second)) return IntImm(DataType::Int(64), *flops);
  }
  FlopCounter counter;
  counter.VisitStmt(f->body);
  arith::Analyzer analyzer;
  return analyzer.Simplify(counter.total);
}

double EstimateFlops(const PrimFunc& f, const std::map<std::string, int64_t>& dims) {
  Expr flops = EstimateFlops(f);
  // The free variables of the count are shape variables or scalar parameters: bind by name.
  struct VarCollector : IRVisitor {
    using IRVisitor::VisitExpr_;
    void VisitExpr_(const VarNode* op) override { vars.push_back(GetRef<Var>(op)); }
    std::vector<Var> vars;
  } collector;
  collector.VisitExpr(flops);
  arith::Analyzer analyzer;
  for (const Var& var : collector.vars) {
    auto it = dims.find(var.name());
    KILN_CHECK(it != dims.end(), ErrorKind::kInvalidIR,
               f->name + ": no value given for shape variable '" + var.name() + "'");
    analyzer.Bind(var, IntImm(var.dtype(), it->second));
  }
  auto constant = AsConstInt(analyzer.Simplify(flops));
  KILN_CHECK(constant.has_value(), ErrorKind::kInternal,
             f->name + ": the FLOP count did not fold to a constant with every variable bound");
  return static_cast<double>(*constant);
}

}  // namespace kiln::ir
