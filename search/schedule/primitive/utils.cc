// Shared helpers of the schedule primitives.
#include "search/schedule/primitive/utils.h"

#include <cctype>

#include "ir/functor.h"

namespace kiln::search {

using namespace ir;

Expr AndFold(const Expr& a, const Expr& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return arith::FoldAnd(a, b);
}

Stmt ForWithBody(const ForNode* loop, Stmt body) {
  return For(loop->loop_var, loop->min, loop->extent, loop->for_kind, std::move(body),
             loop->thread_tag, loop->annotations);
}

Stmt ForWithKind(const ForNode* loop, ForKind kind, std::string thread_tag) {
  return For(loop->loop_var, loop->min, loop->extent, kind, loop->body, std::move(thread_tag),
             loop->annotations);
}

Stmt ForWithAnnotations(const ForNode* loop, Annotations annotations) {
  return For(loop->loop_var, loop->min, loop->extent, loop->for_kind, loop->body, loop->thread_tag,
             std::move(annotations));
}

Stmt RealizeWith(const BlockRealizeNode* realize, std::vector<Expr> iter_values, Expr predicate,
                 Stmt block) {
  (void)realize;
  return BlockRealize(std::move(iter_values), std::move(predicate), std::move(block));
}

std::shared_ptr<BlockNode> CopyBlock(const BlockNode* block) {
  return std::make_shared<BlockNode>(*block);
}

std::string LoopLabel(const ForNode* loop) { return "loop " + loop->loop_var.name(); }

std::string BlockLabel(const BlockNode* block) { return "block \"" + block->name + "\""; }

void CheckStorageScope(const std::string& scope, const std::string& what) {
  bool ok = !scope.empty() && scope.size() <= 64;
  for (char c : scope) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
  }
  KILN_CHECK(ok, ErrorKind::kSchedule,
             what + ": \"" + scope + "\" is not a storage scope (global, shared, local, ...)");
}

int64_t ConstExtent(const ForNode* loop, const std::string& what) {
  auto extent = AsConstInt(loop->extent);
  KILN_CHECK(extent.has_value(), ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " has a non-constant extent");
  return *extent;
}

IterUse IterKindsUsing(const BlockRealizeNode* realize, const VarNode* loop_var) {
  IterUse use;
  const BlockNode* block = realize->block_node();
  for (size_t i = 0; i < realize->iter_values.size(); ++i) {
    if (!UsesVar(realize->iter_values[i], loop_var)) continue;
    switch (block->iter_vars[i].kind) {
      case IterKind::kSpatial:
        use.spatial = true;
        break;
      case IterKind::kReduce:
        use.reduce = true;
        break;
      case IterKind::kOpaque:
        use.opaque = true;
        break;
    }
  }
  return use;
}

std::vector<LoopUse> BlocksUsingLoop(const ScheduleState& state, int loop_index) {
  const VarNode* var = state.entry(loop_index).loop()->loop_var.get();
  std::vector<LoopUse> uses;
  for (int b : state.BlocksUnder(loop_index)) {
    const BlockRealizeNode* realize = state.entry(b).realize();
    IterUse use = IterKindsUsing(realize, var);
    if (use.any()) uses.push_back({realize, use});
  }
  return uses;
}

bool BlockReads(const BlockNode* block, const Buffer& buffer) {
  for (const BufferRegion& r : block->reads) {
    if (r.buffer.same_as(buffer)) return true;
  }
  return false;
}

bool BlockWrites(const BlockNode* block, const Buffer& buffer) {
  for (const BufferRegion& r : block->writes) {
    if (r.buffer.same_as(buffer)) return true;
  }
  return false;
}

const BufferRegion& BufferRegionAt(const BlockNode* block, bool writes, int index,
                                   const std::string& what) {
  const auto& regions = writes ? block->writes : block->reads;
  KILN_CHECK(index >= 0 && index < static_cast<int>(regions.size()), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " has " + std::to_string(regions.size()) +
                 (writes ? " written" : " read") + " buffers; index " + std::to_string(index) +
                 " is out of range");
  return regions[index];
}

}  // namespace kiln::search

#include "ir/arith/analyzer.h"
#include "ir/arith/region.h"

namespace kiln::search {

using namespace ir;

namespace {

class BindingSimplifier : public IRMutator {
 public:
  explicit BindingSimplifier(arith::Analyzer& analyzer) : analyzer_(analyzer) {}
  Expr VisitExpr(const Expr& e) override { return e; }
  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_.Bind(op->loop_var, RangeFromMinExtent(op->min, op->extent));
    return IRMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    std::vector<Expr> values;
    for (const Expr& v : op->iter_values) values.push_back(analyzer_.Simplify(v));
    Expr predicate = analyzer_.Simplify(op->predicate);
    Stmt block = VisitStmt(op->block);
    return RealizeWith(op, std::move(values), std::move(predicate), std::move(block));
  }

 private:
  arith::Analyzer& analyzer_;
};

}  // namespace

Stmt SimplifyBindings(const ScheduleState& state, int index, const Stmt& nest) {
  arith::Analyzer analyzer;
  for (int l : state.LoopsAbove(index)) {
    const ForNode* f = state.entry(l).loop();
    analyzer.Bind(f->loop_var, RangeFromMinExtent(f->min, f->extent));
  }
  return BindingSimplifier(analyzer).VisitStmt(nest);
}

int StageOf(const ScheduleState& state, int entry, int scope) {
  int r = entry;
  while (r >= 0 && state.entry(r).parent != scope) r = state.entry(r).parent;
  KILN_CHECK(r >= 0, ErrorKind::kInternal, "schedule: an entry outside its scope");
  return r;
}

int RemovalRoot(const ScheduleState& state, int block) {
  int r = block;
  for (int p = state.entry(r).parent; p >= 0 && state.entry(p).loop(); p = state.entry(p).parent) {
    if (state.entry(p).loop()->body.get() != state.entry(r).stmt.get()) break;
    r = p;
  }
  return r;
}

bool IsInSequence(const ScheduleState& state, int entry) {
  int parent = state.entry(entry).parent;
  if (parent < 0) return false;
  const SRef& p = state.entry(parent);
  Stmt body = p.loop() ? p.loop()->body : p.block()->body;
  const auto* seq = body.as<SeqStmtNode>();
  if (!seq) return false;
  for (const Stmt& s : seq->seq) {
    if (s.get() == state.entry(entry).stmt.get()) return true;
  }
  return false;
}

namespace {

class BufferReplacer : public IRMutator {
 public:
  explicit BufferReplacer(const BufferMap& map) : map_(map) {}
  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    auto it = map_.find(load->buffer.get());
    return it == map_.end() ? e : BufferLoad(it->second, load->indices);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    auto it = map_.find(store->buffer.get());
    return it == map_.end() ? s : BufferStore(it->second, store->value, store->indices);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    auto block = std::make_shared<BlockNode>(*s.as<BlockNode>());
    bool changed = false;
    auto swap = [&](Buffer& b) {
      auto it = map_.find(b.get());
      if (it != map_.end()) {
        b = it->second;
        changed = true;
      }
    };
    for (BufferRegion& r : block->reads) swap(r.buffer);
    for (BufferRegion& r : block->writes) swap(r.buffer);
    for (Buffer& b : block->alloc_buffers) swap(b);
    return changed ? Block(block) : s;
  }

 private:
  const BufferMap& map_;
};

}  // namespace

Stmt ReplaceBuffers(const Stmt& s, const BufferMap& map) {
  return BufferReplacer(map).VisitStmt(s);
}

bool IsParamBuffer(const PrimFunc& f, const Buffer& buffer) {
  for (const auto& [var, b] : f->buffer_map) {
    if (b.same_as(buffer)) return true;
  }
  return false;
}

Stmt WithDetectedRegions(const BlockRealizeNode* realize, const BlockNode& block) {
  auto copy = std::make_shared<BlockNode>(block);
  arith::BlockAccessRegions regions = arith::DetectBlockAccessRegions(block);
  copy->reads = regions.reads;
  copy->writes = regions.writes;
  return BlockRealize(realize->iter_values, realize->predicate, Block(copy));
}

Stmt RebuildScope(const BlockRealizeNode* scope, Stmt body, const std::vector<Buffer>& add,
                  const Buffer& remove) {
  auto block = CopyBlock(scope->block_node());
  block->body = std::move(body);
  std::vector<Buffer> allocs;
  for (const Buffer& b : block->alloc_buffers) {
    if (!remove.defined() || !b.same_as(remove)) allocs.push_back(b);
  }
  allocs.insert(allocs.end(), add.begin(), add.end());
  block->alloc_buffers = std::move(allocs);
  return BlockRealize(scope->iter_values, scope->predicate, Block(block));
}

}  // namespace kiln::search
