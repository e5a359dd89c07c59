// ScheduleState: indexing of loops and blocks, and splicing of rebuilt subtrees.
#include "search/schedule/state.h"

#include <unordered_set>

#include "ir/functor.h"

namespace kiln::search {

using namespace ir;

namespace {

// Replaces statements by identity; expressions are left alone (they hold no statements).
class StmtReplacer : public IRMutator {
 public:
  explicit StmtReplacer(const std::unordered_map<const StmtNode*, Stmt>& map) : map_(map) {}
  Expr VisitExpr(const Expr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    auto it = map_.find(s.get());
    if (it != map_.end()) {
      ++found;
      return it->second;
    }
    return IRMutator::VisitStmt(s);
  }
  // Rebuilt through the SeqStmt builder so that a replacement by a sequence is flattened
  // into its parent and a removed (undefined) statement disappears.
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      Stmt n = VisitStmt(s);
      changed |= !n.same_as(s);
      seq.push_back(n);
    }
    return changed ? SeqStmt(std::move(seq)) : GetRef<Stmt>(op);
  }
  size_t found = 0;

 private:
  const std::unordered_map<const StmtNode*, Stmt>& map_;
};

}  // namespace

ScheduleState::ScheduleState(PrimFunc func) { SetFunc(std::move(func)); }

void ScheduleState::SetFunc(PrimFunc func) {
  KILN_CHECK(func.defined(), ErrorKind::kInvalidIR, "schedule: undefined function");
  func_ = std::move(func);
  Reindex();
}

void ScheduleState::Replace(const StmtNode* target, const Stmt& replacement) {
  Replace({{target, replacement}});
}

void ScheduleState::Replace(const std::vector<std::pair<const StmtNode*, Stmt>>& replacements) {
  std::unordered_map<const StmtNode*, Stmt> map(replacements.begin(), replacements.end());
  func_ = func_.WithBody(ReplaceStmts(func_->body, map));
  Reindex();
}

Stmt ReplaceStmts(const Stmt& root, const std::unordered_map<const StmtNode*, Stmt>& map) {
  StmtReplacer replacer(map);
  Stmt result = replacer.VisitStmt(root);
  KILN_CHECK(replacer.found == map.size(), ErrorKind::kInternal,
             "schedule: a statement to replace is not in the function");
  return result;
}

void ScheduleState::Remove(const StmtNode* target) {
  int index = IndexOf(target);
  int parent = index >= 0 ? entries_[index].parent : -1;
  // Only a statement inside a sequence can go without leaving a hole.
  bool in_seq = false;
  if (parent >= 0) {
    const SRef& p = entries_[parent];
    Stmt body = p.loop() ? p.loop()->body : p.block()->body;
    if (const auto* seq = body.as<SeqStmtNode>()) {
      for (const Stmt& s : seq->seq) in_seq |= s.get() == target;
    }
  }
  KILN_CHECK(in_seq, ErrorKind::kInternal,
             "schedule: removing a statement that is not in a sequence");
  Replace(target, Stmt());
}

void ScheduleState::Reindex() {
  entries_.clear();
  index_.clear();
  blocks_.clear();
  loops_.clear();
  Walk(func_->body, -1);
}

void ScheduleState::Walk(const Stmt& s, int parent) {
  if (!s.defined()) return;
  switch (s.kind()) {
    case NodeKind::kFor: {
      const auto* loop = s.as<ForNode>();
      int index = static_cast<int>(entries_.size());
      entries_.push_back(SRef{s, parent, 0});
      index_[s.get()] = index;
      KILN_CHECK(loops_.emplace(loop->loop_var.get(), index).second, ErrorKind::kInvalidIR,
                 "schedule: loop variable " + loop->loop_var.name() + " is bound by two loops");
      Walk(loop->body, index);
      entries_[index].end = static_cast<int>(entries_.size());
      return;
    }
    case NodeKind::kBlockRealize: {
      const auto* realize = s.as<BlockRealizeNode>();
      const BlockNode* block = realize->block_node();
      int index = static_cast<int>(entries_.size());
      entries_.push_back(SRef{s, parent, 0});
      index_[s.get()] = index;
      KILN_CHECK(blocks_.emplace(block->name, index).second, ErrorKind::kInvalidIR,
                 "schedule: two blocks are named \"" + block->name + "\"");
      Walk(block->init, index);
      Walk(block->body, index);
      entries_[index].end = static_cast<int>(entries_.size());
      return;
    }
    case NodeKind::kSeqStmt:
      for (const Stmt& c : s.as<SeqStmtNode>()->seq) Walk(c, parent);
      return;
    case NodeKind::kIfThenElse:
      Walk(s.as<IfThenElseNode>()->then_case, parent);
      Walk(s.as<IfThenElseNode>()->else_case, parent);
      return;
    case NodeKind::kLetStmt:
      Walk(s.as<LetStmtNode>()->body, parent);
      return;
    case NodeKind::kAllocate:
      Walk(s.as<AllocateNode>()->body, parent);
      return;
    case NodeKind::kDeclBuffer:
      Walk(s.as<DeclBufferNode>()->body, parent);
      return;
    case NodeKind::kBlock:
      Walk(s.as<BlockNode>()->init, parent);
      Walk(s.as<BlockNode>()->body, parent);
      return;
    default:
      return;
  }
}

int ScheduleState::FindBlock(const std::string& name) const {
  auto it = blocks_.find(name);
  return it == blocks_.end() ? -1 : it->second;
}

int ScheduleState::FindLoop(const VarNode* loop_var) const {
  auto it = loops_.find(loop_var);
  return it == loops_.end() ? -1 : it->second;
}

int ScheduleState::IndexOf(const StmtNode* stmt) const {
  auto it = index_.find(stmt);
  return it == index_.end() ? -1 : it->second;
}

std::vector<int> ScheduleState::LoopsAbove(int index) const {
  std::vector<int> loops;
  for (int p = entries_.at(index).parent; p >= 0 && entries_[p].loop(); p = entries_[p].parent) {
    loops.insert(loops.begin(), p);
  }
  return loops;
}

int ScheduleState::ScopeOf(int index) const {
  int p = entries_.at(index).parent;
  while (p >= 0 && !entries_[p].realize()) p = entries_[p].parent;
  return p;
}

std::vector<int> ScheduleState::ChildBlocks(int index) const {
  int scope = entries_.at(index).realize() ? index : ScopeOf(index);
  std::vector<int> result;
  for (int i = index + 1; i < entries_[index].end; ++i) {
    if (entries_[i].realize() && ScopeOf(i) == scope) result.push_back(i);
  }
  return result;
}

std::vector<int> ScheduleState::BlocksUnder(int index) const {
  std::vector<int> result;
  for (int i = index + 1; i < entries_.at(index).end; ++i) {
    if (entries_[i].realize()) result.push_back(i);
  }
  return result;
}

std::string ScheduleState::FreshBlockName(const std::string& base) const {
  if (!blocks_.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!blocks_.count(name)) return name;
  }
}

}  // namespace kiln::search
