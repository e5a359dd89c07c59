// Storage planning: stack or heap for each allocation, with alignment.
#include "codegen/passes/plan_storage.h"

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

class StoragePlanner : public IRMutator {
 public:
  explicit StoragePlanner(const StorageOptions& options) : options_(options) {}

  Stmt VisitStmt_(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    int64_t bytes = int64_t{buffer->dtype.bytes()} * buffer->dtype.lanes();
    bool constant = true;
    for (const Expr& extent : buffer->shape) {
      auto v = AsConstInt(extent);
      constant = constant && v.has_value();
      if (v)
        bytes = *v > 0 && bytes > options_.stack_limit_bytes / *v ? options_.stack_limit_bytes + 1
                                                                  : bytes * *v;
    }
    bool on_stack = constant && bytes <= options_.stack_limit_bytes;
    auto node = std::make_shared<BufferNode>(*buffer.get());
    node->scope = on_stack ? kStorageStack : kStorageHeap;
    node->align = std::max(node->align, options_.alignment);
    Buffer planned(std::move(node));
    Stmt body = RemapBuffers(VisitStmt(op->body), {{buffer.get(), planned}});
    return Allocate(planned, body);
  }

 private:
  const StorageOptions& options_;
};

}  // namespace

PrimFunc PlanStorage(const PrimFunc& f, const StorageOptions& options) {
  return f.WithBody(StoragePlanner(options).VisitStmt(f->body));
}

}  // namespace kiln::codegen
