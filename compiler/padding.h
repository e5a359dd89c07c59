// Which symbolic dims of a model may be padded: running the model at a larger value of the dim
// (inputs zero-padded along it, outputs cut back) gives exactly the outputs at the smaller one.
// That holds when every element along the dim is computed from the same position of the
// inputs alone: row i of every value depends on row i of the inputs and on nothing that
// depends on the dim's value. The artifact's executor then serves a call whose dim falls
// between buckets with the next larger bucket's tuned kernels (runtime/model/executor.h).
//
// The proof is made on the symbolic model (the fallback), kernel by kernel on the TensorIR the
// operators legalized to, so each operator decides by what it computes: a dim is refused when
// some block reduces over it (a sum, a softmax or a layer norm over the axis, a matmul whose
// inner dim it is), reads along it at another position than the one it writes (a convolution's
// or a pooling window, a slice, a gather, a shift), uses its value in arithmetic (a mean that
// divides by it) or folds it with another axis (a reshape to n * 768). Batch dims of MLPs,
// CNNs and encoders pass; a sequence dim under attention, and image sizes under convolutions,
// do not. A model whose mask makes padding harmless is not recognised as such.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/relax/module.h"

namespace kiln::compiler {

struct PaddingAnalysis {
  std::vector<std::string> paddable;           // the entry's symbolic dims that may be padded
  std::map<std::string, std::string> why_not;  // the others, with the first reason found
};

// `module` must have been through ir::relax::transform::PrepareModuleForTuning: the entry
// function calls PrimFuncs with call_tir. Never throws for an unsupported construct: that dim
// is simply not paddable, and why_not says why.
PaddingAnalysis AnalyzePadding(const ir::relax::IRModule& module, const std::string& entry);

}  // namespace kiln::compiler
