// How one task is compiled and the graph steps one call of it makes: its kernel; or, for a
// matmul task that takes the library (matmul_task.h), a call of the library function writing
// the product (an intermediate value of the graph, so the memory planner places it) and then
// the epilogue kernel, or the library call alone when the matmul is the whole task. Shared by
// the model's lowering (lower_graph.h) and the compiler's timing of both variants
// (library_choice.h), so that what is timed is what runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/matmul_task.h"
#include "runtime/model/graph.h"

namespace kiln::compiler {

// How each task is compiled: a view, or a kernel of the graph (index into the graph's
// kernels), or a library call (`library`, a graph kernel naming the function) followed by
// the epilogue kernel `kernel` (-1 when the matmul is the whole task).
struct TaskLowering {
  bool view = false;
  int64_t kernel = -1;
  int64_t library = -1;
  std::optional<MatmulTask> matmul;  // set with `library`
};

// The parameters some block of `f` writes, in order: a task's outputs.
std::vector<int> WrittenParams(const ir::PrimFunc& f);

// The graph kernel of a matmul library call for `task`: three float32 buffers (A, B, C).
runtime::model::GraphKernel MatmulLibraryKernel(const std::string& function,
                                                const std::string& task, const MatmulTask& matmul);

// Appends the steps of one call: `args` holds one argument per task parameter, outputs
// included (then any scalar arguments), `outputs` the values the call writes; `name` names
// the product value. kiln::Error(kInternal) when `how` is not a kernel or library lowering.
void AppendTaskCall(runtime::model::Graph& graph, const TaskLowering& how,
                    std::vector<runtime::model::StepArg> args, std::vector<int64_t> outputs,
                    const std::string& name);

}  // namespace kiln::compiler
