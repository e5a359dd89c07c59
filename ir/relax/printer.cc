// Debug printer of Relax IR in the shape of TVMScript.
#include "ir/relax/printer.h"

#include <map>
#include <set>

namespace kiln::ir::relax {

namespace {

class Printer {
 public:
  std::string PrintFunction(const relax::Function& f, const std::string& name, int indent) {
    std::string pad(indent, ' ');
    std::string s = pad + "@R.function\n" + pad + "def " + name + "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      s += (i ? ", " : "") + VarName(f->params[i].get()) + ": " +
           f->params[i].struct_info().ToString();
    }
    s += ") -> " + f->ret_struct_info.ToString() + ":\n";
    std::string body_pad(indent + 4, ' ');
    // Shape variables are declared where the signature first mentions them, as TVMScript does.
    std::set<const void*> declared;
    for (const Var& p : f->params) {
      for (const PrimVar& v : SymbolicVars(p.struct_info())) {
        if (declared.insert(v.get()).second) {
          s += body_pad + v.name() + " = T." + v.dtype().ToString() + "()\n";
        }
      }
    }
    for (const auto& [key, value] : f->attrs.values()) {
      if (key == "global_symbol" && AttrValueToString(value) == "\"" + name + "\"") continue;
      s += body_pad + "R.func_attr({\"" + key + "\": " + AttrValueToString(value) + "})\n";
    }
    const auto* seq = f->body.as<SeqExprNode>();
    if (seq == nullptr) return s + body_pad + "return " + PrintExpr(f->body) + "\n";
    for (const BindingBlock& block : seq->blocks) {
      if (block.is_dataflow) {
        s += body_pad + "with R.dataflow():\n";
        std::string inner(indent + 8, ' ');
        std::vector<std::string> outputs;
        for (const relax::Binding& b : block.bindings) {
          s += inner + PrintBinding(b) + "\n";
          if (!b.var.is_dataflow()) outputs.push_back(VarName(b.var.get()));
        }
        s += inner + "R.output(";
        for (size_t i = 0; i < outputs.size(); ++i) s += (i ? ", " : "") + outputs[i];
        s += ")\n";
      } else {
        for (const relax::Binding& b : block.bindings) s += body_pad + PrintBinding(b) + "\n";
      }
    }
    return s + body_pad + "return " + PrintExpr(seq->body) + "\n";
  }

  std::string PrintBinding(const relax::Binding& b) {
    std::string lhs = VarName(b.var.get()) + ": " + b.var.struct_info().ToString() + " = ";
    if (b.is_match_cast()) {
      return lhs + "R.match_cast(" + PrintExpr(b.value) + ", " + b.pattern.ToString() + ")";
    }
    return lhs + PrintExpr(b.value);
  }

  std::string PrintExpr(const relax::Expr& e) {
    if (!e.defined()) return "<undefined>";
    switch (e.kind()) {
      case ExprKind::kVar:
      case ExprKind::kDataflowVar:
        return VarName(e.as<VarNode>());
      case ExprKind::kConstant: {
        const HostTensor& t = e.as<ConstantNode>()->data;
        if (t.numel() == 1 && t.shape().empty()) {
          return "R.const(" + AttrValueToString(t.GetDouble(0)) + ", \"" + t.dtype().ToString() +
                 "\")";
        }
        return "R.const(<" + t.Describe() + ">)";
      }
      case ExprKind::kTuple: {
        const auto& fields = e.as<TupleNode>()->fields;
        return "(" + List(fields) + (fields.size() == 1 ? ",)" : ")");
      }
      case ExprKind::kTupleGetItem: {
        const auto* g = e.as<TupleGetItemNode>();
        return PrintExpr(g->tuple) + "[" + std::to_string(g->index) + "]";
      }
      case ExprKind::kShapeExpr: {
        const auto& values = e.as<ShapeExprNode>()->values;
        std::string s = "R.shape([";
        for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + DimToString(values[i]);
        return s + "])";
      }
      case ExprKind::kPrimValue:
        return "R.prim_value(" + DimToString(e.as<PrimValueNode>()->value) + ")";
      case ExprKind::kCall:
        return PrintCall(*e.as<CallNode>());
      case ExprKind::kGlobalVar:
        return "cls." + e.as<GlobalVarNode>()->name;
      case ExprKind::kExternFunc:
        return "\"" + e.as<ExternFuncNode>()->symbol + "\"";
      case ExprKind::kSeqExpr:
        return "<SeqExpr>";
      case ExprKind::kFunction:
        return "<Function>";
    }
    return "?";
  }

  std::string PrintCall(const CallNode& c) {
    if (c.op.empty()) return PrintExpr(c.callee) + "(" + List(c.args) + ")";
    std::string s = "R." + c.op + "(" + List(c.args);
    for (const auto& [key, value] : c.attrs.values()) {
      s += ", " + key + "=" + AttrValueToString(value);
    }
    if (!c.sinfo_args.empty()) {
      s += ", out_sinfo=";
      if (c.sinfo_args.size() == 1) {
        s += c.sinfo_args[0].ToString();
      } else {
        s += "[";
        for (size_t i = 0; i < c.sinfo_args.size(); ++i) {
          s += (i ? ", " : "") + c.sinfo_args[i].ToString();
        }
        s += "]";
      }
    }
    return s + ")";
  }

  std::string List(const std::vector<relax::Expr>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + PrintExpr(v[i]);
    return s;
  }

  // Names are made unique: two variables called "x" print as x and x_1.
  std::string VarName(const VarNode* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string name = v->name.empty() ? "v" : v->name;
    std::string unique = name;
    for (int i = 1; used_.count(unique) != 0; ++i) unique = name + "_" + std::to_string(i);
    used_.insert(unique);
    names_[v] = unique;
    return unique;
  }

 private:
  std::map<const void*, std::string> names_;
  std::set<std::string> used_;
};

std::string PrimFuncStub(const ir::PrimFunc& f, const std::string& name) {
  std::string s = "    @T.prim_func\n    def " + name + "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    const ir::Var& p = f->params[i];
    s += i ? ", " : "";
    if (auto buffer = f->BufferOf(p)) {
      s += (*buffer)->name + ": T.Buffer(" + DimsToString((*buffer)->shape) + ", \"" +
           (*buffer)->dtype.ToString() + "\")";
    } else {
      s += p.name() + ": T." + p.dtype().ToString();
    }
  }
  return s + "):\n        ...\n";
}

}  // namespace

std::string DebugPrint(const IRModule& module) {
  std::string s = "@I.ir_module\nclass Module:\n";
  bool first = true;
  for (const std::string& name : module.names()) {
    if (!first) s += "\n";
    first = false;
    if (const ir::PrimFunc* p = module.LookupPrimFunc(name)) {
      s += PrimFuncStub(*p, name);
    } else {
      s += Printer().PrintFunction(*module.LookupFunction(name), name, 4);
    }
  }
  return s;
}

std::string DebugPrint(const Function& func, const std::string& name) {
  return Printer().PrintFunction(func, name, 0);
}

std::string DebugPrint(const Expr& expr) { return Printer().PrintExpr(expr); }

}  // namespace kiln::ir::relax
