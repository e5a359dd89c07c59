// Helpers shared by the schedule primitives: variable substitution, statement rebuilding,
// small constant arithmetic that keeps printed bindings readable, and the checks and error
// messages that several primitives need.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/arith/const_fold.h"
#include "ir/function.h"
#include "ir/substitute.h"
#include "search/schedule/state.h"

namespace kiln::search {

// Substitution and variable uses (ir/substitute.h); folding sums and products
// (ir/arith/const_fold.h).
using ir::Substitute;
using ir::UsesAnyVar;
using ir::UsesVar;
using ir::VarMap;
using ir::arith::FoldAdd;
using ir::arith::FoldMul;

// a && b folding `true`; an undefined side (no predicate yet) is `true`.
ir::Expr AndFold(const ir::Expr& a, const ir::Expr& b);

// Copies of nodes with one field changed.
ir::Stmt ForWithBody(const ir::ForNode* loop, ir::Stmt body);
ir::Stmt ForWithKind(const ir::ForNode* loop, ir::ForKind kind, std::string thread_tag);
ir::Stmt ForWithAnnotations(const ir::ForNode* loop, ir::Annotations annotations);
ir::Stmt RealizeWith(const ir::BlockRealizeNode* realize, std::vector<ir::Expr> iter_values,
                     ir::Expr predicate, ir::Stmt block);
std::shared_ptr<ir::BlockNode> CopyBlock(const ir::BlockNode* block);

// "loop i_0", "block \"C\"": how errors name things.
std::string LoopLabel(const ir::ForNode* loop);
std::string BlockLabel(const ir::BlockNode* block);

// A storage scope is a non-empty name of letters, digits, '_' and '.' ("global", "shared.dyn",
// "wmma.matrix_a"); anything else is a kiln::Error(kSchedule) naming the primitive `what`.
void CheckStorageScope(const std::string& scope, const std::string& what);

// The constant extent of a loop, or a kiln::Error(kSchedule) saying `what` needs one.
int64_t ConstExtent(const ir::ForNode* loop, const std::string& what);

// Which kinds of iterations of a block a loop feeds: the walk over a block realize's
// bindings that parallel, vectorize, reorder and rfactor each need (may the loop run in
// parallel, is it a reduction loop, is it mixed).
struct IterUse {
  bool spatial = false;
  bool reduce = false;
  bool opaque = false;
  bool any() const { return spatial || reduce || opaque; }
  bool only_spatial() const { return spatial && !reduce && !opaque; }
};
IterUse IterKindsUsing(const ir::BlockRealizeNode* realize, const ir::VarNode* loop_var);

// The blocks under `loop` whose iter values use its var, with what they use it for.
struct LoopUse {
  const ir::BlockRealizeNode* realize;
  IterUse use;
};
std::vector<LoopUse> BlocksUsingLoop(const ScheduleState& state, int loop_index);

// Buffers a block reads or writes (by its declared regions).
bool BlockReads(const ir::BlockNode* block, const ir::Buffer& buffer);
bool BlockWrites(const ir::BlockNode* block, const ir::Buffer& buffer);
// The `index`-th read (or written) region of `block`; a kiln::Error(kSchedule) that names the
// block and the primitive `what` when there is none.
const ir::BufferRegion& BufferRegionAt(const ir::BlockNode* block, bool writes, int index,
                                       const std::string& what);

}  // namespace kiln::search

namespace kiln::search {

// The ancestor of `entry` whose parent is `scope` (the stage of the scope holding it).
int StageOf(const ScheduleState& state, int entry, int scope);
// The highest loop above `block` that holds nothing but it (or the block realize itself):
// removing it removes exactly the block and its own loops.
int RemovalRoot(const ScheduleState& state, int block);

// True when the entry's statement is an element of a sequence (so it can be removed).
bool IsInSequence(const ScheduleState& state, int entry);

using BufferMap = std::unordered_map<const ir::BufferNode*, ir::Buffer>;
// Replaces buffers in loads, stores, block regions and allocations.
ir::Stmt ReplaceBuffers(const ir::Stmt& s, const BufferMap& map);

// True when `buffer` is a parameter of the function.
bool IsParamBuffer(const ir::PrimFunc& f, const ir::Buffer& buffer);

// A copy of the block realize `realize` with its block's reads and writes recomputed from
// its body (after a primitive rewrote the accesses).
ir::Stmt WithDetectedRegions(const ir::BlockRealizeNode* realize, const ir::BlockNode& block);

// `nest` (about to replace the statement at `index`) with the iter values and predicates of
// its block realizes simplified, knowing the ranges of the loops above `index` and of those in
// `nest`. A split of a fused loop then binds i to f_0 rather than (f_0 * 16 + f_1) // 16,
// which keeps the regions compute_at relaxes tight and the printed function readable.
ir::Stmt SimplifyBindings(const ScheduleState& state, int index, const ir::Stmt& nest);

// The scope block with `alloc` added to (or, when remove is set, removed from) its
// allocations and its body replaced by `body`.
ir::Stmt RebuildScope(const ir::BlockRealizeNode* scope, ir::Stmt body,
                      const std::vector<ir::Buffer>& add, const ir::Buffer& remove);

}  // namespace kiln::search
