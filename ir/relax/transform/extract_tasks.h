// ExtractTasks: the tuning tasks of a model, as MetaSchedule's extract_tasks: one task per
// structurally distinct PrimFunc that the entry function reaches with call_tir (directly or
// through the Relax functions it calls), deduplicated by ir::StructuralHash and
// StructuralEqual, so two identical layers make one task. A task's weight is its number of call
// sites in the Relax functions reached (each function counted once, however often it is
// called: TVM's definition, which the task scheduler uses to share the budget). Tasks are in
// the order of their first call.
//
// The workload is the PrimFunc without its "op_pattern" attribute, which only guides fusion:
// a kernel hashes the same whether or not AnnotateTIROpPattern ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

// One parameter of a task's function: a buffer (dtype and shape, dims possibly symbolic) or a
// scalar.
struct TaskParam {
  std::string name;
  DataType dtype;
  std::vector<PrimExpr> shape;
  bool is_buffer = true;
  // "float32[n, 768]" for a buffer, "int64" for a scalar.
  std::string ToString() const;
};

struct ExtractedTask {
  std::string name;        // the PrimFunc's name at its first call
  ir::PrimFunc func;       // the representative workload
  uint64_t workload_hash;  // ir::StructuralHash(func)
  int64_t weight;          // call sites
  PrimExpr flops;          // one call's operation count (ir::EstimateFlops): symbolic or IntImm
  std::vector<TaskParam> params;
  // The parameters joined by ", ".
  std::string ShapesString() const;
  // The FLOP count as text: "1572864" or "n * 24576".
  std::string FlopsString() const;
};

// Throws kiln::Error(kInvalidIR) when `entry` is not a Relax function of the module or a
// call_tir names no PrimFunc.
std::vector<ExtractedTask> ExtractTasks(const IRModule& module, const std::string& entry = "main");

// The table `tune tasks` prints: one row per task (index, name, FLOP, weight, shapes) under a
// header, columns aligned.
std::string FormatTaskTable(const std::vector<ExtractedTask>& tasks);

}  // namespace kiln::ir::relax::transform
