// Polynomial canonical form of symbolic dims (see dim.h).
#include "ir/relax/dim.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"

namespace kiln::ir::relax {

namespace {

// Structural identity with variables compared by object: floordiv(n, 3) built twice is one
// atom, while two different variables that happen to share a name are not.
bool Identical(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a.defined() || !b.defined() || a.kind() != b.kind() || a.dtype() != b.dtype()) {
    return false;
  }
  switch (a.kind()) {
    case NodeKind::kVar:
      return false;
    case NodeKind::kIntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case NodeKind::kFloatImm:
      return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
#define KILN_BINARY_IDENTICAL(name)                        \
  case NodeKind::k##name: {                                \
    const auto* x = a.as<name##Node>();                    \
    const auto* y = b.as<name##Node>();                    \
    return Identical(x->a, y->a) && Identical(x->b, y->b); \
  }
      KILN_BINARY_NODES(KILN_BINARY_IDENTICAL)
#undef KILN_BINARY_IDENTICAL
    case NodeKind::kCast:
      return Identical(a.as<CastNode>()->value, b.as<CastNode>()->value);
    default:
      return false;
  }
}

// Orders atoms by their text, so that printed dims do not depend on allocation order.
int CompareAtoms(const Expr& a, const Expr& b) {
  if (Identical(a, b)) return 0;
  std::string ka = DimToString(a), kb = DimToString(b);
  if (ka != kb) return ka < kb ? -1 : 1;
  return std::less<const void*>()(a.get(), b.get()) ? -1 : 1;
}

struct Term {
  std::vector<Expr> atoms;  // sorted with CompareAtoms; empty for the constant term
  int64_t coeff = 0;
};
using Poly = std::vector<Term>;  // sorted with CompareMonomials, no zero coefficients

// Higher degree first, then by atoms; the constant term last.
int CompareMonomials(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return a.size() > b.size() ? -1 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    int c = CompareAtoms(a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

Poly Normalize(Poly p) {
  for (Term& t : p) {
    std::sort(t.atoms.begin(), t.atoms.end(),
              [](const Expr& x, const Expr& y) { return CompareAtoms(x, y) < 0; });
  }
  std::stable_sort(p.begin(), p.end(), [](const Term& x, const Term& y) {
    return CompareMonomials(x.atoms, y.atoms) < 0;
  });
  Poly out;
  for (Term& t : p) {
    if (!out.empty() && CompareMonomials(out.back().atoms, t.atoms) == 0) {
      out.back().coeff += t.coeff;
    } else {
      out.push_back(std::move(t));
    }
  }
  std::erase_if(out, [](const Term& t) { return t.coeff == 0; });
  return out;
}

Poly Constant(int64_t v) { return v == 0 ? Poly{} : Poly{Term{{}, v}}; }
// Atoms are int64, so that rebuilding a polynomial never mixes integer widths.
Poly AtomPoly(Expr e) {
  if (e.dtype() != DataType::Int(64)) e = Cast(DataType::Int(64), e);
  return Poly{Term{{std::move(e)}, 1}};
}

std::optional<int64_t> AsConstant(const Poly& p) {
  if (p.empty()) return 0;
  if (p.size() == 1 && p[0].atoms.empty()) return p[0].coeff;
  return std::nullopt;
}

Poly AddPoly(const Poly& a, const Poly& b, int64_t b_sign = 1) {
  Poly r = a;
  for (Term t : b) {
    t.coeff *= b_sign;
    r.push_back(std::move(t));
  }
  return Normalize(std::move(r));
}

Expr ToExpr(const Poly& p);

size_t NodeCount(const Expr& e) {
  struct Counter : IRVisitor {
    size_t nodes = 0;
    void VisitExpr(const Expr& x) override {
      ++nodes;
      IRVisitor::VisitExpr(x);
    }
  } counter;
  counter.VisitExpr(e);
  return counter.nodes;
}

// Nodes in the expression trees of a term's atoms, plus one for the term.
size_t TermSize(const Term& t) {
  size_t nodes = 1;
  for (const Expr& atom : t.atoms) nodes += NodeCount(atom);
  return nodes;
}

// A product of sums grows exponentially when expanded ((a + b) * (c + d) * ... has 2^k terms),
// and shapes come from user text: a product whose expansion would exceed this many nodes
// stays an opaque atom, so an adversarial shape cannot stall shape inference. Real models
// stay far below it.
constexpr size_t kMaxProductNodes = 1024;

Poly MulPoly(const Poly& a, const Poly& b) {
  size_t size_a = 0, size_b = 0;
  for (const Term& t : a) size_a += TermSize(t);
  for (const Term& t : b) size_b += TermSize(t);
  if (size_a * b.size() + size_b * a.size() > kMaxProductNodes) {
    return AtomPoly(Mul(ToExpr(a), ToExpr(b)));
  }
  Poly r;
  for (const Term& x : a) {
    for (const Term& y : b) {
      Term t{x.atoms, x.coeff * y.coeff};
      t.atoms.insert(t.atoms.end(), y.atoms.begin(), y.atoms.end());
      r.push_back(std::move(t));
    }
  }
  return Normalize(std::move(r));
}

class ShapeVarCollector : public IRVisitor {
 public:
  using IRVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { vars.push_back(GetRef<Var>(op)); }
  std::vector<Var> vars;
};

// Whether the arith analyzer proves `condition` knowing that every shape variable is a size
// (non-negative): that settles what the polynomial form leaves open, such as n + 1 != 0 or
// min(n, n * 2) == n.
bool AnalyzerProves([[maybe_unused]] const Expr& condition) {
  // The analyzer's cost grows quickly with the expression; a condition this large (only
  // adversarial shapes make one) is left unproven, which every caller treats soundly.
  constexpr size_t kMaxAnalyzerNodes = 256;
  if (NodeCount(condition) > kMaxAnalyzerNodes) return false;
  ShapeVarCollector collector;
  collector.VisitExpr(condition);
  arith::Analyzer analyzer;
  for (const Var& v : collector.vars) {
    if (v.dtype().is_int()) {
      analyzer.Bind(v, RangeFromMinExtent(IntImm(v.dtype(), 0),
                                          IntImm(v.dtype(), int64_t{1} << (v.dtype().bits() - 2))));
    }
  }
  try {
    return analyzer.CanProve(condition);
  } catch (const Error&) {
    return false;  // a form the analyzer does not handle proves nothing
  }
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) { return a - FloorDivInt(a, b) * b; }

// The quotient of a term by a monomial term, when the atoms and the coefficient divide.
std::optional<Term> DivideTerm(const Term& t, const Term& d) {
  if (d.coeff == 0 || t.coeff % d.coeff != 0) return std::nullopt;
  std::vector<Expr> rest = t.atoms;
  for (const Expr& atom : d.atoms) {
    auto it = std::find_if(rest.begin(), rest.end(),
                           [&](const Expr& x) { return CompareAtoms(x, atom) == 0; });
    if (it == rest.end()) return std::nullopt;
    rest.erase(it);
  }
  return Term{std::move(rest), t.coeff / d.coeff};
}

std::optional<Poly> DividePolyExact(const Poly& a, const Poly& b) {
  if (b.size() != 1) return std::nullopt;
  Poly r;
  for (const Term& t : a) {
    auto q = DivideTerm(t, b[0]);
    if (!q) return std::nullopt;
    r.push_back(std::move(*q));
  }
  return Normalize(std::move(r));
}

// The product of a term's atoms times `coeff`.
Expr TermTimes(const Term& t, int64_t coeff) {
  if (t.atoms.empty()) return DimConst(coeff);
  Expr e = t.atoms[0];
  for (size_t i = 1; i < t.atoms.size(); ++i) e = Mul(e, t.atoms[i]);
  if (coeff != 1) e = Mul(e, DimConst(coeff));
  return e;
}

Expr ToExpr(const Poly& p) {
  if (p.empty()) return DimConst(0);
  // Lead with a positive term when there is one: n - m rather than m * -1 + n.
  Poly order = p;
  auto lead = std::find_if(order.begin(), order.end(), [](const Term& t) { return t.coeff > 0; });
  if (lead != order.end()) std::rotate(order.begin(), lead, lead + 1);
  Expr e;
  for (const Term& t : order) {
    // A negative term is subtracted by its magnitude, but INT64_MIN (ONNX's "from the very
    // end" in a Slice) has none in int64: it is added with its sign.
    bool subtract = t.coeff < 0 && t.coeff != std::numeric_limits<int64_t>::min();
    if (!e.defined()) {
      e = t.coeff < 0 && !t.atoms.empty() && subtract ? Mul(TermTimes(t, -t.coeff), DimConst(-1))
                                                      : TermTimes(t, t.coeff);
    } else {
      e = subtract ? Sub(e, TermTimes(t, -t.coeff)) : Add(e, TermTimes(t, t.coeff));
    }
  }
  return e;
}

Poly FromExpr(const Expr& e);

template <typename NodeT>
std::pair<Poly, Poly> Operands(const Expr& e) {
  const auto* n = e.as<NodeT>();
  return {FromExpr(n->a), FromExpr(n->b)};
}

Poly FromDivision(const Expr& e, bool floor) {
  auto [a, b] = floor ? Operands<FloorDivNode>(e) : Operands<DivNode>(e);
  auto ca = AsConstant(a), cb = AsConstant(b);
  if (cb && *cb != 0) {
    if (ca) return Constant(floor ? FloorDivInt(*ca, *cb) : *ca / *cb);
    if (*cb == 1) return a;
  }
  if (auto q = DividePolyExact(a, b)) return *q;
  if (floor && cb && *cb > 0) {
    // floordiv(c * q + r, c) == q + floordiv(r, c) for every integer q.
    Poly quotient, rest;
    for (const Term& t : a) {
      if (t.coeff % *cb == 0) {
        quotient.push_back(Term{t.atoms, t.coeff / *cb});
      } else {
        rest.push_back(t);
      }
    }
    if (!quotient.empty()) {
      Poly r = Normalize(rest);
      auto cr = AsConstant(r);
      Poly tail = cr ? Constant(FloorDivInt(*cr, *cb)) : AtomPoly(FloorDiv(ToExpr(r), ToExpr(b)));
      return AddPoly(Normalize(quotient), tail);
    }
  }
  return AtomPoly(floor ? FloorDiv(ToExpr(a), ToExpr(b)) : Div(ToExpr(a), ToExpr(b)));
}

Poly FromModulo(const Expr& e, bool floor) {
  auto [a, b] = floor ? Operands<FloorModNode>(e) : Operands<ModNode>(e);
  auto ca = AsConstant(a), cb = AsConstant(b);
  if (cb && *cb != 0) {
    if (ca) return Constant(floor ? FloorModInt(*ca, *cb) : *ca % *cb);
    if (*cb == 1 || *cb == -1) return {};
  }
  if (DividePolyExact(a, b)) return {};
  if (floor && cb && *cb > 0) {
    Poly rest;
    for (const Term& t : a) {
      if (t.coeff % *cb != 0) rest.push_back(t);
    }
    Poly r = Normalize(rest);
    if (auto cr = AsConstant(r)) return Constant(FloorModInt(*cr, *cb));
    return AtomPoly(FloorMod(ToExpr(r), ToExpr(b)));
  }
  return AtomPoly(floor ? FloorMod(ToExpr(a), ToExpr(b)) : Mod(ToExpr(a), ToExpr(b)));
}

Poly FromMinMax(const Expr& e, bool is_min) {
  auto [a, b] = is_min ? Operands<MinNode>(e) : Operands<MaxNode>(e);
  std::optional<bool> a_smaller;
  if (auto d = AsConstant(AddPoly(a, b, -1))) {
    a_smaller = *d <= 0;
  } else {
    Expr ea = ToExpr(a), eb = ToExpr(b);
    if (AnalyzerProves(LE(ea, eb))) {
      a_smaller = true;
    } else if (AnalyzerProves(GE(ea, eb))) {
      a_smaller = false;
    }
  }
  if (a_smaller) return is_min == *a_smaller ? a : b;
  return AtomPoly(is_min ? Min(ToExpr(a), ToExpr(b)) : Max(ToExpr(a), ToExpr(b)));
}

Poly FromExpr(const Expr& e) {
  switch (e.kind()) {
    case NodeKind::kIntImm:
      return Constant(e.as<IntImmNode>()->value);
    case NodeKind::kCast: {
      const Expr& value = e.as<CastNode>()->value;
      if (value.dtype().is_int() || value.dtype().is_uint()) return FromExpr(value);
      return AtomPoly(e);
    }
    case NodeKind::kAdd: {
      auto [a, b] = Operands<AddNode>(e);
      return AddPoly(a, b);
    }
    case NodeKind::kSub: {
      auto [a, b] = Operands<SubNode>(e);
      return AddPoly(a, b, -1);
    }
    case NodeKind::kMul: {
      auto [a, b] = Operands<MulNode>(e);
      return MulPoly(a, b);
    }
    case NodeKind::kFloorDiv:
      return FromDivision(e, true);
    case NodeKind::kDiv:
      return FromDivision(e, false);
    case NodeKind::kFloorMod:
      return FromModulo(e, true);
    case NodeKind::kMod:
      return FromModulo(e, false);
    case NodeKind::kMin:
      return FromMinMax(e, true);
    case NodeKind::kMax:
      return FromMinMax(e, false);
    default:
      return AtomPoly(e);
  }
}

// Operator precedence for printing: higher binds tighter.
int Precedence(const Expr& e) {
  switch (e.kind()) {
    case NodeKind::kOr:
      return 1;
    case NodeKind::kAnd:
      return 2;
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE:
      return 3;
    case NodeKind::kAdd:
    case NodeKind::kSub:
      return 4;
    case NodeKind::kMul:
    case NodeKind::kFloorDiv:
    case NodeKind::kFloorMod:
      return 5;
    case NodeKind::kIntImm:
      return e.as<IntImmNode>()->value < 0 ? 6 : 7;
    default:
      return 7;
  }
}

std::string Print(const Expr& e);

template <typename NodeT>
std::string Infix(const Expr& e, const char* op) {
  const auto* n = e.as<NodeT>();
  int p = Precedence(e);
  std::string a = Print(n->a), b = Print(n->b);
  if (Precedence(n->a) < p) a = "(" + a + ")";
  if (Precedence(n->b) <= p) b = "(" + b + ")";
  return a + " " + op + " " + b;
}

template <typename NodeT>
std::string Prefix(const Expr& e, const char* fn) {
  const auto* n = e.as<NodeT>();
  return std::string(fn) + "(" + Print(n->a) + ", " + Print(n->b) + ")";
}

std::string Print(const Expr& e) {
  if (!e.defined()) return "?";
  switch (e.kind()) {
    case NodeKind::kVar:
      return e.as<VarNode>()->name;
    case NodeKind::kIntImm:
      if (e.dtype().is_bool()) return e.as<IntImmNode>()->value ? "True" : "False";
      return std::to_string(e.as<IntImmNode>()->value);
    case NodeKind::kFloatImm:
      return std::to_string(e.as<FloatImmNode>()->value);
    case NodeKind::kStringImm:
      return "\"" + e.as<StringImmNode>()->value + "\"";
    case NodeKind::kAdd:
      return Infix<AddNode>(e, "+");
    case NodeKind::kSub:
      return Infix<SubNode>(e, "-");
    case NodeKind::kMul:
      return Infix<MulNode>(e, "*");
    case NodeKind::kFloorDiv:
      return Infix<FloorDivNode>(e, "//");
    case NodeKind::kFloorMod:
      return Infix<FloorModNode>(e, "%");
    case NodeKind::kDiv:
      return Prefix<DivNode>(e, "T.truncdiv");
    case NodeKind::kMod:
      return Prefix<ModNode>(e, "T.truncmod");
    case NodeKind::kMin:
      return Prefix<MinNode>(e, "T.min");
    case NodeKind::kMax:
      return Prefix<MaxNode>(e, "T.max");
    case NodeKind::kEQ:
      return Infix<EQNode>(e, "==");
    case NodeKind::kNE:
      return Infix<NENode>(e, "!=");
    case NodeKind::kLT:
      return Infix<LTNode>(e, "<");
    case NodeKind::kLE:
      return Infix<LENode>(e, "<=");
    case NodeKind::kGT:
      return Infix<GTNode>(e, ">");
    case NodeKind::kGE:
      return Infix<GENode>(e, ">=");
    case NodeKind::kAnd:
      return Infix<AndNode>(e, "and");
    case NodeKind::kOr:
      return Infix<OrNode>(e, "or");
    case NodeKind::kNot:
      return "not " + Print(e.as<NotNode>()->a);
    case NodeKind::kCast:
      return "T.Cast(\"" + e.dtype().ToString() + "\", " + Print(e.as<CastNode>()->value) + ")";
    case NodeKind::kSelect: {
      const auto* s = e.as<SelectNode>();
      return "T.Select(" + Print(s->condition) + ", " + Print(s->true_value) + ", " +
             Print(s->false_value) + ")";
    }
    case NodeKind::kCall: {
      const auto* c = e.as<CallNode>();
      std::string s = "T." + c->op + "(";
      for (size_t i = 0; i < c->args.size(); ++i) s += (i ? ", " : "") + Print(c->args[i]);
      return s + ")";
    }
    default:
      return std::string("<") + NodeKindName(e.kind()) + ">";
  }
}

}  // namespace

Expr DimConst(int64_t value) { return IntImm(DataType::Int(64), value); }

Var SymbolicDim(std::string name) { return Var(std::move(name), DataType::Int(64)); }

Expr ToDim(const Expr& e) {
  KILN_CHECK(e.defined() && e.dtype().is_integral() && e.dtype().is_scalar(), ErrorKind::kType,
             "shape dim must be a scalar integer expression, got " +
                 (e.defined() ? e.dtype().ToString() + " " + Print(e) : std::string("nothing")));
  if (e.dtype() == DataType::Int(64)) return e;
  if (auto v = AsConstInt(e)) return DimConst(*v);
  return Cast(DataType::Int(64), e);
}

Expr SimplifyDim(const Expr& e) { return ToExpr(FromExpr(ToDim(e))); }

bool ProveDimEqual(const Expr& a, const Expr& b) {
  Poly diff = AddPoly(FromExpr(ToDim(a)), FromExpr(ToDim(b)), -1);
  if (diff.empty()) return true;
  if (AsConstant(diff)) return false;
  return AnalyzerProves(EQ(ToExpr(diff), DimConst(0)));
}

bool ProveDimNotEqual(const Expr& a, const Expr& b) {
  Poly diff = AddPoly(FromExpr(ToDim(a)), FromExpr(ToDim(b)), -1);
  if (auto d = AsConstant(diff)) return *d != 0;
  return AnalyzerProves(NE(ToExpr(diff), DimConst(0)));
}

std::optional<Expr> DivideDimExact(const Expr& a, const Expr& b) {
  Poly pa = FromExpr(ToDim(a)), pb = FromExpr(ToDim(b));
  if (pa.empty()) return DimConst(0);
  auto q = DividePolyExact(pa, pb);
  if (!q) return std::nullopt;
  return ToExpr(*q);
}

Expr DimProduct(const std::vector<Expr>& dims) {
  Poly p = Constant(1);
  for (const Expr& d : dims) p = MulPoly(p, FromExpr(ToDim(d)));
  return ToExpr(p);
}

std::string DimToString(const Expr& e) { return Print(e); }

std::string DimsToString(const std::vector<Expr>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + Print(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

}  // namespace kiln::ir::relax
