// Parallelism primitives: parallel, vectorize, unroll and bind change a loop's kind. A loop
// that carries a reduction cannot run its iterations at once, so parallel, vectorize and
// binding to a block axis require that every block binds the loop to spatial iterations only.
#include <array>

#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

const char* PrimitiveName(ForKind kind) {
  switch (kind) {
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorize";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "bind";
    default:
      return "set loop kind";
  }
}

bool IsThreadAxis(const std::string& tag) {
  static const std::array<const char*, 9> kAxes = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                                   "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                                   "vthread.x",   "vthread.y",   "vthread.z"};
  for (const char* axis : kAxes) {
    if (tag == axis) return true;
  }
  return tag == "vthread";
}

}  // namespace

void SetLoopKind(ScheduleState& state, int loop_index, ForKind kind, const std::string& thread) {
  const ForNode* loop = state.entry(loop_index).loop();
  const std::string what = PrimitiveName(kind);
  KILN_CHECK(loop->for_kind == ForKind::kSerial, ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is already " + ForKindName(loop->for_kind));
  if (kind == ForKind::kThreadBinding) {
    KILN_CHECK(
        IsThreadAxis(thread), ErrorKind::kSchedule,
        "bind: \"" + thread + "\" is not a thread axis (blockIdx.x, threadIdx.y, vthread.z, ...)");
  }
  // Threads of one block may cooperate on a reduction; nothing else may run one in parallel.
  bool reduction_ok = kind == ForKind::kUnrolled ||
                      (kind == ForKind::kThreadBinding && thread.rfind("threadIdx", 0) == 0);
  if (!reduction_ok) {
    for (const LoopUse& use : BlocksUsingLoop(state, loop_index)) {
      if (use.use.only_spatial()) continue;
      // Name the first offending iteration.
      const BlockNode* block = use.realize->block_node();
      for (size_t i = 0; i < use.realize->iter_values.size(); ++i) {
        KILN_CHECK(block->iter_vars[i].kind == IterKind::kSpatial ||
                       !UsesVar(use.realize->iter_values[i], loop->loop_var.get()),
                   ErrorKind::kSchedule,
                   what + ": " + LoopLabel(loop) + " is bound to the " +
                       IterKindName(block->iter_vars[i].kind) + " iteration " +
                       block->iter_vars[i].var.name() + " of " + BlockLabel(block));
      }
    }
  }
  state.Replace(loop, ForWithKind(loop, kind, kind == ForKind::kThreadBinding ? thread : ""));
}

}  // namespace kiln::search
