// One step, or a library step and an epilogue step with the product between them.
#include "compiler/task_steps.h"

#include <map>
#include <set>

#include "ir/functor.h"
#include "support/error.h"

namespace kiln::compiler {

using runtime::model::DimExpr;
using runtime::model::GraphValue;
using runtime::model::Step;
using runtime::model::StepArg;

std::vector<int> WrittenParams(const ir::PrimFunc& f) {
  std::map<const ir::BufferNode*, int> param_of;
  for (size_t p = 0; p < f->params.size(); ++p) {
    if (std::optional<ir::Buffer> b = f->BufferOf(f->params[p])) {
      param_of[b->get()] = static_cast<int>(p);
    }
  }
  struct Writes : ir::IRVisitor {
    using IRVisitor::VisitStmt_;
    void VisitStmt_(const ir::BlockNode* op) override {
      for (const ir::BufferRegion& w : op->writes) buffers.insert(w.buffer.get());
      IRVisitor::VisitStmt_(op);
    }
    std::set<const ir::BufferNode*> buffers;
  } writes;
  writes.VisitStmt(f->body);
  std::set<int> written;
  for (const ir::BufferNode* b : writes.buffers) {
    if (auto it = param_of.find(b); it != param_of.end()) written.insert(it->second);
  }
  return {written.begin(), written.end()};
}

runtime::model::GraphKernel MatmulLibraryKernel(const std::string& function,
                                                const std::string& task, const MatmulTask& matmul) {
  runtime::model::GraphKernel k;
  k.symbol = function;
  k.task = task;
  k.library = function;
  k.attrs = {{"trans_a", matmul.trans_a ? 1 : 0}, {"trans_b", matmul.trans_b ? 1 : 0}};
  const char* names[] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    codegen::ArgSlot slot;
    slot.kind = codegen::SlotKind::kBufferData;
    slot.name = names[i];
    slot.dtype = ir::DataType::Float(32);
    slot.param_index = i;
    k.slots.push_back(slot);
  }
  return k;
}

void AppendTaskCall(runtime::model::Graph& graph, const TaskLowering& how,
                    std::vector<StepArg> args, std::vector<int64_t> outputs,
                    const std::string& name) {
  KILN_CHECK(!how.view && (how.kernel >= 0 || how.library >= 0), ErrorKind::kInternal,
             "compile: " + name + ": a task lowered to no kernel");
  if (how.library < 0) {
    Step step;
    step.kernel = how.kernel;
    step.args = std::move(args);
    step.outputs = std::move(outputs);
    graph.steps.push_back(std::move(step));
    return;
  }
  const MatmulTask& m = how.matmul.value();
  auto value_of = [&](int param) {
    KILN_CHECK(param >= 0 && static_cast<size_t>(param) < args.size() && args[param].value >= 0,
               ErrorKind::kInternal,
               "compile: " + name + ": parameter " + std::to_string(param) + " is not a tensor");
    return args[param].value;
  };
  Step library;
  library.kernel = how.library;
  library.args = {args[m.a_param], args[m.b_param]};
  if (m.output_param >= 0) {
    library.args.push_back(args[m.output_param]);
    library.outputs = {value_of(m.output_param)};
    graph.steps.push_back(std::move(library));
    return;
  }
  GraphValue product;
  product.name = name + ".product";
  product.kind = runtime::model::ValueKind::kKernelOutput;
  product.dtype = ir::DataType::Float(32);
  for (const ProductDim& d : m.product_dims) {
    product.shape.push_back(d.param < 0 ? DimExpr::Const(d.value)
                                        : graph.values[value_of(d.param)].shape.at(d.dim));
  }
  graph.values.push_back(std::move(product));
  int64_t product_id = static_cast<int64_t>(graph.values.size()) - 1;
  StepArg product_arg;
  product_arg.value = product_id;
  library.args.push_back(product_arg);
  library.outputs = {product_id};
  graph.steps.push_back(std::move(library));
  // The epilogue takes the task's parameters, then the product (epilogue.h).
  Step epilogue;
  epilogue.kernel = how.kernel;
  epilogue.args = std::move(args);
  epilogue.outputs = std::move(outputs);
  graph.steps.push_back(std::move(epilogue));
  graph.steps.back().args.push_back(product_arg);
}

}  // namespace kiln::compiler
