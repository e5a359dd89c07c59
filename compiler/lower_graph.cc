// One pass over the entry function's bindings.
#include "compiler/lower_graph.h"

#include <cstring>
#include <map>
#include <set>

#include "ir/expr.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/structural.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

using runtime::model::DimExpr;
using runtime::model::GraphValue;
using runtime::model::ValueKind;
namespace relax = ir::relax;

// The workload ExtractTasks hashes: the PrimFunc without its fusion-only attribute.
ir::PrimFunc Workload(const ir::PrimFunc& f) {
  if (f->attrs.count(relax::transform::kOpPatternAttr) == 0) return f;
  ir::Annotations attrs = f->attrs;
  attrs.erase(relax::transform::kOpPatternAttr);
  return ir::MakePrimFunc(f->name, f->params, f->buffer_map, f->body, std::move(attrs));
}

void CollectVars(const DimExpr& e, std::set<std::string>& out) {
  if (e.op == DimExpr::Op::kVar) out.insert(e.var);
  for (const DimExpr& o : e.operands) CollectVars(o, out);
}

// A value bound to a Relax variable: one graph value or a tuple of them.
struct Bound {
  std::vector<int64_t> ids;
  bool tuple = false;
};

class Lowerer {
 public:
  Lowerer(const relax::IRModule& module, const std::vector<relax::transform::ExtractedTask>& tasks,
          const std::vector<TaskLowering>& lowering)
      : module_(module), tasks_(tasks), lowering_(lowering) {}

  LoweredGraph Run(const std::string& entry,
                   const std::vector<runtime::model::GraphKernel>& kernels) {
    const relax::Function* f = module_.LookupFunction(entry);
    KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR, "compile: no Relax function " + entry);
    out_.graph.kernels = kernels;
    for (const relax::Var& p : (*f)->params) {
      binding_ = "parameter " + p.name();
      int64_t id = AddValue(p.name(), ValueKind::kInput, p.struct_info());
      out_.graph.values[id].input_index = static_cast<int64_t>(out_.graph.inputs.size());
      out_.graph.inputs.push_back(id);
      vars_[p.get()] = {{id}, false};
    }
    const auto* seq = (*f)->body.as<relax::SeqExprNode>();
    KILN_CHECK(seq != nullptr, ErrorKind::kUnsupported,
               "compile: function " + entry + " has no binding blocks (SeqExpr body expected)");
    for (const relax::BindingBlock& block : seq->blocks) {
      for (const relax::Binding& b : block.bindings) {
        binding_ = "binding " + b.var.name();
        vars_[b.var.get()] = b.is_match_cast() ? MatchCast(b) : Eval(b.value, b.var.name());
      }
    }
    binding_ = "the returned value";
    Bound result = Eval(seq->body, "output");
    KILN_CHECK(!result.ids.empty(), ErrorKind::kUnsupported,
               "compile: function " + entry + " returns no tensor");
    out_.graph.outputs = result.ids;
    out_.graph.tuple_output = result.tuple;
    std::set<std::string> dims;
    for (const GraphValue& v : out_.graph.values) {
      for (const DimExpr& d : v.shape) CollectVars(d, dims);
    }
    out_.graph.dims.assign(dims.begin(), dims.end());
    return std::move(out_);
  }

 private:
  // A match_cast is a view of its value with the cast's shape, checked when the executor
  // plans (graph.h). A dim the pattern introduces (a new shape variable, as a whole dim) is
  // the value's dim from then on.
  Bound MatchCast(const relax::Binding& b) {
    Bound source = Eval(b.value, b.var.name());
    KILN_CHECK(!source.tuple && source.ids.size() == 1, ErrorKind::kUnsupported,
               "compile: " + binding_ + ": match_cast of a tuple is not supported");
    const GraphValue& from = out_.graph.values[source.ids[0]];
    const auto* pattern = b.pattern.as<relax::TensorStructInfoNode>();
    KILN_CHECK(pattern != nullptr && pattern->shape && pattern->shape->size() == from.shape.size(),
               ErrorKind::kUnsupported,
               "compile: " + binding_ + ": match_cast to " + b.pattern.ToString() +
                   ": a tensor pattern of the value's rank expected");
    for (size_t d = 0; d < pattern->shape->size(); ++d) {
      const auto* v = (*pattern->shape)[d].as<ir::VarNode>();
      if (v != nullptr && !known_dims_.count(v->name) && !aliases_.count(v->name)) {
        aliases_[v->name] = from.shape[d];
      }
    }
    int64_t id = AddValue(b.var.name(), ValueKind::kView, b.pattern);
    out_.graph.values[id].source = source.ids[0];
    out_.graph.values[id].check = b.note.empty() ? "match_cast of " + b.var.name() : b.note;
    return {{id}, false};
  }

  // `d` with the dims a match_cast introduced replaced by what they stand for.
  DimExpr Resolve(DimExpr d) const {
    if (d.op == DimExpr::Op::kVar) {
      auto it = aliases_.find(d.var);
      return it == aliases_.end() ? d : it->second;
    }
    for (DimExpr& o : d.operands) o = Resolve(o);
    return d;
  }

  int64_t AddValue(const std::string& name, ValueKind kind, const relax::StructInfo& sinfo) {
    const auto* t = sinfo.as<relax::TensorStructInfoNode>();
    KILN_CHECK(t != nullptr && t->shape && !t->unknown_dtype(), ErrorKind::kUnsupported,
               "compile: " + binding_ + ": a tensor of known shape and dtype expected, got " +
                   sinfo.ToString());
    GraphValue v;
    v.name = name;
    v.kind = kind;
    v.dtype = t->dtype;
    for (const relax::PrimExpr& d : *t->shape) {
      v.shape.push_back(Resolve(ToDimExpr(d)));
      if (kind == ValueKind::kInput) CollectVars(v.shape.back(), known_dims_);
    }
    out_.graph.values.push_back(std::move(v));
    return static_cast<int64_t>(out_.graph.values.size()) - 1;
  }

  int64_t AddConstant(const relax::ConstantNode* c) {
    auto it = constants_.find(c);
    if (it != constants_.end()) return it->second;
    int64_t id = AddValue("const" + std::to_string(out_.graph.constants.size()),
                          ValueKind::kConstant, c->struct_info);
    std::string& bytes = out_.constants;
    bytes.append((64 - bytes.size() % 64) % 64, '\0');
    runtime::model::ConstantRef ref{bytes.size(), c->data.nbytes()};
    bytes.append(static_cast<const char*>(c->data.data()), c->data.nbytes());
    out_.graph.values[id].constant_index = static_cast<int64_t>(out_.graph.constants.size());
    out_.graph.constants.push_back(ref);
    constants_[c] = id;
    return id;
  }

  Bound Eval(const relax::Expr& e, const std::string& name) {
    switch (e.kind()) {
      case relax::ExprKind::kVar:
      case relax::ExprKind::kDataflowVar: {
        auto it = vars_.find(e.get());
        KILN_CHECK(it != vars_.end(), ErrorKind::kInvalidIR,
                   "compile: " + binding_ + ": variable " + e.as<relax::VarNode>()->name +
                       " is not defined");
        return it->second;
      }
      case relax::ExprKind::kConstant:
        return {{AddConstant(e.as<relax::ConstantNode>())}, false};
      case relax::ExprKind::kTuple: {
        Bound b{{}, true};
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) {
          Bound field = Eval(f, name);
          KILN_CHECK(!field.tuple, ErrorKind::kUnsupported,
                     "compile: " + binding_ + ": nested tuples are not supported");
          b.ids.push_back(field.ids.at(0));
        }
        return b;
      }
      case relax::ExprKind::kTupleGetItem: {
        const auto* item = e.as<relax::TupleGetItemNode>();
        Bound t = Eval(item->tuple, name);
        KILN_CHECK(t.tuple && item->index >= 0 && static_cast<size_t>(item->index) < t.ids.size(),
                   ErrorKind::kInvalidIR, "compile: " + binding_ + ": tuple index out of range");
        return {{t.ids[item->index]}, false};
      }
      case relax::ExprKind::kCall: {
        const auto* call = e.as<relax::CallNode>();
        KILN_CHECK(
            call->op == "call_tir", ErrorKind::kUnsupported,
            "compile: " + binding_ + ": " +
                (call->op.empty() ? std::string("a call of another function") : "op " + call->op) +
                " is not supported by the compiler (only call_tir after the pipeline)");
        return CallTIR(*call, name);
      }
      default:
        throw Error(ErrorKind::kUnsupported, "compile: " + binding_ + ": a " +
                                                 relax::ExprKindName(e.kind()) +
                                                 " value is not supported by the compiler");
    }
  }

  size_t TaskOf(const std::string& func_name) {
    auto it = task_of_.find(func_name);
    if (it != task_of_.end()) return it->second;
    const ir::PrimFunc* f = module_.LookupPrimFunc(func_name);
    KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR,
               "compile: " + binding_ + ": call_tir of " + func_name + ", not a PrimFunc");
    ir::PrimFunc workload = Workload(*f);
    uint64_t hash = ir::StructuralHash(workload);
    for (size_t t = 0; t < tasks_.size(); ++t) {
      if (tasks_[t].workload_hash == hash && ir::StructuralEqual(tasks_[t].func, workload)) {
        task_of_[func_name] = t;
        return t;
      }
    }
    throw Error(ErrorKind::kInternal, "compile: " + func_name + " is not one of the tasks");
  }

  Bound CallTIR(const relax::CallNode& call, const std::string& name) {
    const auto* callee = call.args.at(0).as<relax::GlobalVarNode>();
    KILN_CHECK(callee != nullptr && call.args.size() >= 2, ErrorKind::kInvalidIR,
               "compile: " + binding_ + ": malformed call_tir");
    size_t task = TaskOf(callee->name);
    std::vector<runtime::model::StepArg> args;
    const auto* tuple = call.args[1].as<relax::TupleNode>();
    KILN_CHECK(tuple != nullptr, ErrorKind::kUnsupported,
               "compile: " + binding_ + ": call_tir's arguments must be a tuple");
    for (const relax::Expr& a : tuple->fields) {
      runtime::model::StepArg arg;
      if (const auto* prim = a.as<relax::PrimValueNode>()) {
        KILN_CHECK(prim->value.dtype().is_int() || prim->value.dtype().is_uint(),
                   ErrorKind::kUnsupported,
                   "compile: " + binding_ + ": a float scalar argument is not supported");
        arg.scalar = Resolve(ToDimExpr(prim->value));
      } else {
        Bound b = Eval(a, name);
        KILN_CHECK(!b.tuple, ErrorKind::kUnsupported,
                   "compile: " + binding_ + ": a tuple argument of call_tir is not supported");
        arg.value = b.ids.at(0);
      }
      args.push_back(arg);
    }
    std::vector<relax::StructInfo> outs = call.sinfo_args;
    bool tuple_out = false;
    if (outs.size() == 1) {
      if (const auto* t = outs[0].as<relax::TupleStructInfoNode>()) {
        outs = t->fields;
        tuple_out = true;
      }
    }
    tuple_out = tuple_out || outs.size() > 1;
    const TaskLowering& how = lowering_.at(task);
    if (how.view) {
      KILN_CHECK(args.size() == 1 && args[0].value >= 0 && outs.size() == 1, ErrorKind::kInternal,
                 "compile: " + binding_ + ": a view task takes one tensor and makes one");
      int64_t id = AddValue(name, ValueKind::kView, outs[0]);
      out_.graph.values[id].source = args[0].value;
      return {{id}, false};
    }
    Bound result{{}, tuple_out};
    std::vector<int64_t> written;
    for (size_t o = 0; o < outs.size(); ++o) {
      int64_t id = AddValue(outs.size() == 1 ? name : name + "." + std::to_string(o),
                            ValueKind::kKernelOutput, outs[o]);
      runtime::model::StepArg arg;
      arg.value = id;
      args.push_back(arg);
      written.push_back(id);
      result.ids.push_back(id);
    }
    if (call.args.size() >= 3) {
      const auto* shape = call.args[2].as<relax::ShapeExprNode>();
      KILN_CHECK(shape != nullptr, ErrorKind::kUnsupported,
                 "compile: " + binding_ + ": call_tir's tir_vars must be a shape expression");
      for (const relax::PrimExpr& v : shape->values) {
        runtime::model::StepArg arg;
        arg.scalar = Resolve(ToDimExpr(v));
        args.push_back(arg);
      }
    }
    AppendTaskCall(out_.graph, how, std::move(args), std::move(written), name);
    return result;
  }

  const relax::IRModule& module_;
  const std::vector<relax::transform::ExtractedTask>& tasks_;
  const std::vector<TaskLowering>& lowering_;
  LoweredGraph out_;
  std::map<const relax::ExprNode*, Bound> vars_;
  std::map<const relax::ConstantNode*, int64_t> constants_;
  std::map<std::string, size_t> task_of_;
  std::set<std::string> known_dims_;        // bound by the inputs' shapes
  std::map<std::string, DimExpr> aliases_;  // introduced by a match_cast
  std::string binding_;
};

}  // namespace

DimExpr ToDimExpr(const relax::PrimExpr& e) {
  if (const auto* i = e.as<ir::IntImmNode>()) return DimExpr::Const(i->value);
  if (const auto* v = e.as<ir::VarNode>()) return DimExpr::Var(v->name);
  DimExpr::Op op = DimExpr::Op::kConst;
  const ir::Expr* a = nullptr;
  const ir::Expr* b = nullptr;
#define KILN_DIM_BINARY(Node, kind)       \
  if (const auto* n = e.as<ir::Node>()) { \
    op = DimExpr::Op::kind;               \
    a = &n->a;                            \
    b = &n->b;                            \
  }
  KILN_DIM_BINARY(AddNode, kAdd)
  KILN_DIM_BINARY(SubNode, kSub)
  KILN_DIM_BINARY(MulNode, kMul)
  KILN_DIM_BINARY(FloorDivNode, kFloorDiv)
  KILN_DIM_BINARY(FloorModNode, kFloorMod)
  KILN_DIM_BINARY(MinNode, kMin)
  KILN_DIM_BINARY(MaxNode, kMax)
#undef KILN_DIM_BINARY
  if (const auto* c = e.as<ir::CastNode>()) return ToDimExpr(c->value);
  KILN_CHECK(a != nullptr, ErrorKind::kUnsupported,
             "compile: the dim " + relax::DimToString(e) + " is not an integer expression of " +
                 "shape variables the executor evaluates");
  DimExpr d;
  d.op = op;
  d.operands = {ToDimExpr(*a), ToDimExpr(*b)};
  return d;
}

LoweredGraph LowerEntryFunction(const relax::IRModule& module, const std::string& entry,
                                const std::vector<relax::transform::ExtractedTask>& tasks,
                                const std::vector<TaskLowering>& lowering,
                                const std::vector<runtime::model::GraphKernel>& kernels) {
  return Lowerer(module, tasks, lowering).Run(entry, kernels);
}

}  // namespace kiln::compiler
