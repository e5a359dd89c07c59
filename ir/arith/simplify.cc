// The simplifier: canonical linear forms plus bound-driven rewrite rules.
#include "ir/arith/simplify.h"

#include "ir/arith/const_fold.h"
#include "ir/arith/expr_compare.h"
#include "ir/stmt.h"

namespace kiln::ir::arith {
namespace {

constexpr int kMaxDistributedTerms = 16;
constexpr int kMaxRecombineSteps = 32;

bool Finite(const ConstIntBound& b) {
  return b.min_value != ConstIntBound::kNegInf && b.max_value != ConstIntBound::kPosInf;
}

}  // namespace

Expr Simplifier::Simplify(const Expr& e) {
  if (!e.defined()) return e;
  value_cache_.clear();
  Expr once = Visit(e);
  // A rewrite can expose another (a product folded to a constant under a floordiv); a second
  // pass reaches the fixed point in practice and makes the result idempotent.
  value_cache_.clear();
  Expr twice = Visit(once);
  return ExprDeepEqual(once, twice) ? once : twice;
}

Expr Simplifier::Visit(const Expr& e) {
  switch (e.kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kFloatImm:
    case NodeKind::kStringImm:
      return e;
    case NodeKind::kVar:
      return VisitVar(Var(e.ptr()));
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul: {
      if (IsLinearDtype(e.dtype())) {
        // A whole sum is gathered into one form: a chain of n additions costs n term merges
        // rather than n conversions of ever longer partial sums.
        LinearForm form;
        form.dtype = e.dtype();
        CollectSum(e, 1, &form);
        return Finish(std::move(form));
      }
      Expr a, b;
      GetBinaryOperands(e, &a, &b);
      return VisitArith(e.kind(), Visit(a), Visit(b));
    }
    case NodeKind::kDiv:
    case NodeKind::kMod: {
      Expr a, b;
      GetBinaryOperands(e, &a, &b);
      return VisitTruncDiv(e.kind(), Visit(a), Visit(b));
    }
    case NodeKind::kFloorDiv: {
      const auto* op = e.as<FloorDivNode>();
      return SimplifyFloorDiv(Visit(op->a), Visit(op->b));
    }
    case NodeKind::kFloorMod: {
      const auto* op = e.as<FloorModNode>();
      return SimplifyFloorMod(Visit(op->a), Visit(op->b));
    }
    case NodeKind::kMin:
    case NodeKind::kMax: {
      Expr a, b;
      GetBinaryOperands(e, &a, &b);
      return SimplifyMinMax(e.kind(), Visit(a), Visit(b));
    }
    case NodeKind::kEQ:
    case NodeKind::kNE:
    case NodeKind::kLT:
    case NodeKind::kLE:
    case NodeKind::kGT:
    case NodeKind::kGE: {
      Expr a, b;
      GetBinaryOperands(e, &a, &b);
      return SimplifyCompare(e.kind(), Visit(a), Visit(b));
    }
    case NodeKind::kAnd:
    case NodeKind::kOr: {
      Expr a, b;
      GetBinaryOperands(e, &a, &b);
      return SimplifyLogic(e.kind(), Visit(a), Visit(b));
    }
    case NodeKind::kNot:
      return SimplifyNot(Visit(e.as<NotNode>()->a));
    case NodeKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      Expr c = Visit(op->condition);
      if (auto v = AsConstInt(c)) return Visit(*v ? op->true_value : op->false_value);
      // Each branch is simplified knowing which way the condition went.
      Expr t = VisitAssuming(op->true_value, c);
      Expr f = VisitAssuming(op->false_value, SimplifyNot(c));
      if (ExprDeepEqual(t, f)) return t;
      if (const auto* n = c.as<NotNode>()) return Select(n->a, f, t);
      return Select(c, t, f);
    }
    case NodeKind::kCast: {
      const auto* op = e.as<CastNode>();
      return FoldCast(op->dtype, Visit(op->value));
    }
    case NodeKind::kLet:
      return VisitLet(e.as<LetNode>());
    case NodeKind::kBufferLoad: {
      const auto* op = e.as<BufferLoadNode>();
      std::vector<Expr> indices;
      bool changed = false;
      for (const Expr& i : op->indices) {
        indices.push_back(Visit(i));
        changed |= !indices.back().same_as(i);
      }
      return changed ? BufferLoad(op->buffer, std::move(indices)) : e;
    }
    case NodeKind::kCall: {
      const auto* op = e.as<CallNode>();
      std::vector<Expr> args;
      bool changed = false;
      for (const Expr& a : op->args) {
        args.push_back(Visit(a));
        changed |= !args.back().same_as(a);
      }
      return changed ? Call(op->dtype, op->op, std::move(args)) : e;
    }
    case NodeKind::kRamp: {
      const auto* op = e.as<RampNode>();
      Expr base = Visit(op->base), stride = Visit(op->stride);
      if (base.same_as(op->base) && stride.same_as(op->stride)) return e;
      return Ramp(base, stride, static_cast<int>(op->lanes));
    }
    case NodeKind::kBroadcast: {
      const auto* op = e.as<BroadcastNode>();
      Expr value = Visit(op->value);
      return value.same_as(op->value) ? e : Broadcast(value, static_cast<int>(op->lanes));
    }
    default:
      return e;
  }
}

Expr Simplifier::VisitVar(const Var& var) {
  if (var.dtype().is_bool()) {
    for (const Expr& c : facts_.constraints) {
      if (c.same_as(var)) return BoolImm(true);
      if (const auto* n = c.as<NotNode>(); n && n->a.same_as(var)) return BoolImm(false);
    }
  }
  auto it = facts_.values.find(var.get());
  if (it == facts_.values.end() || in_progress_.count(var.get())) return var;
  if (auto c = value_cache_.find(var.get()); c != value_cache_.end()) return c->second;
  in_progress_.insert(var.get());
  Expr value = Visit(it->second.second);
  in_progress_.erase(var.get());
  value_cache_[var.get()] = value;
  return value;
}

Expr Simplifier::VisitAssuming(const Expr& e, const Expr& condition) {
  if (AsConstInt(condition)) return Visit(e);
  const size_t mark = facts_.constraints.size();
  std::vector<Expr> pending{condition};
  while (!pending.empty()) {
    Expr c = pending.back();
    pending.pop_back();
    if (const auto* op = c.as<AndNode>()) {
      pending.push_back(op->b);
      pending.push_back(op->a);
    } else {
      facts_.constraints.push_back(c);
    }
  }
  // Substituted values simplified under the assumption must not leak out of it.
  value_cache_.clear();
  Expr r = Visit(e);
  value_cache_.clear();
  facts_.constraints.resize(mark);
  return r;
}

Expr Simplifier::VisitLet(const LetNode* op) {
  Expr value = Visit(op->value);
  const VarNode* key = op->var.get();
  // Integer values are substituted (index arithmetic is cheap to repeat and simplifies
  // better inline); others stay bound.
  const bool substitute = value.dtype().is_int() || value.as<VarNode>() || value.as<IntImmNode>() ||
                          value.as<FloatImmNode>();
  if (substitute) {
    auto saved = facts_.values.find(key);
    std::optional<std::pair<Var, Expr>> old;
    if (saved != facts_.values.end()) old = saved->second;
    facts_.values[key] = {op->var, value};
    value_cache_.erase(key);
    Expr body = Visit(op->body);
    value_cache_.erase(key);
    if (old) {
      facts_.values[key] = *old;
    } else {
      facts_.values.erase(key);
    }
    return body;
  }
  Expr body = Visit(op->body);
  if (!UsesVar(body, key)) return body;
  if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<Expr>(op);
  return Let(op->var, value, body);
}

void Simplifier::CollectSum(const Expr& e, int64_t scale, LinearForm* out) {
  Expr a, b;
  switch (e.kind()) {
    case NodeKind::kAdd:
    case NodeKind::kSub:
      GetBinaryOperands(e, &a, &b);
      if (a.dtype() != out->dtype || b.dtype() != out->dtype) break;
      CollectSum(a, scale, out);
      CollectSum(b, e.kind() == NodeKind::kAdd ? scale : Negate(scale), out);
      return;
    case NodeKind::kMul:
      GetBinaryOperands(e, &a, &b);
      if (a.dtype() != out->dtype || b.dtype() != out->dtype) break;
      if (auto c = AsConstInt(b)) {
        CollectSum(
            a, static_cast<int64_t>(static_cast<uint64_t>(scale) * static_cast<uint64_t>(*c)), out);
        return;
      }
      if (auto c = AsConstInt(a)) {
        CollectSum(
            b, static_cast<int64_t>(static_cast<uint64_t>(scale) * static_cast<uint64_t>(*c)), out);
        return;
      }
      out->AddForm(ToLinear(VisitArith(NodeKind::kMul, Visit(a), Visit(b))), scale);
      return;
    default:
      break;
  }
  out->AddForm(ToLinear(Visit(e)), scale);
}

Expr Simplifier::VisitArith(NodeKind kind, const Expr& a, const Expr& b) {
  if (!IsLinearDtype(a.dtype()) || a.dtype() != b.dtype()) return FoldBinary(kind, a, b);
  LinearForm la = ToLinear(a), lb = ToLinear(b);
  if (kind == NodeKind::kAdd || kind == NodeKind::kSub) {
    la.AddForm(lb, kind == NodeKind::kAdd ? 1 : -1);
    return Finish(std::move(la));
  }
  LinearForm out;
  out.dtype = a.dtype();
  if (la.IsConst() || lb.IsConst()) {
    if (la.IsConst()) std::swap(la, lb);
    out.AddForm(la, lb.constant);
    return Finish(std::move(out));
  }
  if (la.terms.size() * lb.terms.size() > kMaxDistributedTerms) {
    out.AddTerm(MakeProduct(a, b), 1);
    return Finish(std::move(out));
  }
  for (const LinearTerm& x : la.terms) {
    for (const LinearTerm& y : lb.terms) {
      out.AddTerm(MakeProduct(x.atom, y.atom), static_cast<int64_t>(static_cast<uint64_t>(x.coef) *
                                                                    static_cast<uint64_t>(y.coef)));
    }
  }
  LinearForm ta = la, tb = lb;
  ta.constant = 0;
  tb.constant = 0;
  out.AddForm(ta, lb.constant);
  out.AddForm(tb, la.constant);
  out.AddConst(static_cast<int64_t>(static_cast<uint64_t>(la.constant) *
                                    static_cast<uint64_t>(lb.constant)));
  return Finish(std::move(out));
}

Expr Simplifier::Finish(LinearForm form) {
  for (int step = 0; step < kMaxRecombineSteps; ++step) {
    bool changed = false;
    for (size_t i = 0; i < form.terms.size() && !changed; ++i) {
      Expr x;
      if (RecombineSymbolic(&form, i) || RecombineModFromDiv(&form, i)) {
        changed = true;
        break;
      }
      auto c = PositiveDivisor(form.terms[i].atom, NodeKind::kFloorMod, &x);
      if (!c) continue;
      const int64_t k = form.terms[i].coef;
      const Expr mod_atom = form.terms[i].atom;
      const int64_t kc = static_cast<int64_t>(static_cast<uint64_t>(k) * static_cast<uint64_t>(*c));
      for (size_t j = 0; j < form.terms.size() && !changed; ++j) {
        if (j == i || form.terms[j].coef != WrapToType(form.dtype, kc)) continue;
        Expr y;
        auto d = PositiveDivisor(form.terms[j].atom, NodeKind::kFloorDiv, &y);
        if (!d || *d != *c) continue;
        const Expr div_atom = form.terms[j].atom;
        if (ExprDeepEqual(x, y)) {
          // floordiv(x, c) * c + floormod(x, c) == x
          form.AddTerm(div_atom, -kc);
          form.AddTerm(mod_atom, -k);
          form.AddForm(ToLinear(x), k);
          changed = true;
        } else if (Expr z; auto m = PositiveDivisor(y, NodeKind::kFloorMod, &z)) {
          // floordiv(floormod(x, m), c) * c + floormod(x, c) == floormod(x, m) when c | m
          if (*m % *c == 0 && ExprDeepEqual(z, x)) {
            form.AddTerm(div_atom, -kc);
            form.AddTerm(mod_atom, -k);
            form.AddTerm(y, k);
            changed = true;
          }
        }
      }
      if (changed) break;
      // x - floormod(x, c) == floordiv(x, c) * c
      LinearForm lx = ToLinear(x);
      const int64_t neg_k = Negate(k);
      bool all_present = !lx.terms.empty();
      for (const LinearTerm& t : lx.terms) {
        int64_t want = WrapToType(form.dtype, static_cast<int64_t>(static_cast<uint64_t>(t.coef) *
                                                                   static_cast<uint64_t>(neg_k)));
        if (form.CoefOf(t.atom) != want) all_present = false;
      }
      if (all_present) {
        form.AddForm(lx, k);
        form.AddTerm(mod_atom, -k);
        form.AddForm(ToLinear(SimplifyFloorDiv(x, MakeIntConst(x.dtype(), *c))), Negate(kc));
        changed = true;
      }
    }
    if (!changed) break;
  }
  return FromLinear(form);
}

// x - floordiv(x, c) * c == floormod(x, c): the mirror of the rule that turns
// x - floormod(x, c) into floordiv(x, c) * c, so both meet in the shorter form.
bool Simplifier::RecombineModFromDiv(LinearForm* form, size_t index) {
  const LinearTerm term = form->terms[index];
  Expr x;
  auto c = PositiveDivisor(term.atom, NodeKind::kFloorDiv, &x);
  if (!c || *c == 1 || term.coef % *c != 0) return false;
  const int64_t k = term.coef / *c;
  LinearForm lx = ToLinear(x);
  if (lx.terms.empty()) return false;
  for (const LinearTerm& t : lx.terms) {
    int64_t want = WrapToType(form->dtype, static_cast<int64_t>(static_cast<uint64_t>(t.coef) *
                                                                static_cast<uint64_t>(Negate(k))));
    if (form->CoefOf(t.atom) != want) return false;
  }
  form->AddForm(lx, k);
  form->AddTerm(term.atom, Negate(term.coef));
  form->AddForm(ToLinear(SimplifyFloorMod(x, MakeIntConst(x.dtype(), *c))), Negate(k));
  return true;
}

// floordiv(x, n) * n + floormod(x, n) == x for a non-constant divisor n: the product is an
// atom of its own, found by building it the way MakeProduct orders factors.
bool Simplifier::RecombineSymbolic(LinearForm* form, size_t index) {
  const LinearTerm term = form->terms[index];
  const auto* mod = term.atom.as<FloorModNode>();
  if (mod == nullptr || AsConstInt(mod->b)) return false;
  Expr product = MakeProduct(FloorDiv(mod->a, mod->b), mod->b);
  if (form->CoefOf(product) != term.coef) return false;
  form->AddTerm(product, Negate(term.coef));
  form->AddTerm(term.atom, Negate(term.coef));
  form->AddForm(ToLinear(mod->a), term.coef);
  return true;
}

Expr Simplifier::VisitTruncDiv(NodeKind kind, const Expr& a, const Expr& b) {
  if (IsLinearDtype(a.dtype()) && a.dtype() == b.dtype()) {
    auto c = AsConstInt(b);
    // Truncation and flooring agree on a non-negative numerator and positive divisor.
    if (!AsConstInt(a) && (!c || *c > 0) && Bound(b).min_value > 0 && Bound(a).min_value >= 0) {
      return kind == NodeKind::kDiv ? SimplifyFloorDiv(a, b) : SimplifyFloorMod(a, b);
    }
  }
  return FoldBinary(kind, a, b);
}

Expr Simplifier::SimplifyFloorDiv(const Expr& a, const Expr& b) {
  auto cb = AsConstInt(b);
  if (!IsLinearDtype(a.dtype()) || a.dtype() != b.dtype() || !cb || *cb <= 0 || AsConstInt(a)) {
    if (Expr r = SimplifySymbolicDivMod(NodeKind::kFloorDiv, a, b); r.defined()) return r;
    return FoldBinary(NodeKind::kFloorDiv, a, b);
  }
  const int64_t c = *cb;
  if (c == 1) return a;
  DataType t = a.dtype();
  LinearForm whole = ToLinear(a);
  LinearForm q, r;
  q.dtype = r.dtype = t;
  int64_t g = c;
  for (const LinearTerm& term : whole.terms) {
    if (term.coef % c == 0) {
      q.AddTerm(term.atom, term.coef / c);
    } else {
      r.AddTerm(term.atom, term.coef);
      g = Gcd(g, term.coef);
    }
  }
  q.constant = FloorDivInt(whole.constant, c);
  // floor((g*r' + s) / (g*c')) == floor(r' / c') for 0 <= s < g.
  const int64_t rest = FloorModInt(whole.constant, c);
  for (LinearTerm& term : r.terms) term.coef /= g;
  r.constant = rest / g;
  const int64_t c2 = c / g;
  Expr rexpr = FromLinear(r);
  ConstIntBound rb = Bound(rexpr);
  if (Finite(rb) && FloorDivInt(rb.min_value, c2) == FloorDivInt(rb.max_value, c2)) {
    q.AddConst(FloorDivInt(rb.min_value, c2));
    return Finish(std::move(q));
  }
  Expr inner;
  Expr x;
  const Expr* atom = SingleAtom(r);
  if (auto a2 = atom ? PositiveDivisor(*atom, NodeKind::kFloorDiv, &x) : std::nullopt;
      a2 && *a2 <= (int64_t{1} << 31) && c2 <= (int64_t{1} << 31)) {
    // floordiv(floordiv(x, a), b) == floordiv(x, a * b) for positive a, b.
    inner = SimplifyFloorDiv(x, MakeIntConst(t, *a2 * c2));
  } else {
    inner = c2 == 1 ? rexpr : FloorDiv(rexpr, MakeIntConst(t, c2));
  }
  q.AddForm(ToLinear(inner), 1);
  return Finish(std::move(q));
}

Expr Simplifier::SimplifyFloorMod(const Expr& a, const Expr& b) {
  auto cb = AsConstInt(b);
  if (!IsLinearDtype(a.dtype()) || a.dtype() != b.dtype() || !cb || *cb <= 0 || AsConstInt(a)) {
    if (Expr r = SimplifySymbolicDivMod(NodeKind::kFloorMod, a, b); r.defined()) return r;
    return FoldBinary(NodeKind::kFloorMod, a, b);
  }
  const int64_t c = *cb;
  DataType t = a.dtype();
  if (c == 1) return MakeIntConst(t, 0);
  LinearForm whole = ToLinear(a);
  LinearForm r;
  r.dtype = t;
  int64_t g = c;
  for (const LinearTerm& term : whole.terms) {
    if (term.coef % c != 0) {
      r.AddTerm(term.atom, term.coef);
      g = Gcd(g, term.coef);
    }
  }
  // floormod(g*r' + s, g*c') == g * floormod(r', c') + s for 0 <= s < g.
  const int64_t rest = FloorModInt(whole.constant, c);
  for (LinearTerm& term : r.terms) term.coef /= g;
  r.constant = rest / g;
  const int64_t s = rest % g;
  const int64_t c2 = c / g;
  LinearForm out;
  out.dtype = t;
  out.AddConst(s);
  Expr rexpr = FromLinear(r);
  ConstIntBound rb = Bound(rexpr);
  if (Finite(rb) && FloorDivInt(rb.min_value, c2) == FloorDivInt(rb.max_value, c2)) {
    out.AddForm(r, g);
    out.AddConst(-FloorDivInt(rb.min_value, c2) * c2 * g);
    return Finish(std::move(out));
  }
  Expr inner;
  Expr x;
  const Expr* atom = SingleAtom(r);
  if (auto m = atom ? PositiveDivisor(*atom, NodeKind::kFloorMod, &x) : std::nullopt;
      m && *m % c2 == 0) {
    // floormod(floormod(x, m), c) == floormod(x, c) when c | m.
    inner = SimplifyFloorMod(x, MakeIntConst(t, c2));
  } else {
    inner = FloorMod(rexpr, MakeIntConst(t, c2));
  }
  out.AddForm(ToLinear(inner), g);
  return Finish(std::move(out));
}

ConstIntBound Simplifier::DiffBound(const LinearForm& raw) {
  // Recombined first: x - floordiv(x, 8) * 8 is bounded only as floormod(x, 8).
  Expr diff = Finish(raw);
  const LinearForm d = ToLinear(diff);
  ConstIntBound b = Bound(diff);
  if (symbolic_depth_ > 1) return b;
  // Constant bounds lose the link between i in [0, n) and n; relaxing each such var to its
  // symbolic end keeps it: i - n <= (n - 1) - n = -1.
  LinearForm lo, hi;
  lo.dtype = hi.dtype = d.dtype;
  lo.constant = hi.constant = d.constant;
  bool symbolic = false;
  ++symbolic_depth_;
  for (const LinearTerm& t : d.terms) {
    auto it = t.atom.kind() == NodeKind::kVar
                  ? facts_.ranges.find(static_cast<const VarNode*>(t.atom.get()))
                  : facts_.ranges.end();
    if (it == facts_.ranges.end() || it->second.second.min.dtype() != d.dtype ||
        (AsConstInt(it->second.second.min) && AsConstInt(it->second.second.extent))) {
      lo.AddTerm(t.atom, t.coef);
      hi.AddTerm(t.atom, t.coef);
      continue;
    }
    symbolic = true;
    const Range& r = it->second.second;
    LinearForm first = ToLinear(Visit(r.min));
    LinearForm last = ToLinear(Visit(Sub(Add(r.min, r.extent), MakeIntConst(d.dtype, 1))));
    lo.AddForm(t.coef > 0 ? first : last, t.coef);
    hi.AddForm(t.coef > 0 ? last : first, t.coef);
  }
  if (symbolic) {
    b.min_value = std::max(b.min_value, Bound(FromLinear(lo)).min_value);
    b.max_value = std::min(b.max_value, Bound(FromLinear(hi)).max_value);
  }
  --symbolic_depth_;
  return b;
}

// min(x + c, y + c) == min(x, y) + c: the terms (and constant) both sides share come out.
bool Simplifier::SplitCommon(const Expr& a, const Expr& b, Expr* rest_a, Expr* rest_b,
                             LinearForm* common) {
  LinearForm la = ToLinear(a), lb = ToLinear(b);
  common->dtype = a.dtype();
  for (const LinearTerm& t : la.terms) {
    if (lb.CoefOf(t.atom) == t.coef) common->AddTerm(t.atom, t.coef);
  }
  if (la.constant == lb.constant) common->constant = la.constant;
  if (common->terms.empty() && common->constant == 0) return false;
  la.AddForm(*common, -1);
  lb.AddForm(*common, -1);
  *rest_a = Finish(la);
  *rest_b = Finish(lb);
  return true;
}

Expr Simplifier::SimplifyMinMax(NodeKind kind, const Expr& a, const Expr& b) {
  const bool is_min = kind == NodeKind::kMin;
  if ((AsConstInt(a) && AsConstInt(b)) || a.dtype() != b.dtype()) return FoldBinary(kind, a, b);
  if (ExprDeepEqual(a, b)) return a;
  if (!IsLinearDtype(a.dtype())) return FoldBinary(kind, a, b);
  LinearForm d = ToLinear(a);
  d.AddForm(ToLinear(b), -1);
  ConstIntBound db = DiffBound(d);
  if (db.max_value <= 0) return is_min ? a : b;
  if (db.min_value >= 0) return is_min ? b : a;
  if (!facts_.constraints.empty()) {
    if (auto le = AsConstInt(SimplifyCompare(NodeKind::kLE, a, b))) {
      return (*le != 0) == is_min ? a : b;
    }
  }
  if (AsConstInt(a)) return SimplifyMinMax(kind, b, a);
  if (auto cb = AsConstInt(b); cb && a.kind() == kind) {
    Expr x, y;
    GetBinaryOperands(a, &x, &y);
    if (AsConstInt(y)) return SimplifyMinMax(kind, x, FoldBinary(kind, y, b));
  }
  Expr rest_a, rest_b;
  LinearForm common;
  if (SplitCommon(a, b, &rest_a, &rest_b, &common)) {
    common.AddTerm(SimplifyMinMax(kind, rest_a, rest_b), 1);
    return Finish(std::move(common));
  }
  return MakeBinary(kind, a, b);
}

}  // namespace kiln::ir::arith
