// Task extraction: a walk of the Relax functions the entry reaches, in binding order.
#include "ir/relax/transform/extract_tasks.h"

#include <algorithm>
#include <unordered_set>

#include "ir/analysis/flop_count.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/structural.h"

namespace kiln::ir::relax::transform {

namespace {

ir::PrimFunc Workload(const ir::PrimFunc& f) {
  if (f->attrs.count(kOpPatternAttr) == 0) return f;
  Annotations attrs = f->attrs;
  attrs.erase(kOpPatternAttr);
  return ir::MakePrimFunc(f->name, f->params, f->buffer_map, f->body, std::move(attrs));
}

std::vector<TaskParam> ParamsOf(const ir::PrimFunc& f) {
  std::vector<TaskParam> out;
  for (const ir::Var& p : f->params) {
    if (std::optional<ir::Buffer> b = f->BufferOf(p)) {
      out.push_back(TaskParam{(*b)->name, (*b)->dtype, (*b)->shape, true});
    } else {
      out.push_back(TaskParam{p.name(), p.dtype(), {}, false});
    }
  }
  return out;
}

class Walker {
 public:
  Walker(const IRModule& module, std::vector<ExtractedTask>& tasks)
      : module_(module), tasks_(tasks) {}

  void VisitFunction(const std::string& name) {
    if (!visited_.insert(name).second) return;
    const Function* f = module_.LookupFunction(name);
    KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR,
               "ExtractTasks: " + name + " is not a Relax function of the module");
    current_ = name;
    Visit((*f)->body);
  }

 private:
  void Visit(const Expr& e) {
    if (!e.defined()) return;
    switch (e.kind()) {
      case ExprKind::kSeqExpr: {
        const auto* s = e.as<SeqExprNode>();
        for (const BindingBlock& b : s->blocks) {
          for (const Binding& x : b.bindings) Visit(x.value);
        }
        Visit(s->body);
        return;
      }
      case ExprKind::kTuple:
        for (const Expr& f : e.as<TupleNode>()->fields) Visit(f);
        return;
      case ExprKind::kTupleGetItem:
        Visit(e.as<TupleGetItemNode>()->tuple);
        return;
      case ExprKind::kCall:
        VisitCall(*e.as<CallNode>());
        return;
      default:
        return;
    }
  }

  void VisitCall(const CallNode& call) {
    for (const Expr& a : call.args) Visit(a);
    if (call.op == "call_tir") {
      AddCallSite(call.args[0].as<GlobalVarNode>()->name);
      return;
    }
    if (const auto* g = call.callee.as<GlobalVarNode>()) {
      std::string caller = current_;
      VisitFunction(g->name);
      current_ = caller;
    }
  }

  void AddCallSite(const std::string& name) {
    const ir::PrimFunc* f = module_.LookupPrimFunc(name);
    KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR,
               "ExtractTasks: function " + current_ + " calls " + name +
                   " with call_tir, but it is not a PrimFunc of the module");
    ir::PrimFunc workload = Workload(*f);
    uint64_t hash = ir::StructuralHash(workload);
    for (ExtractedTask& t : tasks_) {
      if (t.workload_hash == hash && ir::StructuralEqual(t.func, workload)) {
        ++t.weight;
        return;
      }
    }
    tasks_.push_back(
        ExtractedTask{name, workload, hash, 1, EstimateFlops(workload), ParamsOf(workload)});
  }

  const IRModule& module_;
  std::vector<ExtractedTask>& tasks_;
  std::unordered_set<std::string> visited_;
  std::string current_;
};

}  // namespace

std::string TaskParam::ToString() const {
  if (!is_buffer) return dtype.ToString();
  std::string s = dtype.ToString() + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + DimToString(shape[i]);
  return s + "]";
}

std::string ExtractedTask::ShapesString() const {
  std::string s;
  for (size_t i = 0; i < params.size(); ++i) s += (i ? ", " : "") + params[i].ToString();
  return s;
}

std::string ExtractedTask::FlopsString() const {
  if (auto c = AsConstInt(flops)) return std::to_string(*c);
  return DimToString(flops);
}

std::vector<ExtractedTask> ExtractTasks(const IRModule& module, const std::string& entry) {
  std::vector<ExtractedTask> tasks;
  Walker(module, tasks).VisitFunction(entry);
  return tasks;
}

std::string FormatTaskTable(const std::vector<ExtractedTask>& tasks) {
  std::vector<std::vector<std::string>> rows = {{"#", "name", "FLOP", "weight", "shapes"}};
  for (size_t i = 0; i < tasks.size(); ++i) {
    const ExtractedTask& t = tasks[i];
    rows.push_back(
        {std::to_string(i), t.name, t.FlopsString(), std::to_string(t.weight), t.ShapesString()});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string cell = row[c];
      // Numbers align right, text left; the last column is not padded.
      bool numeric = c == 0 || c == 3;
      if (c + 1 == row.size()) {
        line += cell;
      } else if (numeric) {
        line += std::string(width[c] - cell.size(), ' ') + cell + "  ";
      } else {
        line += cell + std::string(width[c] - cell.size(), ' ') + "  ";
      }
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
