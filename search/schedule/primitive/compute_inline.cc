// compute_inline and reverse_compute_inline: fold an element-wise stage into the stage that
// reads it (or the one it reads), removing the intermediate buffer. Both need the inlined
// block to be a single store whose indices are exactly its iteration variables, so that an
// access to the buffer maps back to one iteration of the block.
#include <unordered_set>

#include "ir/functor.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

// The store of a spatial, init-free block with one store; `what` names the primitive.
const BufferStoreNode* SimpleStore(const BlockNode* block, const std::string& what) {
  KILN_CHECK(!block->init.defined(), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " is a reduction (it has an init)");
  for (const IterVar& iv : block->iter_vars) {
    KILN_CHECK(iv.kind == IterKind::kSpatial, ErrorKind::kSchedule,
               what + ": " + BlockLabel(block) + " has the " + IterKindName(iv.kind) +
                   " iteration " + iv.var.name());
  }
  const auto* store = block->body.as<BufferStoreNode>();
  KILN_CHECK(store != nullptr, ErrorKind::kSchedule,
             what + ": the body of " + BlockLabel(block) + " is not a single buffer store");
  return store;
}

// For indices that are distinct iteration variables covering all of them: the position of
// each variable. Otherwise empty.
std::unordered_map<const VarNode*, size_t> IterPositions(const BlockNode* block,
                                                         const std::vector<Expr>& indices) {
  std::unordered_map<const VarNode*, size_t> pos;
  std::unordered_set<const VarNode*> iters;
  for (const IterVar& iv : block->iter_vars) iters.insert(iv.var.get());
  for (size_t i = 0; i < indices.size(); ++i) {
    const auto* v = indices[i].as<VarNode>();
    if (!v || !iters.count(v) || !pos.emplace(v, i).second) return {};
  }
  if (pos.size() != iters.size()) return {};
  return pos;
}

// Replaces every load of `buffer` by the producer's value at the load's indices.
class LoadInliner : public IRMutator {
 public:
  LoadInliner(const Buffer& buffer, const BufferStoreNode* store)
      : buffer_(buffer), store_(store) {}
  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load->buffer.same_as(buffer_)) return e;
    VarMap map;
    for (size_t i = 0; i < store_->indices.size(); ++i) {
      map[store_->indices[i].as<VarNode>()] = load->indices[i];
    }
    ++count;
    return Substitute(store_->value, map);
  }
  int count = 0;

 private:
  Buffer buffer_;
  const BufferStoreNode* store_;
};

int ScopeChecked(const ScheduleState& state, int block, const std::string& what) {
  int scope = state.ScopeOf(block);
  KILN_CHECK(scope >= 0, ErrorKind::kSchedule, what + ": the root block cannot be inlined");
  return scope;
}

}  // namespace

void ComputeInlineBlock(ScheduleState& state, int b) {
  const std::string what = "compute_inline";
  const BlockRealizeNode* realize = state.entry(b).realize();
  const BlockNode* block = realize->block_node();
  int scope = ScopeChecked(state, b, what);
  const BufferStoreNode* store = SimpleStore(block, what);
  const Buffer& buffer = store->buffer;
  KILN_CHECK(!IsParamBuffer(state.func(), buffer), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " writes " + buffer->name +
                 ", a parameter of the function; only intermediate stages can be inlined");
  KILN_CHECK(!IterPositions(block, store->indices).empty(), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " does not store to " + buffer->name +
                 " at exactly its iteration variables");
  KILN_CHECK(!BlockReads(block, buffer), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " reads the buffer it writes");
  std::unordered_map<const StmtNode*, Stmt> edits;
  for (int other : state.ChildBlocks(scope)) {
    if (other == b) continue;
    const BlockRealizeNode* r = state.entry(other).realize();
    const BlockNode* consumer = r->block_node();
    KILN_CHECK(!BlockWrites(consumer, buffer), ErrorKind::kSchedule,
               what + ": " + buffer->name + " is also written by " + BlockLabel(consumer));
    if (!BlockReads(consumer, buffer)) continue;
    LoadInliner inliner(buffer, store);
    auto copy = CopyBlock(consumer);
    copy->body = inliner.VisitStmt(consumer->body);
    if (consumer->init.defined()) copy->init = inliner.VisitStmt(consumer->init);
    edits[r] = WithDetectedRegions(r, *copy);
  }
  int root = RemovalRoot(state, b);
  const BlockRealizeNode* scope_realize = state.entry(scope).realize();
  KILN_CHECK(
      IsInSequence(state, root), ErrorKind::kSchedule,
      what + ": " + BlockLabel(block) + " is the only statement of its enclosing loop or scope");
  edits[state.entry(root).stmt.get()] = Stmt();
  Stmt body = ReplaceStmts(scope_realize->block_node()->body, edits);
  state.Replace(scope_realize, RebuildScope(scope_realize, body, {}, buffer));
}

void ReverseComputeInlineBlock(ScheduleState& state, int c) {
  const std::string what = "reverse_compute_inline";
  const BlockRealizeNode* realize = state.entry(c).realize();
  const BlockNode* consumer = realize->block_node();
  int scope = ScopeChecked(state, c, what);
  const BufferStoreNode* store = SimpleStore(consumer, what);
  KILN_CHECK(IsConstInt(realize->predicate, 1), ErrorKind::kSchedule,
             what + ": " + BlockLabel(consumer) + " has a predicate");
  std::vector<int> producers = ProducerBlocks(state, c);
  KILN_CHECK(producers.size() == 1, ErrorKind::kSchedule,
             what + ": " + BlockLabel(consumer) + " has " + std::to_string(producers.size()) +
                 " producer blocks; exactly one is needed");
  int p = producers[0];
  const BlockRealizeNode* p_realize = state.entry(p).realize();
  const BlockNode* producer = p_realize->block_node();
  const BufferStoreNode* p_store = SimpleStore(producer, what);
  const Buffer& buffer = p_store->buffer;
  KILN_CHECK(!IsParamBuffer(state.func(), buffer), ErrorKind::kSchedule,
             what + ": " + BlockLabel(producer) + " writes " + buffer->name +
                 ", a parameter of the function");
  for (int other : state.ChildBlocks(scope)) {
    if (other == c || other == p) continue;
    KILN_CHECK(
        !BlockReads(state.entry(other).block(), buffer), ErrorKind::kSchedule,
        what + ": " + buffer->name + " is also read by " + BlockLabel(state.entry(other).block()));
  }
  // Every load of the buffer must be at the consumer's iteration variables, all the same.
  std::vector<Expr> load_indices;
  bool uniform = true;
  class Finder : public IRVisitor {
   public:
    Finder(const Buffer& b, std::vector<Expr>& idx, bool& ok) : b_(b), idx_(idx), ok_(ok) {}
    void VisitExpr_(const BufferLoadNode* op) override {
      IRVisitor::VisitExpr_(op);
      if (!op->buffer.same_as(b_)) return;
      if (idx_.empty()) {
        idx_ = op->indices;
        return;
      }
      for (size_t i = 0; i < idx_.size(); ++i) ok_ &= idx_[i].same_as(op->indices[i]);
    }

   private:
    const Buffer& b_;
    std::vector<Expr>& idx_;
    bool& ok_;
  } finder(buffer, load_indices, uniform);
  finder.VisitStmt(consumer->body);
  auto positions = IterPositions(consumer, load_indices);
  KILN_CHECK(uniform && !positions.empty(), ErrorKind::kSchedule,
             what + ": " + BlockLabel(consumer) + " does not read " + buffer->name +
                 " at exactly its iteration variables");
  VarMap map;
  for (const auto& [var, pos] : positions) map[var] = p_store->indices[pos];
  // Loads of the buffer become the producer's value at the producer's own indices.
  Expr value = Substitute(store->value, map);
  class ToValue : public IRMutator {
   public:
    ToValue(const Buffer& b, Expr v) : b_(b), v_(std::move(v)) {}
    Expr VisitExpr_(const BufferLoadNode* op) override {
      return op->buffer.same_as(b_) ? v_ : IRMutator::VisitExpr_(op);
    }

   private:
    const Buffer& b_;
    Expr v_;
  };
  value = ToValue(buffer, p_store->value).VisitExpr(value);
  std::vector<Expr> indices;
  for (const Expr& e : store->indices) indices.push_back(Substitute(e, map));
  auto copy = CopyBlock(producer);
  copy->body = BufferStore(store->buffer, value, indices);
  std::unordered_map<const StmtNode*, Stmt> edits;
  edits[p_realize] = WithDetectedRegions(p_realize, *copy);
  int root = RemovalRoot(state, c);
  const BlockRealizeNode* scope_realize = state.entry(scope).realize();
  KILN_CHECK(
      IsInSequence(state, root), ErrorKind::kSchedule,
      what + ": " + BlockLabel(consumer) + " is the only statement of its enclosing loop or scope");
  edits[state.entry(root).stmt.get()] = Stmt();
  Stmt body = ReplaceStmts(scope_realize->block_node()->body, edits);
  state.Replace(scope_realize, RebuildScope(scope_realize, body, {}, buffer));
}

}  // namespace kiln::search
