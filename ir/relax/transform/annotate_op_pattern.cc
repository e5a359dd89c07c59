// The block-by-block op pattern analysis of PrimFuncs (TVM's PatternKindAnalyzer).
#include "ir/relax/transform/annotate_op_pattern.h"

#include <algorithm>
#include <unordered_set>

#include "ir/arith/expr_compare.h"
#include "ir/functor.h"

namespace kiln::ir::relax::transform {

namespace {

using VarSet = std::unordered_set<const ir::VarNode*>;

OpPattern Combine(OpPattern a, OpPattern b) { return std::max(a, b); }

bool SameIndices(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!arith::ExprDeepEqual(a[i], b[i])) return false;
  }
  return true;
}

// The variables of `e` that are in `among`.
class VarUses : public IRVisitor {
 public:
  explicit VarUses(const VarSet& among) : among_(among) {}
  using IRVisitor::VisitExpr_;
  void VisitExpr_(const ir::VarNode* op) override {
    if (among_.count(op) != 0) used.insert(op);
  }
  VarSet used;

 private:
  const VarSet& among_;
};

VarSet UsedAmong(const PrimExpr& e, const VarSet& among) {
  VarUses uses(among);
  uses.VisitExpr(e);
  return uses.used;
}

// Load indices appear in the store's indices in order (unit dims indexed by 0 skipped).
bool IsBroadcast(const ir::BufferStoreNode& store, const ir::BufferLoadNode& load) {
  size_t j = 0;
  for (size_t i = 0; i < load.indices.size(); ++i) {
    if (i < load.buffer->shape.size() && IsConstInt(load.buffer->shape[i], 1) &&
        IsConstInt(load.indices[i], 0)) {
      continue;
    }
    while (j < store.indices.size() && !arith::ExprDeepEqual(store.indices[j], load.indices[i])) {
      ++j;
    }
    if (j == store.indices.size()) return false;
  }
  return true;
}

// Store indices are plain iteration variables and the load uses no other iteration variable.
bool IsInjective(const ir::BufferStoreNode& store, const ir::BufferLoadNode& load,
                 const VarSet& iters) {
  VarSet store_vars;
  for (const PrimExpr& index : store.indices) {
    const auto* v = index.as<ir::VarNode>();
    if (v == nullptr) return false;
    store_vars.insert(v);
  }
  for (const PrimExpr& index : load.indices) {
    for (const ir::VarNode* v : UsedAmong(index, iters)) {
      if (store_vars.count(v) == 0) return false;
    }
  }
  return true;
}

// Some store variable is not used by the load: the loaded data is reused across it.
bool AllowsReuse(const ir::BufferStoreNode& store, const ir::BufferLoadNode& load) {
  VarSet vars;
  for (const PrimExpr& index : store.indices) {
    const auto* v = index.as<ir::VarNode>();
    if (v == nullptr) return false;
    vars.insert(v);
  }
  for (const PrimExpr& index : load.indices) {
    for (const ir::VarNode* v : UsedAmong(index, vars)) vars.erase(v);
  }
  return !vars.empty();
}

const ir::BufferLoadNode* LoadThroughCast(const PrimExpr& e) {
  const PrimExpr* x = &e;
  while (const auto* c = x->as<ir::CastNode>()) x = &c->value;
  return x->as<ir::BufferLoadNode>();
}

// C[i, j] = C[i, j] + A[...] * B[...] where A and B are reused (matmul, conv).
bool IsMultiplyAdd(const Stmt& body) {
  const auto* store = body.as<ir::BufferStoreNode>();
  if (store == nullptr) return false;
  const auto* add = store->value.as<ir::AddNode>();
  if (add == nullptr) return false;
  const auto* acc = add->a.as<ir::BufferLoadNode>();
  const auto* mul = add->b.as<ir::MulNode>();
  if (acc == nullptr || mul == nullptr) return false;
  if (!acc->buffer.same_as(store->buffer) || !SameIndices(acc->indices, store->indices)) {
    return false;
  }
  const ir::BufferLoadNode* lhs = LoadThroughCast(mul->a);
  const ir::BufferLoadNode* rhs = LoadThroughCast(mul->b);
  return lhs != nullptr && rhs != nullptr && AllowsReuse(*store, *lhs) && AllowsReuse(*store, *rhs);
}

// Every use of a reduce variable in `indices` is the variable itself.
bool IsPureReduce(const std::vector<PrimExpr>& indices, const VarSet& reduce_vars) {
  for (const PrimExpr& index : indices) {
    if (UsedAmong(index, reduce_vars).empty()) continue;
    const auto* v = index.as<ir::VarNode>();
    if (v == nullptr || reduce_vars.count(v) == 0) return false;
  }
  return true;
}

class PatternAnalyzer : public IRVisitor {
 public:
  explicit PatternAnalyzer(const ir::PrimFunc& f) {
    for (const auto& [param, buffer] : f->buffer_map) params_.insert(buffer.get());
  }

  OpPattern Result() const { return saw_block_ ? kind_ : OpPattern::kOpaque; }

  using IRVisitor::VisitExpr_;
  using IRVisitor::VisitStmt_;

  void VisitStmt_(const ir::BufferStoreNode* op) override {
    if (store_ != nullptr && !SameIndices(op->indices, store_->indices)) {
      multiple_stores_ = true;
    }
    if (store_ == nullptr) store_ = op;
    IRVisitor::VisitStmt_(op);
  }

  void VisitExpr_(const ir::BufferLoadNode* op) override {
    loads_.push_back(op);
    IRVisitor::VisitExpr_(op);
  }

  void VisitStmt_(const ir::BlockNode* op) override {
    if (op->name == "root" && op->iter_vars.empty()) {
      VisitStmt(op->body);
      return;
    }
    saw_block_ = true;
    loads_.clear();
    store_ = nullptr;
    multiple_stores_ = false;
    VisitStmt(op->body);
    kind_ = Combine(kind_, Classify(*op));
  }

 private:
  bool IsOutputBlock(const ir::BlockNode& block) const {
    for (const BufferRegion& w : block.writes) {
      if (params_.count(w.buffer.get()) != 0) return true;
    }
    return false;
  }

  OpPattern Classify(const ir::BlockNode& block) {
    if (store_ == nullptr || multiple_stores_) return OpPattern::kOpaque;
    VarSet iters, reduce_vars;
    for (const IterVar& iv : block.iter_vars) {
      iters.insert(iv.var.get());
      if (iv.kind == IterKind::kReduce) reduce_vars.insert(iv.var.get());
    }
    OpPattern index_pattern = OpPattern::kElemWise;
    bool has_elemwise = false;
    for (const ir::BufferLoadNode* load : loads_) {
      if (SameIndices(store_->indices, load->indices)) {
        has_elemwise = true;
      } else if (IsBroadcast(*store_, *load)) {
        index_pattern = Combine(index_pattern, OpPattern::kBroadcast);
      } else if (IsInjective(*store_, *load, iters)) {
        index_pattern = Combine(index_pattern, OpPattern::kInjective);
      } else {
        index_pattern = OpPattern::kOpaque;
        break;
      }
    }
    if (index_pattern == OpPattern::kBroadcast && has_elemwise)
      index_pattern = OpPattern::kElemWise;
    if (index_pattern != OpPattern::kOpaque) {
      // An elementwise output stage after a reduction (softmax's normalization).
      if (IsOutputBlock(block) && kind_ == OpPattern::kCommReduce) {
        return OpPattern::kOutEWiseFusable;
      }
      return index_pattern;
    }
    if (reduce_vars.empty()) return OpPattern::kOpaque;
    if (IsMultiplyAdd(block.body)) return OpPattern::kOutEWiseFusable;
    for (const ir::BufferLoadNode* load : loads_) {
      if (!IsPureReduce(load->indices, reduce_vars)) return OpPattern::kOutEWiseFusable;
    }
    return OpPattern::kCommReduce;
  }

  std::unordered_set<const BufferNode*> params_;
  std::vector<const ir::BufferLoadNode*> loads_;
  const ir::BufferStoreNode* store_ = nullptr;
  bool multiple_stores_ = false;
  bool saw_block_ = false;
  OpPattern kind_ = OpPattern::kElemWise;
};

}  // namespace

int OpPatternCode(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::kElemWise:
      return 0;
    case OpPattern::kBroadcast:
      return 1;
    case OpPattern::kInjective:
      return 2;
    case OpPattern::kCommReduce:
      return 3;
    case OpPattern::kOutEWiseFusable:
      return 4;
    case OpPattern::kOpaque:
      return 8;
  }
  return 8;
}

std::optional<OpPattern> OpPatternFromCode(int64_t code) {
  for (OpPattern p : {OpPattern::kElemWise, OpPattern::kBroadcast, OpPattern::kInjective,
                      OpPattern::kCommReduce, OpPattern::kOutEWiseFusable, OpPattern::kOpaque}) {
    if (OpPatternCode(p) == code) return p;
  }
  return std::nullopt;
}

OpPattern AnalyzeOpPattern(const ir::PrimFunc& func) {
  KILN_CHECK(func.defined(), ErrorKind::kInvalidIR, "AnalyzeOpPattern: undefined PrimFunc");
  PatternAnalyzer analyzer(func);
  analyzer.VisitStmt(func->body);
  return analyzer.Result();
}

std::optional<OpPattern> GetOpPattern(const ir::PrimFunc& func) {
  auto it = func->attrs.find(kOpPatternAttr);
  if (it == func->attrs.end()) return std::nullopt;
  auto code = AsConstInt(it->second);
  if (!code) return std::nullopt;
  return OpPatternFromCode(*code);
}

ir::PrimFunc WithOpPattern(const ir::PrimFunc& func, OpPattern pattern) {
  Annotations attrs = func->attrs;
  attrs[kOpPatternAttr] = IntImm(DataType::Int(32), OpPatternCode(pattern));
  return MakePrimFunc(func->name, func->params, func->buffer_map, func->body, std::move(attrs));
}

IRModule AnnotateTIROpPattern(const IRModule& module) {
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const ir::PrimFunc* f = module.LookupPrimFunc(name);
    if (f == nullptr || GetOpPattern(*f).has_value()) continue;
    out.Update(name, WithOpPattern(*f, AnalyzeOpPattern(*f)));
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
