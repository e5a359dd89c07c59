// The reference executor: an environment per function call (variables and shape variables) and
// a direct evaluation of each expression kind.
#include "ir/relax/exec/reference_executor.h"

#include <unordered_map>

#include "ir/interpreter/interpreter.h"
#include "ir/relax/exec/shape_ops.h"

namespace kiln::ir::relax::exec {

namespace {

// Deep recursion between Relax functions would exhaust the stack; a graph that calls this deep
// is malformed (Relax has no recursion that terminates without control flow).
constexpr int kMaxCallDepth = 64;

// One output: the tensor; several: a tuple of them (as call_tir's struct info says).
Value PackOutputs(std::vector<HostTensor> outputs) {
  if (outputs.size() == 1) return Value::Tensor(std::move(outputs[0]));
  std::vector<Value> fields;
  for (HostTensor& t : outputs) fields.push_back(Value::Tensor(std::move(t)));
  return Value::Tuple(std::move(fields));
}

struct Frame {
  std::string function;
  std::unordered_map<const VarNode*, Value> vars;
  ShapeEnv shapes;
  std::string binding;  // the binding being evaluated, for messages
};

class Evaluator {
 public:
  Evaluator(const IRModule& module, const HostKernelRegistry& kernels,
            const CallTIRHook* hook = nullptr)
      : module_(module), kernels_(kernels), hook_(hook) {}

  Value RunFunction(const std::string& name, const std::vector<Value>& args, int depth) {
    const Function* f = module_.LookupFunction(name);
    if (f == nullptr) {
      std::string why = module_.LookupPrimFunc(name) != nullptr
                            ? "is a PrimFunc (call it with call_tir)"
                            : "is not in the module";
      throw Error(ErrorKind::kInvalidIR, "function " + name + " " + why);
    }
    KILN_CHECK(depth <= kMaxCallDepth, ErrorKind::kRuntime,
               "function " + name + ": calls nest deeper than " + std::to_string(kMaxCallDepth));
    const FunctionNode& fn = *f->get();
    KILN_CHECK(args.size() == fn.params.size(), ErrorKind::kRuntime,
               "function " + name + ": takes " + std::to_string(fn.params.size()) +
                   " arguments, got " + std::to_string(args.size()));
    Frame frame;
    frame.function = name;
    for (size_t i = 0; i < args.size(); ++i) {
      BindValue(fn.params[i].struct_info(), args[i], frame.shapes);
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const Var& p = fn.params[i];
      std::string why = CheckValue(p.struct_info(), args[i], frame.shapes);
      if (!why.empty()) {
        throw Error(ErrorKind::kRuntime, "function " + name + ", parameter " + p.name() +
                                             ": expected " + p.struct_info().ToString() + ", got " +
                                             args[i].Describe() + ": " + why);
      }
      frame.vars[p.get()] = args[i];
    }
    Value result = EvalBody(fn.body, frame, depth);
    frame.binding.clear();
    std::string why = MatchValue(fn.ret_struct_info, result, frame.shapes);
    if (!why.empty()) {
      throw Error(ErrorKind::kRuntime, "function " + name + ", the returned value: expected " +
                                           fn.ret_struct_info.ToString() + ", got " +
                                           result.Describe() + ": " + why);
    }
    return result;
  }

 private:
  Value EvalBody(const Expr& body, Frame& frame, int depth) {
    const auto* seq = body.as<SeqExprNode>();
    if (seq == nullptr) return EvalAt(body, frame, depth, "the returned value");
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block.bindings) RunBinding(b, frame, depth);
    }
    return EvalAt(seq->body, frame, depth, "the returned value");
  }

  // Evaluates `e`, prefixing any error with the function and `where`.
  Value EvalAt(const Expr& e, Frame& frame, int depth, const std::string& where) {
    try {
      return Eval(e, frame, depth);
    } catch (const Error& err) {
      throw Error(err.kind(), "function " + frame.function + ", " + where + ": " + err.what());
    }
  }

  void RunBinding(const Binding& b, Frame& frame, int depth) {
    frame.binding = b.var.name();
    std::string where = "binding " + b.var.name();
    Value v = EvalAt(b.value, frame, depth, where);
    std::string why = MatchValue(b.var.struct_info(), v, frame.shapes);
    if (!why.empty()) {
      std::string what = !b.is_match_cast() ? "the value does not fit the variable's "
                         : b.note.empty()   ? "match_cast of " + b.var.name() + ": expected "
                                            : b.note + ": expected ";
      throw Error(ErrorKind::kRuntime, "function " + frame.function + ", " + where + ": " + what +
                                           b.var.struct_info().ToString() + ", got " +
                                           v.Describe() + ": " + why);
    }
    frame.vars[b.var.get()] = std::move(v);
  }

  std::vector<Value> EvalList(const std::vector<Expr>& exprs, Frame& frame, int depth) {
    std::vector<Value> out;
    out.reserve(exprs.size());
    for (const Expr& e : exprs) out.push_back(Eval(e, frame, depth));
    return out;
  }

  Value Eval(const Expr& e, Frame& frame, int depth) {
    KILN_CHECK(e.defined(), ErrorKind::kInvalidIR, "undefined expression");
    switch (e.kind()) {
      case ExprKind::kVar:
      case ExprKind::kDataflowVar: {
        auto it = frame.vars.find(e.as<VarNode>());
        KILN_CHECK(it != frame.vars.end(), ErrorKind::kInvalidIR,
                   "variable " + e.as<VarNode>()->name + " is used before it is defined");
        return it->second;
      }
      case ExprKind::kConstant:
        return Value::Tensor(e.as<ConstantNode>()->data);
      case ExprKind::kTuple:
        return Value::Tuple(EvalList(e.as<TupleNode>()->fields, frame, depth));
      case ExprKind::kTupleGetItem: {
        const auto* g = e.as<TupleGetItemNode>();
        Value t = Eval(g->tuple, frame, depth);
        const std::vector<Value>& fields = t.fields();
        KILN_CHECK(
            g->index >= 0 && static_cast<size_t>(g->index) < fields.size(), ErrorKind::kRuntime,
            "tuple index " + std::to_string(g->index) + " is out of range for " + t.Describe());
        return fields[g->index];
      }
      case ExprKind::kShapeExpr:
        return Value::Shape(frame.shapes.Eval(e.as<ShapeExprNode>()->values));
      case ExprKind::kPrimValue:
        return EvalPrimValue(e.as<PrimValueNode>()->value, frame);
      case ExprKind::kCall:
        return EvalCall(*e.as<CallNode>(), frame, depth);
      case ExprKind::kSeqExpr:
        return EvalBody(e, frame, depth);
      case ExprKind::kGlobalVar:
      case ExprKind::kExternFunc:
      case ExprKind::kFunction:
        break;
    }
    throw Error(ErrorKind::kUnsupported, std::string("a ") + ExprKindName(e.kind()) +
                                             " as a value is not supported by the executor");
  }

  static Value EvalPrimValue(const PrimExpr& value, const Frame& frame) {
    DataType t = value.dtype();
    if (t.is_float()) {
      const auto* imm = value.as<FloatImmNode>();
      KILN_CHECK(imm != nullptr, ErrorKind::kUnsupported,
                 "a float prim value must be a constant, got " + DimToString(value));
      return Value::Float(imm->value, t);
    }
    return Value::Int(frame.shapes.Eval(value), t);
  }

  Value EvalCall(const CallNode& call, Frame& frame, int depth) {
    if (call.op.empty()) {
      const auto* g = call.callee.as<GlobalVarNode>();
      KILN_CHECK(g != nullptr, ErrorKind::kUnsupported,
                 std::string("calling a ") + ExprKindName(call.callee.kind()) +
                     " is not supported by the executor (only functions of the module)");
      return RunFunction(g->name, EvalList(call.args, frame, depth), depth + 1);
    }
    if (call.op == "call_tir") {
      std::vector<Value> inputs = Eval(call.args[1], frame, depth).fields();
      std::vector<int64_t> tir_vars;
      if (call.args.size() == 3) tir_vars = Eval(call.args[2], frame, depth).shape();
      auto run_reference = [&] {
        return RunCallTIR(module_, call, inputs, tir_vars, frame.shapes);
      };
      if (hook_ == nullptr) return run_reference();
      CallTIRSite site{&call, call.args[0].as<GlobalVarNode>()->name, frame.function, frame.binding,
                       call_tir_count_++};
      return (*hook_)(site, inputs, tir_vars, frame.shapes, run_reference);
    }
    if (call.op == "call_dps_packed") return RunPacked(call, frame, depth);
    if (IsShapeOp(call.op)) return RunShapeOp(call, EvalList(call.args, frame, depth));
    throw Error(ErrorKind::kUnsupported,
                "run LegalizeOps first: op " + call.op + " at binding " + frame.binding);
  }

  Value RunPacked(const CallNode& call, Frame& frame, int depth) {
    const std::string& symbol = call.args[0].as<ExternFuncNode>()->symbol;
    const HostKernel* kernel = kernels_.Find(symbol);
    if (kernel == nullptr) {
      std::string known;
      for (const std::string& s : kernels_.Symbols()) known += (known.empty() ? "" : ", ") + s;
      throw Error(ErrorKind::kUnsupported,
                  "call_dps_packed: no host kernel for '" + symbol +
                      "' (registered: " + (known.empty() ? "none" : known) + ")");
    }
    std::vector<Value> inputs = Eval(call.args[1], frame, depth).fields();
    std::vector<HostTensor> outputs;
    for (const StructInfo& s : call.sinfo_args) outputs.push_back(AllocateOutput(s, frame.shapes));
    try {
      (*kernel)(inputs, outputs);
    } catch (const Error& e) {
      throw Error(e.kind(), "host kernel '" + symbol + "': " + e.what());
    }
    return PackOutputs(std::move(outputs));
  }

  const IRModule& module_;
  const HostKernelRegistry& kernels_;
  const CallTIRHook* hook_;
  int64_t call_tir_count_ = 0;
};

}  // namespace

ReferenceExecutor::ReferenceExecutor(IRModule module, const HostKernelRegistry* kernels)
    : module_(std::move(module)),
      kernels_(kernels != nullptr ? kernels : &HostKernelRegistry::Global()) {}

Value ReferenceExecutor::Run(const std::string& function, const std::vector<Value>& args) const {
  return Evaluator(module_, *kernels_).RunFunction(function, args, 0);
}

Value ReferenceExecutor::Run(const std::string& function, const std::vector<Value>& args,
                             const CallTIRHook& hook) const {
  return Evaluator(module_, *kernels_, &hook).RunFunction(function, args, 0);
}

Value Run(const IRModule& module, const std::string& function, const std::vector<Value>& args) {
  return ReferenceExecutor(module).Run(function, args);
}

Value RunCallTIR(const IRModule& module, const CallNode& call, const std::vector<Value>& inputs,
                 const std::vector<int64_t>& tir_vars, const ShapeEnv& env) {
  KILN_CHECK(call.op == "call_tir", ErrorKind::kInternal, "RunCallTIR: not a call_tir");
  const std::string& name = call.args[0].as<GlobalVarNode>()->name;
  const ir::PrimFunc* f = module.LookupPrimFunc(name);
  KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR,
             "call_tir of " + name + ", which is not a PrimFunc of the module");
  std::vector<ArgValue> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = inputs[i];
    if (v.is_tensor()) {
      args.emplace_back(v.tensor().Clone());
    } else if (v.is_prim()) {
      const PrimScalar& p = v.prim();
      if (p.dtype.is_float()) {
        args.emplace_back(p.float_value);
      } else {
        args.emplace_back(p.int_value);
      }
    } else {
      throw Error(ErrorKind::kRuntime, "call_tir of " + name + ": argument " + std::to_string(i) +
                                           " must be a tensor or a scalar, got " + v.Describe());
    }
  }
  std::vector<HostTensor> outputs;
  for (const StructInfo& s : call.sinfo_args) outputs.push_back(AllocateOutput(s, env));
  for (const HostTensor& t : outputs) args.emplace_back(t);
  for (int64_t v : tir_vars) args.emplace_back(v);
  try {
    Interpret(*f, args);
  } catch (const Error& e) {
    throw Error(e.kind(), "call_tir of " + name + ": " + e.what());
  }
  return PackOutputs(std::move(outputs));
}

}  // namespace kiln::ir::relax::exec
