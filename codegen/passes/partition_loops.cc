// Loop partitioning on affine predicates.
#include "codegen/passes/partition_loops.h"

#include <optional>
#include <unordered_set>
#include <utility>

#include "codegen/passes/ir_utils.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_compare.h"
#include "ir/arith/int_set.h"
#include "ir/arith/simplify_stmt.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// An `if` below the loop being split, with the loops between them.
struct Candidate {
  const IfThenElseNode* branch;
  std::vector<const ForNode*> inner;
};

class CandidateCollector : public IRVisitor {
 public:
  std::vector<Candidate> found;
  void VisitStmt_(const ForNode* op) override {
    inner_.push_back(op);
    IRVisitor::VisitStmt_(op);
    inner_.pop_back();
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    if (!op->else_case.defined()) found.push_back({op, inner_});
    IRVisitor::VisitStmt_(op);
  }

 private:
  std::vector<const ForNode*> inner_;
};

// Replaces one `if` (by identity): with its then-branch under `condition` (undefined: the
// then-branch alone), or, when `taken` is false, with nothing.
class BranchRewriter : public IRMutator {
 public:
  BranchRewriter(const IfThenElseNode* target, bool taken, Expr condition = Expr())
      : target_(target), taken_(taken), condition_(std::move(condition)) {}
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    if (op != target_) return IRMutator::VisitStmt_(op);
    if (!taken_) return SeqStmt({});
    Stmt then_case = VisitStmt(op->then_case);
    return condition_.defined() ? IfThenElse(condition_, then_case) : then_case;
  }

 private:
  const IfThenElseNode* target_;
  bool taken_;
  Expr condition_;
};

// The conjuncts of a condition, each with its comparison as `d <= 0` when it is one over
// integers (undefined otherwise).
struct Conjunct {
  Expr condition;
  Expr d;
};

void Conjuncts(const Expr& cond, std::vector<Conjunct>* out) {
  if (const auto* a = cond.as<AndNode>()) {
    Conjuncts(a->a, out);
    Conjuncts(a->b, out);
    return;
  }
  Expr d;
  if (const auto* c = cond.as<LTNode>(); c && c->a.dtype().is_int()) {
    d = c->a - c->b + MakeConst(c->a.dtype(), 1);
  } else if (const auto* c = cond.as<LENode>(); c && c->a.dtype().is_int()) {
    d = c->a - c->b;
  } else if (const auto* c = cond.as<GTNode>(); c && c->a.dtype().is_int()) {
    d = c->b - c->a + MakeConst(c->a.dtype(), 1);
  } else if (const auto* c = cond.as<GENode>(); c && c->a.dtype().is_int()) {
    d = c->b - c->a;
  }
  out->push_back({cond, d});
}

// The conjunction of all of `conjuncts` but the one at `skip` (undefined when none is left).
Expr AllBut(const std::vector<Conjunct>& conjuncts, size_t skip) {
  Expr result;
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    if (i == skip) continue;
    result = result.defined() ? And(result, conjuncts[i].condition) : conjuncts[i].condition;
  }
  return result;
}

class Partitioner : public IRMutator {
 public:
  Stmt VisitStmt_(const ForNode* op) override {
    if ((op->for_kind == ForKind::kSerial || op->for_kind == ForKind::kParallel ||
         op->for_kind == ForKind::kVectorized) &&
        op->loop_var.dtype().is_int()) {
      // A budget of splits per function bounds the code they duplicate.
      if (splits_ < kMaxSplits) {
        if (auto split = Partition(op)) {
          ++splits_;
          return VisitStmt(*split);
        }
      }
    }
    analyzer_.Bind(op->loop_var, Range{op->min, op->extent});
    return IRMutator::VisitStmt_(op);
  }

 private:
  // The loop split at the first candidate that gives a proper split, or nullopt.
  std::optional<Stmt> Partition(const ForNode* loop) {
    CandidateCollector collector;
    collector.VisitStmt(loop->body);
    const Var& v = loop->loop_var;
    DataType t = v.dtype();
    Expr begin = loop->min, end = analyzer_.Simplify(loop->min + loop->extent);
    for (const Candidate& c : collector.found) {
      if (!UsesVar(c.branch->condition, v.get())) continue;
      // The part of a split that keeps this branch is never split on it again.
      if (tried_.count({c.branch, v.get()})) continue;
      arith::VarIntervals dom;
      for (const ForNode* f : c.inner) {
        dom[f->loop_var.get()] =
            arith::IntervalSet{f->min, analyzer_.Simplify(f->min + f->extent - 1)};
      }
      std::vector<Conjunct> conjuncts;
      Conjuncts(c.branch->condition, &conjuncts);
      for (size_t ci = 0; ci < conjuncts.size(); ++ci) {
        const Expr& d = conjuncts[ci].d;
        if (!d.defined() || !UsesVar(d, v.get())) continue;
        // d(v) <= 0 for every inner iteration when its largest value, a * v + b, is <= 0.
        arith::IntervalSet s = arith::EvalSet(d, dom, analyzer_);
        if (!s.max.defined()) continue;
        Expr at0 = analyzer_.Simplify(Substitute(s.max, {{v.get(), MakeConst(t, 0)}}));
        Expr at1 = analyzer_.Simplify(Substitute(s.max, {{v.get(), MakeConst(t, 1)}}));
        auto slope = AsConstInt(analyzer_.Simplify(at1 - at0));
        if (!slope || *slope == 0) continue;
        // The same check on v = 2 rejects what is not affine in v (v * v, min, ...).
        Expr at2 = analyzer_.Simplify(Substitute(s.max, {{v.get(), MakeConst(t, 2)}}));
        if (AsConstInt(analyzer_.Simplify(at2 - at1)) != slope) continue;
        Expr a = MakeConst(t, *slope);
        bool prefix = *slope > 0;
        // prefix: v <= floor(-b / a); suffix: v >= ceil(b / -a) = floor((b - a - 1) / -a).
        Expr bound = prefix ? FloorDiv(-at0, a) + MakeConst(t, 1) : FloorDiv(at0 - a - 1, -a);
        Expr cut = analyzer_.Simplify(Min(Max(bound, begin), end));
        // The part where the condition holds: [begin, cut) or [cut, end).
        Expr lo = prefix ? begin : cut, hi = prefix ? cut : end;
        if (analyzer_.CanProve(hi <= lo)) continue;  // nowhere
        // Where this conjunct holds, the branch keeps the others.
        Stmt holds =
            MakeLoop(loop, lo, hi,
                     BranchRewriter(c.branch, true, AllBut(conjuncts, ci)).VisitStmt(loop->body));
        // Fold the other conditions the narrowed range decides (copies of the same predicate
        // in sibling blocks).
        holds = arith::SimplifyStmt(holds, analyzer_);
        if (analyzer_.CanProve(lo <= begin) && analyzer_.CanProve(hi >= end)) return holds;
        tried_.insert({c.branch, v.get()});
        // When no inner loop moves d, d(v) <= 0 fails exactly past the cut: the branch is dead
        // in the rest.
        bool dead = arith::ExprDeepEqual(s.max, s.min);
        // A vectorized loop is only narrowed (its lanes past the cut would do nothing), never
        // duplicated: the narrowed loop runs as a plain loop without the branch.
        if (loop->for_kind == ForKind::kVectorized && !dead) continue;
        Stmt rest_body = dead ? BranchRewriter(c.branch, false).VisitStmt(loop->body) : loop->body;
        if (const auto* seq = rest_body.as<SeqStmtNode>(); seq && seq->seq.empty()) return holds;
        Stmt rest =
            prefix ? MakeLoop(loop, cut, end, rest_body) : MakeLoop(loop, begin, cut, rest_body);
        return prefix ? SeqStmt({holds, rest}) : SeqStmt({rest, holds});
      }
    }
    return std::nullopt;
  }

  Stmt MakeLoop(const ForNode* loop, const Expr& lo, const Expr& hi, const Stmt& body) {
    return For(loop->loop_var, lo, analyzer_.Simplify(hi - lo), loop->for_kind, body,
               loop->thread_tag, loop->annotations);
  }

  struct PairHash {
    size_t operator()(const std::pair<const IfThenElseNode*, const VarNode*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  std::unordered_set<std::pair<const IfThenElseNode*, const VarNode*>, PairHash> tried_;
  static constexpr int kMaxSplits = 16;
  int splits_ = 0;
  arith::Analyzer analyzer_;
};

}  // namespace

PrimFunc PartitionLoops(const PrimFunc& f) { return f.WithBody(Partitioner().VisitStmt(f->body)); }

}  // namespace kiln::codegen
