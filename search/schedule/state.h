// ScheduleState: the function being scheduled plus an index of its loops and blocks.
// The IR is functional, so a primitive builds a new subtree and Replace() splices it in,
// sharing everything else, then re-indexes. Blocks keep their identity through their name
// (unique in a function) and loops through their loop Var (a rebuilt For keeps its Var), so
// handles held by a Schedule stay valid across changes to unrelated parts of the function.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/function.h"

namespace kiln::search {

// One For or BlockRealize of the function, with the nearest enclosing one.
struct SRef {
  ir::Stmt stmt;
  int parent = -1;  // index into the state's entries; -1 at the top of the function body
  int end = 0;      // entries (parent, end) are its subtree (entries are in program order)
  const ir::ForNode* loop() const { return stmt.as<ir::ForNode>(); }
  const ir::BlockRealizeNode* realize() const { return stmt.as<ir::BlockRealizeNode>(); }
  const ir::BlockNode* block() const {
    const auto* r = realize();
    return r ? r->block_node() : nullptr;
  }
};

// `root` with each statement of `map` replaced by its value (an undefined value removes a
// statement from its sequence); sequences are flattened. Every key must occur.
ir::Stmt ReplaceStmts(const ir::Stmt& root,
                      const std::unordered_map<const ir::StmtNode*, ir::Stmt>& map);

class ScheduleState {
 public:
  ScheduleState() = default;
  // Throws kiln::Error(kInvalidIR) when two blocks share a name or two loops share a Var.
  explicit ScheduleState(ir::PrimFunc func);

  const ir::PrimFunc& func() const { return func_; }

  // Replaces the statement `target` (a node of the current function) by `replacement`.
  void Replace(const ir::StmtNode* target, const ir::Stmt& replacement);
  // Replaces several statements at once (targets must not be nested in each other).
  void Replace(const std::vector<std::pair<const ir::StmtNode*, ir::Stmt>>& replacements);
  // Removes a statement that is an element of a sequence (a stage of a block's body).
  void Remove(const ir::StmtNode* target);
  void SetFunc(ir::PrimFunc func);

  // Entry index of a block by name or a loop by its Var; -1 when there is none.
  int FindBlock(const std::string& name) const;
  int FindLoop(const ir::VarNode* loop_var) const;
  int IndexOf(const ir::StmtNode* stmt) const;
  const SRef& entry(int index) const { return entries_.at(index); }
  size_t size() const { return entries_.size(); }

  // The loops between the entry and its enclosing block, outermost first.
  std::vector<int> LoopsAbove(int index) const;
  // The nearest enclosing block realize (the scope) of an entry; -1 for the root.
  int ScopeOf(int index) const;
  // Blocks directly under an entry (not nested inside another block), in program order.
  std::vector<int> ChildBlocks(int index) const;
  // Every block in the subtree of an entry, in program order (excluding the entry itself).
  std::vector<int> BlocksUnder(int index) const;
  // Block names in use (for making fresh ones).
  std::string FreshBlockName(const std::string& base) const;

 private:
  void Reindex();
  void Walk(const ir::Stmt& s, int parent);

  ir::PrimFunc func_;
  std::vector<SRef> entries_;
  std::unordered_map<const ir::StmtNode*, int> index_;
  std::unordered_map<std::string, int> blocks_;
  std::unordered_map<const ir::VarNode*, int> loops_;
};

}  // namespace kiln::search
