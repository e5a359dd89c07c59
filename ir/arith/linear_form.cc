// LinearForm: reading and printing canonical sums.
#include "ir/arith/linear_form.h"

#include <algorithm>
#include <numeric>

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_compare.h"

namespace kiln::ir::arith {
namespace {

int64_t WrapMul(DataType t, int64_t a, int64_t b) {
  return WrapToType(t, static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
}
int64_t WrapAdd(DataType t, int64_t a, int64_t b) {
  return WrapToType(t, static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
}

uint64_t Magnitude(int64_t v) {
  return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

Expr TermExpr(const LinearTerm& t, int64_t coef) {
  if (coef == 1) return t.atom;
  return Mul(t.atom, MakeIntConst(t.atom.dtype(), coef));
}

void CollectFactors(const Expr& e, std::vector<Expr>* out) {
  if (const auto* m = e.as<MulNode>()) {
    if (!AsConstInt(m->a) && !AsConstInt(m->b)) {
      CollectFactors(m->a, out);
      CollectFactors(m->b, out);
      return;
    }
  }
  out->push_back(e);
}

}  // namespace

bool IsLinearDtype(DataType dtype) { return dtype.is_int() && dtype.is_scalar(); }

int64_t Gcd(int64_t a, int64_t b) {
  uint64_t x = Magnitude(a), y = Magnitude(b);
  uint64_t g = std::gcd(x, y);
  return g > static_cast<uint64_t>(INT64_MAX) ? 0 : static_cast<int64_t>(g);
}

void LinearForm::AddTerm(const Expr& atom, int64_t coef) {
  coef = WrapToType(dtype, coef);
  if (coef == 0) return;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (ExprDeepEqual(terms[i].atom, atom)) {
      terms[i].coef = WrapAdd(dtype, terms[i].coef, coef);
      if (terms[i].coef == 0) terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
  terms.push_back({atom, coef});
}

void LinearForm::AddConst(int64_t c) { constant = WrapAdd(dtype, constant, c); }

void LinearForm::AddForm(const LinearForm& other, int64_t scale) {
  for (const LinearTerm& t : other.terms) AddTerm(t.atom, WrapMul(dtype, t.coef, scale));
  AddConst(WrapMul(dtype, other.constant, scale));
}

int64_t LinearForm::CoefOf(const Expr& atom) const {
  for (const LinearTerm& t : terms) {
    if (ExprDeepEqual(t.atom, atom)) return t.coef;
  }
  return 0;
}

LinearForm ToLinear(const Expr& e) {
  LinearForm f;
  f.dtype = e.dtype();
  if (auto c = AsConstInt(e)) {
    f.constant = WrapToType(f.dtype, *c);
    return f;
  }
  if (!IsLinearDtype(e.dtype())) {
    f.AddTerm(e, 1);
    return f;
  }
  switch (e.kind()) {
    case NodeKind::kAdd: {
      const auto* op = e.as<AddNode>();
      f = ToLinear(op->a);
      f.AddForm(ToLinear(op->b), 1);
      return f;
    }
    case NodeKind::kSub: {
      const auto* op = e.as<SubNode>();
      f = ToLinear(op->a);
      f.AddForm(ToLinear(op->b), -1);
      return f;
    }
    case NodeKind::kMul: {
      const auto* op = e.as<MulNode>();
      auto ca = AsConstInt(op->a), cb = AsConstInt(op->b);
      if (cb) {
        f.AddForm(ToLinear(op->a), *cb);
        return f;
      }
      if (ca) {
        f.AddForm(ToLinear(op->b), *ca);
        return f;
      }
      break;
    }
    default:
      break;
  }
  f.AddTerm(e, 1);
  return f;
}

Expr FromLinear(const LinearForm& form) {
  DataType t = form.dtype;
  std::vector<size_t> order(form.terms.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    uint64_t mx = Magnitude(form.terms[x].coef), my = Magnitude(form.terms[y].coef);
    if (mx != my) return mx > my;
    return ExprOrder(form.terms[x].atom, form.terms[y].atom) < 0;
  });
  Expr acc;
  for (size_t i : order) {
    const LinearTerm& term = form.terms[i];
    if (term.coef <= 0) continue;
    Expr e = TermExpr(term, term.coef);
    acc = acc.defined() ? Add(acc, e) : e;
  }
  int64_t constant = form.constant;
  if (!acc.defined() && constant > 0) {
    acc = MakeIntConst(t, constant);
    constant = 0;
  }
  for (size_t i : order) {
    const LinearTerm& term = form.terms[i];
    if (term.coef > 0) continue;
    if (!acc.defined()) {
      acc = TermExpr(term, term.coef);
    } else {
      acc = Sub(
          acc, TermExpr(term,
                        WrapToType(t, static_cast<int64_t>(0 - static_cast<uint64_t>(term.coef)))));
    }
  }
  if (!acc.defined()) return MakeIntConst(t, constant);
  if (constant > 0) {
    acc = Add(acc, MakeIntConst(t, constant));
  } else if (constant < 0) {
    int64_t neg = WrapToType(t, static_cast<int64_t>(0 - static_cast<uint64_t>(constant)));
    acc = neg > 0 ? Sub(acc, MakeIntConst(t, neg)) : Add(acc, MakeIntConst(t, constant));
  }
  return acc;
}

Expr MakeProduct(const Expr& a, const Expr& b) {
  std::vector<Expr> factors;
  CollectFactors(a, &factors);
  CollectFactors(b, &factors);
  std::stable_sort(factors.begin(), factors.end(),
                   [](const Expr& x, const Expr& y) { return ExprOrder(x, y) < 0; });
  Expr acc = factors[0];
  for (size_t i = 1; i < factors.size(); ++i) acc = Mul(acc, factors[i]);
  return acc;
}

}  // namespace kiln::ir::arith
