// CheckThreadBoundReductions: a walk that keeps the threadIdx loops in scope.
#include "codegen/gpu/check_schedule.h"

#include <vector>

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen::gpu {

using namespace ir;

namespace {

class Checker : public IRVisitor {
 public:
  explicit Checker(std::string function) : function_(std::move(function)) {}

  void VisitStmt_(const ForNode* op) override {
    bool thread =
        op->for_kind == ForKind::kThreadBinding && op->thread_tag.rfind("threadIdx", 0) == 0;
    if (thread) loops_.push_back(op);
    IRVisitor::VisitStmt_(op);
    if (thread) loops_.pop_back();
  }

  void VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* block = op->block_node();
    if (block != nullptr) {
      for (size_t i = 0; i < block->iter_vars.size() && i < op->iter_values.size(); ++i) {
        if (block->iter_vars[i].kind != IterKind::kReduce) continue;
        for (const ForNode* loop : loops_) {
          KILN_CHECK(!UsesVar(op->iter_values[i], loop->loop_var.get()), ErrorKind::kUnsupported,
                     "function " + function_ + ": block " + block->name + " reduces over " +
                         block->iter_vars[i].var.name() + " across threads (loop " +
                         loop->loop_var.name() + " is bound to " + loop->thread_tag +
                         "); cross-thread reduction is not supported: rfactor the loop first");
        }
      }
    }
    IRVisitor::VisitStmt_(op);
  }

 private:
  std::string function_;
  std::vector<const ForNode*> loops_;
};

}  // namespace

void CheckThreadBoundReductions(const PrimFunc& f) { Checker(f->name).VisitStmt(f->body); }

}  // namespace kiln::codegen::gpu
