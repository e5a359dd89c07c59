// InsertBarriers: a walk that summarizes each statement's tracked accesses before its first
// barrier, after its last, and in all, and puts a barrier where two summaries conflict.
#include "codegen/gpu/barriers.h"

#include "codegen/gpu/lower_gpu.h"
#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen::gpu {

using namespace ir;

namespace {

using VarSet = std::unordered_set<const VarNode*>;

struct Accesses {
  VarSet reads, writes;
  void Add(const Accesses& other) {
    reads.insert(other.reads.begin(), other.reads.end());
    writes.insert(other.writes.begin(), other.writes.end());
  }
  bool empty() const { return reads.empty() && writes.empty(); }
};

bool Intersects(const VarSet& a, const VarSet& b) {
  for (const VarNode* v : a) {
    if (b.count(v)) return true;
  }
  return false;
}

// Whether `later` must wait for `earlier`: a write then any access, or a read then a write.
bool Conflict(const Accesses& earlier, const Accesses& later) {
  return Intersects(earlier.writes, later.reads) || Intersects(earlier.writes, later.writes) ||
         Intersects(earlier.reads, later.writes);
}

struct Summary {
  Accesses all;
  Accesses head;  // before the first barrier
  Accesses tail;  // after the last barrier
  bool has_barrier = false;
};

class Syncer {
 public:
  Syncer(const VarSet& tracked, const std::array<Expr, 3>& block)
      : tracked_(tracked), block_(block) {}

  Stmt Visit(const Stmt& s, Summary* out) {
    switch (s.kind()) {
      case NodeKind::kSeqStmt:
        return VisitSeq(s.as<SeqStmtNode>()->seq, out);
      case NodeKind::kFor:
        return VisitFor(s.as<ForNode>(), s, out);
      case NodeKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (UsesThreadVar(op->condition)) return Leaf(s, out);
        Summary then_s, else_s;
        Stmt then_case = Visit(op->then_case, &then_s);
        Stmt else_case;
        if (op->else_case.defined()) else_case = Visit(op->else_case, &else_s);
        Accesses cond = Collect(Evaluate(op->condition));
        out->all = cond;
        out->all.Add(then_s.all);
        out->all.Add(else_s.all);
        out->has_barrier = then_s.has_barrier || else_s.has_barrier;
        out->head = cond;
        out->head.Add(then_s.has_barrier ? then_s.head : then_s.all);
        out->head.Add(else_s.has_barrier ? else_s.head : else_s.all);
        out->tail.Add(then_s.has_barrier ? then_s.tail : then_s.all);
        out->tail.Add(else_s.has_barrier ? else_s.tail : else_s.all);
        return IfThenElse(op->condition, then_case, else_case);
      }
      case NodeKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        if (UsesThreadVar(op->value)) thread_vars_.insert(op->var.get());
        Accesses value = Collect(Evaluate(op->value));
        Summary body_s;
        Stmt body = Visit(op->body, &body_s);
        Prepend(value, body_s, out);
        return LetStmt(op->var, op->value, body);
      }
      case NodeKind::kAllocate: {
        const auto* op = s.as<AllocateNode>();
        Stmt body = Visit(op->body, out);
        return Allocate(op->buffer, body);
      }
      case NodeKind::kDeclBuffer: {
        const auto* op = s.as<DeclBufferNode>();
        Stmt body = Visit(op->body, out);
        return DeclBufferStmt(op->buffer, body);
      }
      default:
        return Leaf(s, out);
    }
  }

 private:
  // `first` happens before `rest` with no barrier between.
  static void Prepend(const Accesses& first, const Summary& rest, Summary* out) {
    out->all = first;
    out->all.Add(rest.all);
    out->head = first;
    out->head.Add(rest.has_barrier ? rest.head : rest.all);
    out->tail = rest.has_barrier ? rest.tail : out->all;
    out->has_barrier = rest.has_barrier;
  }

  Stmt Leaf(const Stmt& s, Summary* out) {
    out->all = Collect(s);
    out->head = out->all;
    out->tail = out->all;
    out->has_barrier = IsBarrier(s);
    if (out->has_barrier) {
      out->head = {};
      out->tail = {};
    }
    return s;
  }

  Stmt VisitSeq(const std::vector<Stmt>& seq, Summary* out) {
    std::vector<Stmt> result;
    Accesses pending;  // since the last barrier at this level
    bool barrier_seen = false;
    for (const Stmt& child : seq) {
      Summary c;
      Stmt visited = Visit(child, &c);
      if (Conflict(pending, c.head)) {
        result.push_back(Barrier());
        pending = {};
        barrier_seen = true;
      }
      if (!barrier_seen) out->head.Add(c.has_barrier ? c.head : c.all);
      if (c.has_barrier) {
        barrier_seen = true;
        pending = c.tail;
      } else {
        pending.Add(c.all);
      }
      out->all.Add(c.all);
      result.push_back(visited);
    }
    out->has_barrier = barrier_seen;
    out->tail = pending;
    return SeqStmt(std::move(result));
  }

  Stmt VisitFor(const ForNode* op, const Stmt& s, Summary* out) {
    bool is_block = false;
    int axis = 0;
    bool bound =
        op->for_kind == ForKind::kThreadBinding && ParseThreadTag(op->thread_tag, &is_block, &axis);
    if (bound && !is_block) {
      // Threads that skip a guarded loop would never reach a barrier inside it.
      if (!SameExtent(op->extent, block_[axis])) return Leaf(s, out);
      thread_vars_.insert(op->loop_var.get());
    }
    Summary b;
    Stmt body = Visit(op->body, &b);
    Accesses bounds = Collect(SeqStmt({Evaluate(op->min), Evaluate(op->extent)}));
    // Bound loops run their iterations on different threads or blocks: nothing carries over.
    bool repeats = !IsConstInt(op->extent, 1) && !bound;
    if (repeats && b.has_barrier && Conflict(b.tail, b.head)) {
      // What the end of one iteration touches, the start of the next overwrites or reads.
      body = SeqStmt({Barrier(), body});
      b.head = {};
    }
    Prepend(bounds, b, out);
    if (body.same_as(op->body)) return s;
    return For(op->loop_var, op->min, op->extent, op->for_kind, body, op->thread_tag,
               op->annotations);
  }

  bool UsesThreadVar(const Expr& e) {
    bool uses = false;
    ForEachVar(e, [&](const Var& v) { uses |= thread_vars_.count(v.get()) > 0; });
    return uses;
  }

  Accesses Collect(const Stmt& s) {
    class Collector : public IRVisitor {
     public:
      Collector(const VarSet& tracked, Accesses& out) : tracked_(tracked), out_(out) {}
      void VisitExpr_(const BufferLoadNode* op) override {
        if (tracked_.count(op->buffer->data.get())) out_.reads.insert(op->buffer->data.get());
        IRVisitor::VisitExpr_(op);
      }
      void VisitStmt_(const BufferStoreNode* op) override {
        if (tracked_.count(op->buffer->data.get())) out_.writes.insert(op->buffer->data.get());
        IRVisitor::VisitStmt_(op);
      }

     private:
      const VarSet& tracked_;
      Accesses& out_;
    };
    Accesses a;
    Collector(tracked_, a).VisitStmt(s);
    return a;
  }

  const VarSet& tracked_;
  const std::array<Expr, 3>& block_;
  VarSet thread_vars_;
};

}  // namespace

Stmt Barrier() { return Evaluate(Call(DataType::Int(32), std::string(kStorageSync), {})); }

bool IsBarrier(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  if (e == nullptr) return false;
  const auto* call = e->value.as<CallNode>();
  return call != nullptr && call->op == kStorageSync;
}

Stmt InsertBarriers(const Stmt& body, const VarSet& tracked, const std::array<Expr, 3>& block) {
  if (tracked.empty()) return body;
  Summary summary;
  return Syncer(tracked, block).Visit(body, &summary);
}

}  // namespace kiln::codegen::gpu
