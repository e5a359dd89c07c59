// Allocation placement: the lowest common ancestor of a buffer's accesses, lifted out of the
// reduction loops of the blocks that write it.
#include "codegen/passes/place_allocations.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "codegen/passes/ir_utils.h"
#include "ir/functor.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// For each buffer a block allocates: the path of enclosing For and BlockRealize nodes common
// to all its accesses, and how deep along that path the allocation may go.
struct Placement {
  const BlockRealizeNode* owner = nullptr;
  std::vector<const StmtNode*> common;  // valid once `seen`
  bool seen = false;
  size_t limit = std::numeric_limits<size_t>::max();
};

class AccessCollector : public IRVisitor {
 public:
  std::unordered_map<const BufferNode*, Placement> placements;

  void VisitStmt_(const ForNode* op) override {
    path_.push_back(op);
    IRVisitor::VisitStmt_(op);
    path_.pop_back();
  }

  void VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* block = op->block_node();
    KILN_CHECK(block != nullptr, ErrorKind::kInvalidIR,
               "PlaceAllocations: BlockRealize without a block");
    for (const Buffer& b : block->alloc_buffers) placements[b.get()].owner = op;
    // The outermost enclosing loop this block reduces over.
    size_t reduce_limit = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      if (block->iter_vars[i].kind == IterKind::kSpatial) continue;
      for (size_t p = 0; p < path_.size(); ++p) {
        const auto* loop =
            path_[p]->kind == NodeKind::kFor ? static_cast<const ForNode*>(path_[p]) : nullptr;
        if (loop && UsesVar(op->iter_values[i], loop->loop_var.get())) {
          reduce_limit = std::min(reduce_limit, p);
        }
      }
    }
    for (const Expr& v : op->iter_values) VisitExpr(v);
    if (op->predicate.defined()) VisitExpr(op->predicate);
    path_.push_back(op);
    // Nested blocks inherit the limits of the blocks around them.
    if (!reduce_limits_.empty()) reduce_limit = std::min(reduce_limit, reduce_limits_.back());
    reduce_limits_.push_back(reduce_limit);
    if (block->init.defined()) VisitStmt(block->init);
    VisitStmt(block->body);
    reduce_limits_.pop_back();
    path_.pop_back();
  }

  void VisitExpr_(const BufferLoadNode* op) override {
    Touch(op->buffer.get(), false);
    IRVisitor::VisitExpr_(op);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    Touch(op->buffer.get(), true);
    IRVisitor::VisitStmt_(op);
  }

 private:
  void Touch(const BufferNode* buffer, bool is_write) {
    auto it = placements.find(buffer);
    if (it == placements.end()) return;  // a parameter, or allocated by an Allocate
    Placement& p = it->second;
    if (!p.seen) {
      p.common = path_;
      p.seen = true;
    } else {
      size_t n = 0;
      while (n < p.common.size() && n < path_.size() && p.common[n] == path_[n]) ++n;
      p.common.resize(n);
    }
    if (is_write && !reduce_limits_.empty()) p.limit = std::min(p.limit, reduce_limits_.back());
  }

  std::vector<const StmtNode*> path_;
  std::vector<size_t> reduce_limits_;
};

// How far along `path` a buffer of `scope` may go on a GPU: memory of the whole device stays
// above every bound loop; "local" (one thread's) memory may go anywhere, and so may memory shared
// by a block of threads: below a threadIdx loop it stands for the block's one copy (the GPU
// lowering hoists it to the kernel, and CompactBuffers sizes it for all the block's threads), so
// that a tile fetched per iteration of a loop inside the threads holds one iteration's part.
size_t ThreadLimit(const std::vector<const StmtNode*>& path, const std::string& scope) {
  if (scope.rfind("local", 0) == 0 || scope == "warp") return path.size();
  if (scope.rfind("shared", 0) == 0) return path.size();
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i]->kind != NodeKind::kFor) continue;
    const auto* loop = static_cast<const ForNode*>(path[i]);
    if (loop->for_kind == ForKind::kThreadBinding) return i;
  }
  return path.size();
}

class Placer : public IRMutator {
 public:
  Placer(const std::unordered_map<const BufferNode*, Placement>& placements, const Stmt& body) {
    NumberAllocations(body);
    for (const auto& [buffer, p] : placements) {
      if (!p.seen || p.owner == nullptr) continue;
      std::vector<const StmtNode*> path = p.common;
      if (p.limit < path.size()) path.resize(p.limit);
      path.resize(ThreadLimit(path, buffer->scope));
      // Never above the block that allocates it (its accesses are all inside it).
      auto owner_at = std::find(path.begin(), path.end(), p.owner);
      if (owner_at == path.end()) continue;
      const StmtNode* target = path.back();
      if (target == p.owner) continue;
      moved_.insert(buffer);
      if (target->kind == NodeKind::kFor) {
        into_loop_[target].push_back(buffer);
      } else {
        into_block_[static_cast<const BlockRealizeNode*>(target)->block_node()].push_back(buffer);
      }
    }
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    auto adds = into_block_.find(op);
    bool removes = std::any_of(op->alloc_buffers.begin(), op->alloc_buffers.end(),
                               [&](const Buffer& b) { return moved_.count(b.get()) > 0; });
    if (!removes && adds == into_block_.end()) return s;
    auto node = std::make_shared<BlockNode>(*s.as<BlockNode>());
    std::vector<Buffer> kept;
    for (const Buffer& b : node->alloc_buffers) {
      if (!moved_.count(b.get())) kept.push_back(b);
    }
    if (adds != into_block_.end()) {
      for (const BufferNode* b : Ordered(adds->second)) kept.push_back(handles_.at(b));
    }
    node->alloc_buffers = std::move(kept);
    return Block(std::move(node));
  }

  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    auto it = into_loop_.find(op);
    if (it == into_loop_.end()) return s;
    const auto* loop = s.as<ForNode>();
    std::vector<const BufferNode*> buffers = Ordered(it->second);
    Stmt body = loop->body;
    for (auto b = buffers.rbegin(); b != buffers.rend(); ++b)
      body = Allocate(handles_.at(*b), body);
    return For(loop->loop_var, loop->min, loop->extent, loop->for_kind, body, loop->thread_tag,
               loop->annotations);
  }

 private:
  // Numbers the block allocations in program order and keeps their handles.
  void NumberAllocations(const Stmt& body) {
    class Numberer : public IRVisitor {
     public:
      explicit Numberer(Placer& placer) : placer_(placer) {}
      void VisitStmt_(const BlockNode* op) override {
        for (const Buffer& b : op->alloc_buffers) {
          placer_.order_.emplace(b.get(), placer_.order_.size());
          placer_.handles_.emplace(b.get(), b);
        }
        IRVisitor::VisitStmt_(op);
      }

     private:
      Placer& placer_;
    };
    Numberer(*this).VisitStmt(body);
  }

  // `buffers` in the order their blocks declared them (deterministic output).
  std::vector<const BufferNode*> Ordered(std::vector<const BufferNode*> buffers) const {
    std::sort(buffers.begin(), buffers.end(), [&](const BufferNode* a, const BufferNode* b) {
      return order_.at(a) < order_.at(b);
    });
    return buffers;
  }

  std::unordered_map<const StmtNode*, std::vector<const BufferNode*>> into_loop_;
  std::unordered_map<const BlockNode*, std::vector<const BufferNode*>> into_block_;
  std::unordered_set<const BufferNode*> moved_;
  std::unordered_map<const BufferNode*, Buffer> handles_;
  std::unordered_map<const BufferNode*, size_t> order_;
};

}  // namespace

PrimFunc PlaceAllocations(const PrimFunc& f) {
  AccessCollector collector;
  collector.VisitStmt(f->body);
  return f.WithBody(Placer(collector.placements, f->body).VisitStmt(f->body));
}

}  // namespace kiln::codegen
