// Lowering the entry Relax function of a fused module (the tuning pipeline's output) to the
// artifact's graph (runtime/model/graph.h): parameters become inputs, constants are packed
// into constants.bin at 64-byte aligned offsets, each call_tir becomes a step of its task's
// kernel (or library call and epilogue, task_steps.h) or, for a task that only re-views
// memory, a view of its argument; aliases, tuples and
// tuple items are resolved at compile time; a match_cast is a view of its value whose shape the
// executor checks when it plans (graph.h). Anything else (a call of another Relax function, a
// packed call, shape computations at run time) is kiln::Error(kUnsupported) naming the binding.
#pragma once

#include <string>
#include <vector>

#include "compiler/task_steps.h"
#include "ir/relax/module.h"
#include "ir/relax/transform/extract_tasks.h"
#include "runtime/model/graph.h"

namespace kiln::compiler {

struct LoweredGraph {
  runtime::model::Graph graph;
  std::string constants;  // constants.bin
};

LoweredGraph LowerEntryFunction(const ir::relax::IRModule& module, const std::string& entry,
                                const std::vector<ir::relax::transform::ExtractedTask>& tasks,
                                const std::vector<TaskLowering>& lowering,
                                const std::vector<runtime::model::GraphKernel>& kernels);

// `e` as a graph dim: integer constants, shape variables (by name) and + - * floordiv floormod
// min max of those. kiln::Error(kUnsupported) showing the expression otherwise.
runtime::model::DimExpr ToDimExpr(const ir::relax::PrimExpr& e);

}  // namespace kiln::compiler
