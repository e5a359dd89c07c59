// What the design-space rules ask about a block before they schedule it: where it sits
// (root, output), what it computes (spatial or a reduction, expensive intrinsics, selects)
// and how its iterations bind to the loops above it. Read-only queries on a Schedule.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"
#include "search/schedule/schedule.h"

namespace kiln::search {

// Every block of the function by name, children before their parent (the root block last),
// siblings in program order: the order in which MetaSchedule's PostOrderApply visits them.
std::vector<std::string> BlocksInPostOrder(const ScheduleState& state);

// The block has no enclosing block.
bool IsRootBlock(const ScheduleState& state, int block);
// The block writes a parameter buffer of the function (an output of the kernel).
bool IsOutputBlock(const ScheduleState& state, int block);
// Every iteration of the block is spatial (no reduction).
bool IsSpatialBlock(const ir::BlockNode* block);
// Each iter value is one of the loops directly above the block (in any order) or a constant,
// no loop bound twice: the loops are the block's iteration space as written.
bool HasTrivialBinding(const ScheduleState& state, int block);
// The block's body calls one of the intrinsics that are too costly to recompute (exp, tanh,
// ...: every intrinsic the interpreter marks as floating point, except fabs and abs).
bool CallsExpensiveIntrinsic(const ir::BlockNode* block);
// The block's body selects between values (padding, masks): inlining it puts a branch in its
// consumer's inner loop.
bool HasSelect(const ir::BlockNode* block);

// How a loop above a block is used by its bindings.
enum class LoopUseKind { kSpatial, kReduce, kMixed, kUnused };
// One entry per loop above `block` (outermost first): whether the block binds it to spatial
// iterations only, reduction iterations only, both or none.
std::vector<LoopUseKind> LoopUseKinds(const ScheduleState& state, int block);

// The product of the constant extents of the block's spatial (or reduction) iter vars; -1
// when one of them is not constant.
int64_t SpatialExtent(const ir::BlockNode* block);
int64_t ReductionExtent(const ir::BlockNode* block);

// MetaSchedule's test for multi-level tiling: a reduction block with one written buffer and
// a trivial binding, with an operand that some spatial iteration does not index (data
// reuse that a tile can exploit), and not already tiled.
bool NeedsMultiLevelTiling(const ScheduleState& state, int block);

// The block writes an intermediate that exactly one block of its scope reads, elementwise: a
// spatial block with a trivial binding over as many iterations as `block` has spatial ones
// (a bias, an activation), which a tiling rule may use as its write cache.
bool HasElementwiseConsumer(const ScheduleState& state, int block);

// The block annotation rules leave on a block they tiled, so that later rules leave it be.
inline constexpr char kTiledAnnotation[] = "meta_schedule.tiling_structure";

}  // namespace kiln::search
