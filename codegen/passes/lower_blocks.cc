// Block lowering: BlockRealize -> substituted body, init guard, predicate guard, Allocate.
#include "codegen/passes/lower_blocks.h"

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

class BlockLowerer : public IRMutator {
 public:
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* block = op->block_node();
    KILN_CHECK(block != nullptr, ErrorKind::kInvalidIR,
               "LowerBlocks: BlockRealize without a block");
    VarMap bindings;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      bindings[block->iter_vars[i].var.get()] = op->iter_values[i];
    }
    Stmt body = Substitute(VisitStmt(block->body), bindings);
    if (block->init.defined()) {
      Stmt init = Substitute(VisitStmt(block->init), bindings);
      Expr first_visit;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        const IterVar& iv = block->iter_vars[i];
        if (iv.kind != IterKind::kReduce) continue;
        Expr is_min = op->iter_values[i] == CastTo(op->iter_values[i].dtype(), iv.dom.min);
        first_visit = first_visit.defined() ? (first_visit && is_min) : is_min;
      }
      body = SeqStmt({first_visit.defined() ? IfThenElse(first_visit, init) : init, body});
    }
    for (auto it = block->alloc_buffers.rbegin(); it != block->alloc_buffers.rend(); ++it) {
      body = Allocate(*it, body);
    }
    if (op->predicate.defined() && !IsConstInt(op->predicate, 1)) {
      body = IfThenElse(VisitExpr(op->predicate), body);
    }
    return body;
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    throw Error(ErrorKind::kInvalidIR,
                "LowerBlocks: block " + op->name + " appears without a BlockRealize");
  }
};

}  // namespace

PrimFunc LowerBlocks(const PrimFunc& f) { return f.WithBody(BlockLowerer().VisitStmt(f->body)); }

}  // namespace kiln::codegen
