// PlanCompileVariants: which graphs an artifact of a model holds, as `tune compile` and the
// Python package's kiln.compile decide it. The first is the model with only the given dims
// bound (graph.json: correct at every value of the others, its kernels untuned where a dim
// stays symbolic); then, when dims stay free and the compile is not asked to stay symbolic,
// the specialisations `tune run` tuned (each bucket point, or the free dims bound to their
// default), each labelled by the dims it binds beyond the given ones.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/model/model_tasks.h"

namespace kiln::compiler {

struct CompileVariantPlan {
  std::vector<CompileVariant> variants;  // graph.json's first
  std::vector<std::string> free_dims;    // symbolic in graph.json
  // Free dims left symbolic only (no specialisation): not asked to specialise, or asked not to.
  bool symbolic_only = false;
  // The dims bound to the default value ("seq_len=128", ModelTasks::DefaultedText); empty
  // when every free dim was given or bucketed.
  std::string defaulted;
};

// `options.dims`, `default_dim`, `buckets` and `func` as `tune run` took them; `symbolic`: only
// graph.json. Throws kiln::Error as ir::model::ExtractModelTasks does.
CompileVariantPlan PlanCompileVariants(const std::string& model_name, const std::string& bytes,
                                       const ir::model::ModelTaskOptions& options, bool symbolic);

}  // namespace kiln::compiler
