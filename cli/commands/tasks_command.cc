// `tune tasks MODEL [--func NAME]`: the tuning tasks of a model (ONNX or Relax TVMScript; the
// entry function chosen as model_input.h says). It runs the
// pipeline that prepares a model for tuning (legalize every op into TensorIR, fold constants,
// fuse) and extracts one task per distinct kernel, and prints the table: name, FLOP count
// (symbolic when the model's shapes are), weight (call sites) and parameter shapes.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "ir/frontend/onnx/sparse_attention_mode.h"
#include "ir/model/model_file.h"
#include "ir/relax/expr_functor.h"
#include "ir/relax/text/printer.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "ir/text/printer.h"

namespace kiln::cli {
namespace {

using ir::relax::transform::ExtractedTask;

struct TasksOptions {
  std::string model;
  std::string func;
  std::vector<std::string> dims;
  std::vector<std::string> show;
  bool json = false;
  bool print = false;
  std::string dialect;
  std::string winograd = "off";
  std::string sparse_attention = "auto";
};

// Op calls (not call_tir, call_dps_packed or function calls) in the module's Relax functions:
// the graph's size before legalization and fusion.
int CountOpCalls(const ir::relax::IRModule& module) {
  struct Counter : ir::relax::ExprVisitor {
    using ExprVisitor::VisitExpr_;
    void VisitExpr_(const ir::relax::CallNode* op) override {
      if (!op->op.empty() && op->op != "call_tir" && op->op != "call_dps_packed") ++count;
      ExprVisitor::VisitExpr_(op);
    }
    int count = 0;
  } counter;
  for (const std::string& name : module.names()) {
    if (const auto* func = module.LookupFunction(name)) counter.VisitExpr(*func);
  }
  return counter.count;
}

nlohmann::json TaskJson(size_t index, const ExtractedTask& task) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& param : task.params) params.push_back(param.ToString());
  nlohmann::json out = {{"index", index},
                        {"name", task.name},
                        {"hash", ir::StructuralHashHex(task.func)},
                        {"weight", task.weight},
                        {"flops", task.FlopsString()},
                        {"params", params}};
  if (auto flops = ir::AsConstInt(task.flops)) out["flops_value"] = *flops;
  return out;
}

}  // namespace

Command RegisterTasksCommand(CLI::App& parent) {
  auto options = std::make_shared<TasksOptions>();
  CLI::App* app = parent.add_subcommand(
      "tasks", "List the tuning tasks of a model (.onnx or Relax .relax): name, FLOP, weight");
  app->add_option("model", options->model, "an ONNX file or a Relax TVMScript module")->required();
  app->add_option("--dim", options->dims,
                  "bind a named dimension of the ONNX inputs (dim_param), NAME=VALUE");
  app->add_option("--func", options->func,
                  "the Relax function that is the model (default: the only public one, else main)");
  app->add_option("--show", options->show, "print the TensorIR of the task with this name");
  AddImportOptions(app, &options->winograd, &options->sparse_attention);
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  app->add_flag("--print", options->print,
                "print the model as Kiln read it, a Relax module in TVMScript (in --dialect), "
                "before the table");
  AddDialectOption(app, &options->dialect);
  return {app, [options]() {
            ir::frontend::onnx::ScopedSparseAttentionMode sparse_attention(
                *ir::frontend::onnx::ParseSparseAttentionMode(options->sparse_attention));
            ir::model::ModelInput input =
                ir::model::LoadModel(options->model, ParseDims(options->dims), options->func);
            if (options->print) {
              ir::relax::PrintOptions print_options;
              print_options.dialect = DialectPrintOptions(options->dialect).dialect;
              std::cout << ir::relax::PrintModule(input.module, print_options) << "\n";
            }
            int op_calls = CountOpCalls(input.module);
            ir::relax::transform::PipelineOptions pipeline;
            pipeline.winograd.mode = *ir::relax::transform::ParseWinogradMode(options->winograd);
            ir::relax::IRModule prepared =
                ir::relax::transform::PrepareModuleForTuning(input.module, pipeline);
            std::vector<ExtractedTask> tasks =
                ir::relax::transform::ExtractTasks(prepared, input.entry);
            int64_t call_sites = 0;
            for (const ExtractedTask& task : tasks) call_sites += task.weight;
            for (const std::string& name : options->show) {
              bool found = false;
              for (const ExtractedTask& task : tasks) {
                if (task.name != name) continue;
                std::cout << ir::PrintPrimFunc(task.func, DialectPrintOptions(options->dialect))
                          << "\n";
                found = true;
              }
              KILN_CHECK(found, ErrorKind::kParse,
                         "--show " + name + ": the model has no such task");
            }
            if (options->json) {
              nlohmann::json out = {{"model", options->model},
                                    {"format", input.format},
                                    {"func", input.entry},
                                    {"ops", op_calls},
                                    {"kernel_calls", call_sites},
                                    {"num_tasks", tasks.size()},
                                    {"tasks", nlohmann::json::array()}};
              for (size_t i = 0; i < tasks.size(); ++i) {
                out["tasks"].push_back(TaskJson(i, tasks[i]));
              }
              std::cout << out.dump() << "\n";
            } else {
              std::cout << options->model << ": " << op_calls << " ops, " << call_sites
                        << " kernel calls after fusion, " << tasks.size() << " tasks\n"
                        << ir::relax::transform::FormatTaskTable(tasks);
            }
            return 0;
          }};
}

}  // namespace kiln::cli
