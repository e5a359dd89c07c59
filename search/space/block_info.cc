// Block queries for the design-space rules.
#include "search/space/block_info.h"

#include <algorithm>
#include <unordered_set>

#include "ir/functor.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

void PostOrder(const ScheduleState& state, int block, std::vector<std::string>& out) {
  for (int child : state.ChildBlocks(block)) PostOrder(state, child, out);
  out.push_back(state.entry(block).block()->name);
}

// Intrinsics worth computing once rather than in every consumer iteration (MetaSchedule
// keeps exp; the other transcendental functions cost as much).
bool IsExpensive(const std::string& op) {
  static const std::unordered_set<std::string> kOps = {
      "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "tanh", "sigmoid",
      "erf", "pow",  "sin",   "cos", "tan",  "asin",  "acos",  "atan", "atan2"};
  return kOps.count(op) > 0;
}

class BodyScan : public IRVisitor {
 public:
  bool expensive = false;
  bool select = false;
  void VisitExpr_(const CallNode* op) override {
    if (IsExpensive(op->op)) expensive = true;
    IRVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const SelectNode* op) override {
    select = true;
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    select = true;
    IRVisitor::VisitStmt_(op);
  }
};

BodyScan Scan(const BlockNode* block) {
  BodyScan scan;
  scan.VisitStmt(block->body);
  if (block->init.defined()) scan.VisitStmt(block->init);
  return scan;
}

int64_t ExtentOf(const BlockNode* block, IterKind kind) {
  int64_t product = 1;
  for (const IterVar& iv : block->iter_vars) {
    if (iv.kind != kind) continue;
    auto extent = AsConstInt(iv.dom.extent);
    if (!extent) return -1;
    product *= *extent;
  }
  return product;
}

}  // namespace

std::vector<std::string> BlocksInPostOrder(const ScheduleState& state) {
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(state.size()); ++i) {
    if (state.entry(i).realize() && state.ScopeOf(i) < 0) PostOrder(state, i, out);
  }
  return out;
}

bool IsRootBlock(const ScheduleState& state, int block) { return state.ScopeOf(block) < 0; }

bool IsOutputBlock(const ScheduleState& state, int block) {
  for (const BufferRegion& w : state.entry(block).block()->writes) {
    if (IsParamBuffer(state.func(), w.buffer)) return true;
  }
  return false;
}

bool IsSpatialBlock(const BlockNode* block) {
  return std::all_of(block->iter_vars.begin(), block->iter_vars.end(),
                     [](const IterVar& iv) { return iv.kind == IterKind::kSpatial; });
}

bool HasTrivialBinding(const ScheduleState& state, int block) {
  const BlockRealizeNode* realize = state.entry(block).realize();
  std::unordered_set<const VarNode*> loops;
  for (int loop : state.LoopsAbove(block)) loops.insert(state.entry(loop).loop()->loop_var.get());
  std::unordered_set<const VarNode*> used;
  for (const Expr& value : realize->iter_values) {
    if (AsConstInt(value)) continue;
    const auto* var = value.as<VarNode>();
    if (var == nullptr || !loops.count(var) || !used.insert(var).second) return false;
  }
  return true;
}

bool CallsExpensiveIntrinsic(const BlockNode* block) { return Scan(block).expensive; }

bool HasSelect(const BlockNode* block) { return Scan(block).select; }

std::vector<LoopUseKind> LoopUseKinds(const ScheduleState& state, int block) {
  const BlockRealizeNode* realize = state.entry(block).realize();
  std::vector<LoopUseKind> kinds;
  for (int loop : state.LoopsAbove(block)) {
    IterUse use = IterKindsUsing(realize, state.entry(loop).loop()->loop_var.get());
    bool reduce = use.reduce || use.opaque;
    kinds.push_back(use.spatial && reduce ? LoopUseKind::kMixed
                    : use.spatial         ? LoopUseKind::kSpatial
                    : reduce              ? LoopUseKind::kReduce
                                          : LoopUseKind::kUnused);
  }
  return kinds;
}

int64_t SpatialExtent(const BlockNode* block) { return ExtentOf(block, IterKind::kSpatial); }
int64_t ReductionExtent(const BlockNode* block) { return ExtentOf(block, IterKind::kReduce); }

bool NeedsMultiLevelTiling(const ScheduleState& state, int block) {
  const BlockNode* node = state.entry(block).block();
  if (node->annotations.count(kTiledAnnotation)) return false;
  if (node->writes.size() != 1 || node->reads.empty() || IsSpatialBlock(node)) return false;
  if (!HasTrivialBinding(state, block)) return false;
  const BufferNode* written = node->writes[0].buffer.get();
  int unused = 0;
  for (const BufferRegion& read : node->reads) {
    if (read.buffer.get() == written) continue;
    for (const IterVar& iv : node->iter_vars) {
      if (iv.kind != IterKind::kSpatial) continue;
      auto extent = AsConstInt(iv.dom.extent);
      if (extent && *extent == 1) continue;
      bool used = false;
      for (const Range& r : read.region) {
        if (UsesVar(r.min, iv.var.get()) || UsesVar(r.extent, iv.var.get())) used = true;
      }
      if (!used) ++unused;
    }
  }
  return unused >= 1;
}

bool HasElementwiseConsumer(const ScheduleState& state, int index) {
  if (IsOutputBlock(state, index)) return false;
  std::vector<int> consumers = ConsumerBlocks(state, index);
  if (consumers.size() != 1) return false;
  const BlockNode* consumer = state.entry(consumers[0]).block();
  int spatial = 0;
  for (const IterVar& iv : state.entry(index).block()->iter_vars) {
    spatial += iv.kind == IterKind::kSpatial;
  }
  return IsSpatialBlock(consumer) && HasTrivialBinding(state, consumers[0]) &&
         static_cast<int>(consumer->iter_vars.size()) == spatial &&
         state.ScopeOf(consumers[0]) == state.ScopeOf(index);
}

}  // namespace kiln::search
