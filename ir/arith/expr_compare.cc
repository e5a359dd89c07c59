// Deep equality and ordering of expressions, generated over the node field lists.
#include "ir/arith/expr_compare.h"

#include <cmath>
#include <utility>

#include "ir/functor.h"
#include "ir/stmt.h"

namespace kiln::ir::arith {
namespace {

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Field-wise comparison; `kOrder` selects ordering (names decide Vars) over equality
// (identity decides Vars).
template <bool kOrder>
struct FieldCompare {
  int operator()(const Expr& a, const Expr& b) const {
    if (!a.defined() || !b.defined()) return Cmp(a.defined(), b.defined());
    return Compare(a, b);
  }
  int operator()(const Var& a, const Var& b) const { return VarCmp(a.get(), b.get()); }
  int operator()(const Buffer& a, const Buffer& b) const {
    if (a.same_as(b)) return 0;
    if (!kOrder) return 1;
    if (!a.defined() || !b.defined()) return Cmp(a.defined(), b.defined());
    return Cmp(a->name, b->name);
  }
  template <typename T>
  int operator()(const std::vector<T>& a, const std::vector<T>& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (int c = (*this)(a[i], b[i])) return c;
    }
    return Cmp(a.size(), b.size());
  }
  int operator()(int64_t a, int64_t b) const { return Cmp(a, b); }
  int operator()(double a, double b) const {
    // NaN equals NaN and sorts last, so the order stays total.
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return Cmp(na, nb);
    if (a == b) return Cmp(std::signbit(b), std::signbit(a));  // -0.0 before 0.0
    return Cmp(a, b);
  }
  int operator()(const std::string& a, const std::string& b) const { return Cmp(a, b); }

  static int VarCmp(const VarNode* a, const VarNode* b) {
    if (a == b) return 0;
    if (!kOrder) return 1;
    if (int c = Cmp(a->name, b->name)) return c;
    return Cmp(static_cast<int>(a->dtype.bits()), static_cast<int>(b->dtype.bits()));
  }

  template <typename Tuple, size_t... I>
  int CompareTuples(const Tuple& a, const Tuple& b, std::index_sequence<I...>) const {
    int result = 0;
    ((result == 0 ? (result = (*this)(std::get<I>(a), std::get<I>(b))) : 0), ...);
    return result;
  }

  int Compare(const Expr& a, const Expr& b) const {
    if (a.same_as(b)) return 0;
    if (a.kind() != b.kind()) return Cmp(static_cast<int>(a.kind()), static_cast<int>(b.kind()));
    DataType ta = a.dtype(), tb = b.dtype();
    if (ta != tb) {
      if (int c = Cmp(static_cast<int>(ta.code()), static_cast<int>(tb.code()))) return c;
      if (int c = Cmp(ta.bits(), tb.bits())) return c;
      return Cmp(ta.lanes(), tb.lanes());
    }
    if (a.kind() == NodeKind::kVar) {
      return VarCmp(static_cast<const VarNode*>(a.get()), static_cast<const VarNode*>(b.get()));
    }
    switch (a.kind()) {
#define KILN_COMPARE_CASE(name)                                                                \
  case NodeKind::k##name: {                                                                    \
    auto fa = static_cast<const name##Node*>(a.get())->Fields();                               \
    auto fb = static_cast<const name##Node*>(b.get())->Fields();                               \
    return CompareTuples(fa, fb, std::make_index_sequence<std::tuple_size_v<decltype(fa)>>()); \
  }
      KILN_EXPR_NODES(KILN_COMPARE_CASE)
#undef KILN_COMPARE_CASE
      default:
        return 1;
    }
  }
};

class VarFinder : public IRVisitor {
 public:
  explicit VarFinder(const VarNode* var) : var_(var) {}
  void VisitExpr(const Expr& e) override {
    if (found) return;
    if (e.get() == var_) {
      found = true;
      return;
    }
    IRVisitor::VisitExpr(e);
  }
  void VisitExpr_(const LetNode* op) override {
    if (op->var.get() == var_) found = true;
    IRVisitor::VisitExpr_(op);
  }
  bool found = false;

 private:
  const VarNode* var_;
};

}  // namespace

bool ExprDeepEqual(const Expr& a, const Expr& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return FieldCompare<false>().Compare(a, b) == 0;
}

int ExprOrder(const Expr& a, const Expr& b) { return FieldCompare<true>()(a, b); }

bool UsesVar(const Expr& e, const VarNode* var) {
  if (!e.defined()) return false;
  VarFinder finder(var);
  finder.VisitExpr(e);
  return finder.found;
}

}  // namespace kiln::ir::arith
