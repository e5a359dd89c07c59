// Copies TensorIR statements from one PrimFunc into another (FuseTIR's merge): uses of
// variables are substituted (a callee's shape variables become the caller's dims), buffers are
// replaced (a callee's parameters become the merged function's buffers), and every definition
// is renewed (loop, iteration and let variables, allocated buffers), because a schedule finds
// loops by their variable and a function merged from two calls of one kernel would otherwise
// define the same variable twice. Block and buffer names are made unique across everything
// copied with the same NameSet. Internal to ir/relax/transform.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "ir/functor.h"

namespace kiln::ir::relax::transform {

// Names taken in the function being built: "T_add" then "T_add_1", "T_add_2", ...
class NameSet {
 public:
  std::string Unique(const std::string& hint);

 private:
  std::set<std::string> used_;
};

class StmtCopier : public ir::IRMutator {
 public:
  using VarMap = std::unordered_map<const ir::VarNode*, ir::Expr>;
  using BufferMap = std::unordered_map<const ir::BufferNode*, ir::Buffer>;

  StmtCopier(VarMap vars, BufferMap buffers, NameSet* block_names, NameSet* buffer_names);

  ir::Stmt Copy(const ir::Stmt& s) { return VisitStmt(s); }
  // The replacement of `buffer`: the mapped one, or (the first time) a fresh copy with its
  // shape substituted and a unique name.
  ir::Buffer Remap(const ir::Buffer& buffer);

  using ir::IRMutator::VisitExpr_;
  using ir::IRMutator::VisitStmt_;
  ir::Expr VisitExpr_(const ir::VarNode* op) override;
  ir::Expr VisitExpr_(const ir::BufferLoadNode* op) override;
  ir::Expr VisitExpr_(const ir::LetNode* op) override;
  ir::Stmt VisitStmt_(const ir::BufferStoreNode* op) override;
  ir::Stmt VisitStmt_(const ir::ForNode* op) override;
  ir::Stmt VisitStmt_(const ir::BlockNode* op) override;
  ir::Stmt VisitStmt_(const ir::LetStmtNode* op) override;
  ir::Stmt VisitStmt_(const ir::AllocateNode* op) override;
  ir::Stmt VisitStmt_(const ir::DeclBufferNode* op) override;

 private:
  ir::Var Renew(const ir::Var& v);
  std::vector<ir::Expr> VisitExprs(const std::vector<ir::Expr>& exprs);
  ir::BufferRegion RemapRegion(const ir::BufferRegion& r);

  VarMap vars_;
  BufferMap buffers_;
  NameSet* block_names_;
  NameSet* buffer_names_;
};

}  // namespace kiln::ir::relax::transform
