// SetBlockRegions (see block_regions.h).
#include "ir/sparse/transform/block_regions.h"

#include <unordered_set>

#include "ir/arith/region.h"
#include "ir/functor.h"

namespace kiln::ir::sparse {
namespace {

// Buffers allocated in a block or in the blocks under it.
struct LocalBuffers : IRVisitor {
  std::unordered_set<const BufferNode*> buffers;
  void VisitStmt_(const BlockNode* op) override {
    for (const Buffer& b : op->alloc_buffers) buffers.insert(b.get());
    IRVisitor::VisitStmt_(op);
  }
};

// Whether `e` loads one of `buffers`.
struct LoadsAny : IRVisitor {
  const std::unordered_set<const BufferNode*>* buffers = nullptr;
  bool found = false;
  void VisitExpr_(const BufferLoadNode* op) override {
    found |= buffers->count(op->buffer.get()) > 0;
    IRVisitor::VisitExpr_(op);
  }
};

void Sanitize(std::vector<BufferRegion>* regions,
              const std::unordered_set<const BufferNode*>& local) {
  for (BufferRegion& r : *regions) {
    LoadsAny loads;
    loads.buffers = &local;
    for (const Range& range : r.region) {
      loads.VisitExpr(range.min);
      loads.VisitExpr(range.extent);
    }
    if (loads.found) r = FullRegion(r.buffer);
  }
}

}  // namespace

void SetBlockRegions(BlockNode* block) {
  try {
    arith::BlockAccessRegions regions = arith::DetectBlockAccessRegions(*block);
    LocalBuffers local;
    for (const Buffer& b : block->alloc_buffers) local.buffers.insert(b.get());
    if (block->init.defined()) local.VisitStmt(block->init);
    local.VisitStmt(block->body);
    Sanitize(&regions.reads, local.buffers);
    Sanitize(&regions.writes, local.buffers);
    block->reads = std::move(regions.reads);
    block->writes = std::move(regions.writes);
  } catch (const Error&) {
    block->reads.clear();
    block->writes.clear();
  }
}

}  // namespace kiln::ir::sparse
