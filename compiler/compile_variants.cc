// PlanCompileVariants: the fallback graph, then the specialisations tune run tuned.
#include "compiler/compile_variants.h"

#include <utility>

#include "ir/model/model_file.h"
#include "ir/relax/transform/pipeline.h"

namespace kiln::compiler {

CompileVariantPlan PlanCompileVariants(const std::string& model_name, const std::string& bytes,
                                       const ir::model::ModelTaskOptions& options, bool symbolic) {
  CompileVariantPlan plan;
  ir::model::ModelInput input =
      ir::model::LoadModelBytes(model_name, bytes, options.dims, options.func);
  plan.free_dims = ir::model::EntrySymbolicDims(input.module, input.entry);
  ir::relax::IRModule prepared =
      ir::relax::transform::PrepareModuleForTuning(input.module, options.pipeline);
  plan.variants.push_back({"", {}, std::move(prepared), input.entry});
  if (plan.free_dims.empty()) return plan;
  if (symbolic || (options.dims.empty() && options.buckets.empty())) {
    plan.symbolic_only = true;
    return plan;
  }
  ir::model::ModelTaskOptions specialise = options;
  specialise.keep_modules = true;
  ir::model::ModelTasks tasks = ir::model::ExtractModelTasks(model_name, bytes, specialise);
  for (ir::model::SpecializedBucket& b : tasks.buckets) {
    std::map<std::string, int64_t> bound;
    std::string label;
    for (const auto& [dim, value] : b.bound) {
      if (options.dims.count(dim) != 0) continue;
      bound[dim] = value;
      label += (label.empty() ? "" : ",") + dim + "=" + std::to_string(value);
    }
    plan.variants.push_back({label, bound, std::move(b.module), tasks.entry});
  }
  if (!tasks.defaulted.empty()) plan.defaulted = tasks.DefaultedText();
  return plan;
}

}  // namespace kiln::compiler
