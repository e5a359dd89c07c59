// Loop vectorization into Ramp/Broadcast vector expressions, with a serial fallback.
#include "codegen/passes/vectorize_loops.h"

#include <optional>

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// Widens expressions and stores of one loop body over its variable; `failed` says the body
// is not vectorizable. Expressions that do not use the variable stay scalar.
class BodyVectorizer {
 public:
  BodyVectorizer(const ForNode* loop, int lanes, const VectorizeOptions& options)
      : loop_(loop), lanes_(lanes), options_(options) {}

  std::optional<Stmt> Run(const Stmt& body) {
    Stmt result = VecStmt(body);
    if (failed_) return std::nullopt;
    return result;
  }

 private:
  Expr Fail() {
    failed_ = true;
    return IntImm(DataType::Int(32), 0);
  }

  bool VectorTypeOk(DataType t) const {
    return !(t.is_bool() || (t.is_float() && t.bits() == 16) || t.is_handle());
  }

  Expr Widen(const Expr& e) const { return e.dtype().is_vector() ? e : Broadcast(e, lanes_); }

  Stmt VecStmt(const Stmt& s) {
    if (failed_) return s;
    if (const auto* seq = s.as<SeqStmtNode>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : seq->seq) out.push_back(VecStmt(x));
      return SeqStmt(std::move(out));
    }
    // A condition that is the same for every lane (a reduction's init guard) stays scalar.
    if (const auto* branch = s.as<IfThenElseNode>();
        branch && !UsesVar(branch->condition, loop_->loop_var.get())) {
      Stmt then_case = VecStmt(branch->then_case);
      Stmt else_case = branch->else_case.defined() ? VecStmt(branch->else_case) : Stmt();
      return IfThenElse(branch->condition, then_case, else_case);
    }
    const auto* store = s.as<BufferStoreNode>();
    if (store == nullptr || store->indices.size() != 1 || !VectorTypeOk(store->buffer->dtype)) {
      Fail();
      return s;
    }
    Expr index = Vec(store->indices[0]);
    Expr value = Vec(store->value);
    if (failed_ || index.as<RampNode>() == nullptr) {
      Fail();
      return s;
    }
    return BufferStore(store->buffer, Widen(value), {index});
  }

  Expr Vec(const Expr& e) {
    if (failed_) return e;
    if (!UsesVar(e, loop_->loop_var.get())) return e;
    switch (e.kind()) {
      case NodeKind::kVar:
        return Ramp(CastTo(e.dtype(), loop_->min), IntImm(e.dtype(), 1), lanes_);
      case NodeKind::kAdd:
      case NodeKind::kSub:
        return AddSub(e);
      case NodeKind::kMul:
        return MulVec(e.as<MulNode>());
      case NodeKind::kDiv:
        if (!e.dtype().is_float()) return Fail();
        return Binary(e.as<DivNode>(), Div);
      case NodeKind::kMin:
        return Binary(e.as<MinNode>(), Min);
      case NodeKind::kMax:
        return Binary(e.as<MaxNode>(), Max);
      case NodeKind::kCast:
        return CastVec(e.as<CastNode>());
      case NodeKind::kBufferLoad:
        return LoadVec(e.as<BufferLoadNode>());
      case NodeKind::kCall:
        return CallVec(e.as<CallNode>());
      default:
        return Fail();
    }
  }

  template <typename NodeT>
  Expr Binary(const NodeT* op, Expr (*make)(Expr, Expr)) {
    Expr a = Vec(op->a);
    Expr b = Vec(op->b);
    if (failed_ || !VectorTypeOk(op->dtype)) return Fail();
    return make(Widen(a), Widen(b));
  }

  Expr AddSub(const Expr& e) {
    bool is_add = e.kind() == NodeKind::kAdd;
    Expr a = Vec(is_add ? e.as<AddNode>()->a : e.as<SubNode>()->a);
    Expr b = Vec(is_add ? e.as<AddNode>()->b : e.as<SubNode>()->b);
    if (failed_) return e;
    auto combine = [&](const Expr& x, const Expr& y) { return is_add ? x + y : x - y; };
    const auto* ra = a.as<RampNode>();
    const auto* rb = b.as<RampNode>();
    if (ra && rb) return Ramp(combine(ra->base, rb->base), combine(ra->stride, rb->stride), lanes_);
    if (ra && b.dtype().is_scalar()) return Ramp(combine(ra->base, b), ra->stride, lanes_);
    if (rb && a.dtype().is_scalar()) {
      return Ramp(combine(a, rb->base), is_add ? rb->stride : -rb->stride, lanes_);
    }
    if (!VectorTypeOk(e.dtype())) return Fail();
    return combine(Widen(a), Widen(b));
  }

  Expr MulVec(const MulNode* op) {
    Expr a = Vec(op->a);
    Expr b = Vec(op->b);
    if (failed_) return GetRef<Expr>(op);
    const auto* ra = a.as<RampNode>();
    const auto* rb = b.as<RampNode>();
    if (ra && b.dtype().is_scalar()) return Ramp(ra->base * b, ra->stride * b, lanes_);
    if (rb && a.dtype().is_scalar()) return Ramp(a * rb->base, a * rb->stride, lanes_);
    if (!VectorTypeOk(op->dtype)) return Fail();
    return Widen(a) * Widen(b);
  }

  Expr CastVec(const CastNode* op) {
    Expr v = Vec(op->value);
    if (failed_) return GetRef<Expr>(op);
    DataType to = op->dtype;
    if (const auto* r = v.as<RampNode>(); r && to.is_integral() && v.dtype().is_integral()) {
      return Ramp(Cast(to, r->base), Cast(to, r->stride), lanes_);
    }
    if (!VectorTypeOk(to) || !VectorTypeOk(v.dtype())) return Fail();
    return Cast(to.WithLanes(lanes_), Widen(v));
  }

  Expr LoadVec(const BufferLoadNode* op) {
    if (op->indices.size() != 1) return Fail();
    Expr index = Vec(op->indices[0]);
    if (failed_) return GetRef<Expr>(op);
    if (index.dtype().is_scalar()) return BufferLoad(op->buffer, {index});
    if (index.as<RampNode>() == nullptr || !VectorTypeOk(op->buffer->dtype)) return Fail();
    return BufferLoad(op->buffer, {index});
  }

  Expr CallVec(const CallNode* op) {
    if (!options_.vectorize_calls || op->op == kIfThenElse || !LookupIntrinsic(op->op) ||
        !VectorTypeOk(op->dtype)) {
      return Fail();
    }
    std::vector<Expr> args;
    for (const Expr& a : op->args) {
      Expr v = Vec(a);
      if (failed_ || !VectorTypeOk(a.dtype())) return Fail();
      args.push_back(Widen(v));
    }
    return Call(op->dtype.WithLanes(lanes_), op->op, std::move(args));
  }

  const ForNode* loop_;
  int lanes_;
  const VectorizeOptions& options_;
  bool failed_ = false;
};

class LoopVectorizer : public IRMutator {
 public:
  explicit LoopVectorizer(const VectorizeOptions& options) : options_(options) {}

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* loop = s.as<ForNode>();
    if (loop->for_kind != ForKind::kVectorized) return s;
    auto extent = AsConstInt(loop->extent);
    if (extent && *extent >= 2 && *extent <= options_.max_lanes && (*extent & (*extent - 1)) == 0) {
      if (auto body = BodyVectorizer(loop, static_cast<int>(*extent), options_).Run(loop->body)) {
        return *body;
      }
    }
    Annotations annotations = loop->annotations;
    annotations[kPragmaIvdep] = IntImm(DataType::Int(32), 1);
    return For(loop->loop_var, loop->min, loop->extent, ForKind::kSerial, loop->body,
               loop->thread_tag, annotations);
  }

 private:
  const VectorizeOptions& options_;
};

}  // namespace

PrimFunc VectorizeLoops(const PrimFunc& f, const VectorizeOptions& options) {
  return f.WithBody(LoopVectorizer(options).VisitStmt(f->body));
}

}  // namespace kiln::codegen
