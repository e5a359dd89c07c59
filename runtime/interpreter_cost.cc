// EstimateInterpreterCost: a walk over the loop nest with the loop ranges known to an
// analyzer, so that an extent over outer loops or shape variables still gets a bound.
#include "runtime/interpreter_cost.h"

#include <limits>

#include "ir/functor.h"

namespace kiln::runtime {
namespace {

using ir::arith::ConstIntBound;

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > kSaturated / b) return kSaturated;
  return a * b;
}

int64_t SaturatingAdd(int64_t a, int64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

class CostCounter : public ir::IRVisitor {
 public:
  explicit CostCounter(ir::arith::Analyzer& analyzer) : analyzer_(analyzer) {}

  void VisitStmt_(const ir::ForNode* op) override {
    ConstIntBound bound = analyzer_.GetConstIntBound(op->extent);
    if (bound.max_value == ConstIntBound::kPosInf) {
      unbounded_ = true;
      return;
    }
    int64_t extent = std::max<int64_t>(bound.max_value, 0);
    analyzer_.Bind(op->loop_var, ir::RangeFromMinExtent(op->min, op->extent));
    int64_t saved = trips_;
    trips_ = SaturatingMul(trips_, extent);
    VisitStmt(op->body);
    trips_ = saved;
  }

  void VisitStmt_(const ir::BufferStoreNode* op) override {
    total_ = SaturatingAdd(total_, trips_);
    IRVisitor::VisitStmt_(op);
  }

  bool unbounded() const { return unbounded_; }
  int64_t total() const { return total_; }

 private:
  ir::arith::Analyzer& analyzer_;
  int64_t trips_ = 1;
  int64_t total_ = 0;
  bool unbounded_ = false;
};

// Collects the Vars used in an expression.
class VarCollector : public ir::IRVisitor {
 public:
  void VisitExpr_(const ir::VarNode* op) override { vars.push_back(ir::GetRef<ir::Var>(op)); }
  std::vector<ir::Var> vars;
};

}  // namespace

void BindDims(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims,
              ir::arith::Analyzer& analyzer) {
  VarCollector collector;
  for (const ir::Var& param : f->params) {
    if (auto buffer = f->BufferOf(param)) {
      for (const ir::Expr& extent : (*buffer)->shape) collector.VisitExpr(extent);
    } else {
      collector.vars.push_back(param);
    }
  }
  for (const ir::Var& var : collector.vars) {
    auto it = dims.find(var.name());
    if (it != dims.end() && var.dtype().is_integral()) {
      analyzer.Bind(var, ir::IntImm(var.dtype(), it->second));
    }
  }
}

std::optional<int64_t> EstimateInterpreterCost(const ir::PrimFunc& f,
                                               const std::map<std::string, int64_t>& dims) {
  ir::arith::Analyzer analyzer;
  BindDims(f, dims, analyzer);
  CostCounter counter(analyzer);
  counter.VisitStmt(f->body);
  if (counter.unbounded()) return std::nullopt;
  return counter.total();
}

}  // namespace kiln::runtime
