// Matching SIMD folds (simd_fold.h).
#include "codegen/passes/simd_fold.h"

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// Whether every load in an expression reads contiguously along `var` (index stride 1) or not
// at all along it, and none reads `acc`: the loads a vectorized reduction may use.
class ContiguousLoads : public IRVisitor {
 public:
  ContiguousLoads(const ForNode* loop, const Buffer& acc) : loop_(loop), acc_(acc) {
    try {
      analyzer_.Bind(loop->loop_var, Range{loop->min, loop->extent});
    } catch (const Error&) {
      ok_ = false;  // a range the analyzer cannot take: no rewrite
    }
  }
  bool ok() const { return ok_; }
  void VisitExpr_(const BufferLoadNode* op) override {
    IRVisitor::VisitExpr_(op);
    const Var& k = loop_->loop_var;
    if (op->buffer->data.same_as(acc_->data) || op->indices.size() != 1 || !op->dtype.is_scalar()) {
      ok_ = false;
      return;
    }
    const Expr& index = op->indices[0];
    if (!UsesVar(index, k.get())) return;
    Expr next = Substitute(index, {{k.get(), k + MakeConst(k.dtype(), 1)}});
    try {
      if (!analyzer_.CanProveEqual(next - index, MakeConst(index.dtype(), 1))) ok_ = false;
    } catch (const Error&) {
      ok_ = false;
    }
  }

 private:
  const ForNode* loop_;
  Buffer acc_;
  arith::Analyzer analyzer_;
  bool ok_ = true;
};

bool ExtentPositive(const ForNode* loop,
                    const std::function<bool(const Expr&)>& provably_positive) {
  if (provably_positive) return provably_positive(loop->extent);
  auto extent = AsConstInt(loop->extent);
  return extent && *extent > 0;
}

}  // namespace

std::optional<SimdFold> MatchSimdFold(const ForNode* loop,
                                      const std::function<bool(const Expr&)>& provably_positive) {
  if (loop->for_kind != ForKind::kSerial) return std::nullopt;
  if (auto extent = AsConstInt(loop->extent); extent && *extent < kMinSimdFold) {
    return std::nullopt;
  }
  SimdFold fold;
  fold.store = loop->body.as<BufferStoreNode>();
  if (const auto* seq = loop->body.as<SeqStmtNode>(); seq && seq->seq.size() == 2) {
    const auto* branch = seq->seq[0].as<IfThenElseNode>();
    const auto* cond = branch ? branch->condition.as<EQNode>() : nullptr;
    if (cond && !branch->else_case.defined() && cond->a.same_as(loop->loop_var) &&
        StructuralEqual(cond->b, loop->min) && ExtentPositive(loop, provably_positive)) {
      fold.init = branch->then_case.as<BufferStoreNode>();
      fold.store = seq->seq[1].as<BufferStoreNode>();
    }
    if (fold.init == nullptr) return std::nullopt;
  }
  const BufferStoreNode* store = fold.store;
  if (store == nullptr || store->indices.size() != 1) return std::nullopt;
  const BufferStoreNode* init = fold.init;
  if (init != nullptr &&
      (!init->buffer->data.same_as(store->buffer->data) || init->indices.size() != 1 ||
       !StructuralEqual(init->indices[0], store->indices[0]) ||
       UsesVar(init->value, loop->loop_var.get()) ||
       UsesVar(init->value, store->buffer->data.get()))) {
    return std::nullopt;
  }
  DataType t = store->value.dtype();
  if (!t.is_scalar() || !t.is_float() || t.bits() < 32 || store->buffer->dtype != t ||
      UsesVar(store->indices[0], loop->loop_var.get())) {
    return std::nullopt;
  }
  auto is_acc = [&](const Expr& e) {
    const auto* load = e.as<BufferLoadNode>();
    return load != nullptr && load->buffer->data.same_as(store->buffer->data) &&
           load->indices.size() == 1 && StructuralEqual(load->indices[0], store->indices[0]);
  };
  const Expr& v = store->value;
  Expr a, b;
  if (const auto* add = v.as<AddNode>()) {
    a = add->a, b = add->b, fold.op = "+";
  } else if (const auto* mx = v.as<MaxNode>()) {
    a = mx->a, b = mx->b, fold.op = "max";
  } else if (const auto* mn = v.as<MinNode>()) {
    a = mn->a, b = mn->b, fold.op = "min";
  } else {
    return std::nullopt;
  }
  if (!is_acc(a)) std::swap(a, b);
  if (!is_acc(a)) return std::nullopt;
  ContiguousLoads loads(loop, store->buffer);
  loads.VisitExpr(b);
  if (!loads.ok()) return std::nullopt;
  fold.acc = a;
  fold.value = b;
  return fold;
}

bool IsVectorTreeFold(const ForNode* loop, const SimdFold& fold) {
  if (fold.op != "+") return false;
  auto extent = AsConstInt(loop->extent);
  const auto* load = fold.value.as<BufferLoadNode>();
  DataType t = fold.store->value.dtype();
  if (!extent || load == nullptr || load->dtype != t) return false;
  int64_t lanes = *extent;
  if (lanes < 4 || (lanes & (lanes - 1)) != 0 || lanes * t.bytes() > kMaxVectorTreeBytes) {
    return false;
  }
  return UsesVar(load->indices[0], loop->loop_var.get());
}

bool IsLongSimdFold(const ForNode* loop, const SimdFold& fold) {
  auto extent = AsConstInt(loop->extent);
  return extent && *extent * fold.store->value.dtype().bytes() >= kMinLongSimdFoldBytes;
}

}  // namespace kiln::codegen
