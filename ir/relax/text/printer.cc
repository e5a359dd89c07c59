// The Relax TVMScript printer: module layout, functions, bindings, expressions and struct
// info. Every form it prints is one the parser (ir/relax/text/parser.h) reads back to an
// equal structure; names are made unique per function (x, x_1) across Relax variables and
// shape variables, which share one Python namespace in TVMScript.
#include "ir/relax/text/printer.h"

#include <cctype>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/text/literal.h"
#include "ir/relax/text/metadata.h"
#include "ir/text/print_util.h"
#include "ir/text/printer.h"

namespace kiln::ir::relax {

namespace {

using text::AttrText;
using text::FloatText;

std::string Sanitize(const std::string& hint) {
  std::string name;
  for (char c : hint) name += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "v" + name;
  return name;
}

// Names no printed variable may take: Python's, and those the text itself uses.
bool IsReserved(const std::string& name) {
  static const std::set<std::string> extra = {"R",      "I",     "cls",     "metadata",
                                              "Module", "float", "TypeVar", "tvm"};
  return ir::ReservedNames().count(name) != 0 || extra.count(name) != 0;
}

// What a whole module print shares: options, printed function names, and the constants
// that go to the metadata section.
struct ModuleContext {
  PrintOptions options;
  std::unordered_map<std::string, std::string> func_names;  // module name -> printed name
  std::vector<const ConstantNode*> metadata;
  std::unordered_map<const ConstantNode*, size_t> metadata_index;
  // 0.24+ dialect: shape variables declared above the module, in order of first appearance.
  std::vector<std::string> type_vars;
  std::set<std::string> type_var_set;

  bool v24() const { return options.dialect == ir::TirDialect::kTvm024; }
  void DeclareTypeVar(const std::string& name) {
    if (type_var_set.insert(name).second) type_vars.push_back(name);
  }

  std::string FuncName(const std::string& name) const {
    auto it = func_names.find(name);
    return it != func_names.end() ? it->second : Sanitize(name);
  }
};

std::string InlineConstant(const HostTensor& t) {
  std::string dtype = ir::QuoteString(t.dtype().ToString());
  if (t.numel() == 0) {
    // A list literal cannot say the shape of an empty tensor.
    std::string shape = "(";
    for (size_t i = 0; i < t.shape().size(); ++i) {
      shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
    }
    shape += t.shape().size() == 1 ? ",)" : ")";
    return "R.const([], " + dtype + ", shape=" + shape + ")";
  }
  return "R.const(" + text::TensorLiteral(t) + ", " + dtype + ")";
}

// Renames the shape variables of a dim to their printed names.
class DimRenamer : public IRMutator {
 public:
  explicit DimRenamer(const std::unordered_map<const void*, PrimVar>& renamed)
      : renamed_(renamed) {}
  using IRMutator::VisitExpr_;
  PrimExpr VisitExpr_(const ir::VarNode* op) override {
    auto it = renamed_.find(op);
    return it != renamed_.end() ? PrimExpr(it->second) : PrimExpr(GetRef<PrimVar>(op));
  }

 private:
  const std::unordered_map<const void*, PrimVar>& renamed_;
};

class FunctionPrinter {
 public:
  explicit FunctionPrinter(ModuleContext& ctx) : ctx_(ctx) {}

  std::string PrintFunction(const Function& f, const std::string& name, int indent) {
    std::string pad(static_cast<size_t>(indent) * 4, ' ');
    std::string body_pad = pad + "    ";
    // TVM 0.24+ declares the signature's int64 shape variables above the module; those the
    // body introduces (R.match_cast) are declared in the body, as before.
    for (const Var& p : f->params) {
      for (const PrimVar& v : SymbolicVars(p.struct_info())) signature_vars_.insert(v.get());
    }
    for (const PrimVar& v : SymbolicVars(f->ret_struct_info)) signature_vars_.insert(v.get());
    std::string header = pad;
    const AttrValue* symbol = f->attrs.Find("global_symbol");
    header += symbol == nullptr ? "@R.function(private=True)\n" : "@R.function\n";
    header += pad + "def " + name + "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      header += (i ? ", " : "") + VarName(f->params[i].get()) + ": " +
                SInfo(f->params[i].struct_info(), true);
    }
    header += ") -> " + SInfo(f->ret_struct_info, true) + ":\n";

    std::string body;
    const auto* seq = f->body.as<SeqExprNode>();
    if (seq != nullptr) {
      for (const BindingBlock& block : seq->blocks) Block(block, indent + 1, body);
    }
    body += body_pad + "return " + Print(seq != nullptr ? seq->body : f->body) + "\n";

    std::string decls;
    for (const PrimVar& v : shape_vars_) {
      if (IsTypeVar(v)) {
        ctx_.DeclareTypeVar(names_.at(v.get()));
        continue;
      }
      decls += body_pad + names_.at(v.get()) + " = T." + v.dtype().ToString() + "()\n";
    }
    Attrs shown;
    for (const auto& [key, value] : f->attrs.values()) {
      if (key == "global_symbol" && value == AttrValue(name)) continue;
      shown.Set(key, value);
    }
    if (!shown.empty()) {
      decls += body_pad + "R.func_attr({";
      bool first = true;
      for (const auto& [key, value] : shown.values()) {
        decls += (first ? "" : ", ") + ir::QuoteString(key) + ": " + FuncAttrText(value);
        first = false;
      }
      decls += "})\n";
    }
    if (uses_globals_) decls += body_pad + "cls = Module\n";
    return header + decls + body;
  }

  std::string Print(const Expr& e) {
    KILN_CHECK(e.defined(), ErrorKind::kInvalidIR, "print: undefined Relax expression");
    switch (e.kind()) {
      case ExprKind::kVar:
      case ExprKind::kDataflowVar:
        return VarName(e.as<VarNode>());
      case ExprKind::kConstant:
        return ConstantText(e.as<ConstantNode>());
      case ExprKind::kTuple: {
        const auto& fields = e.as<TupleNode>()->fields;
        if (fields.empty()) return "R.tuple()";
        return "(" + List(fields) + (fields.size() == 1 ? ",)" : ")");
      }
      case ExprKind::kTupleGetItem: {
        const auto* g = e.as<TupleGetItemNode>();
        return Print(g->tuple) + "[" + std::to_string(g->index) + "]";
      }
      case ExprKind::kShapeExpr:
        return "R.shape(" + DimList(e.as<ShapeExprNode>()->values, false) + ")";
      case ExprKind::kPrimValue:
        return "R.prim_value(" + PrimText(e.as<PrimValueNode>()->value) + ")";
      case ExprKind::kCall:
        return CallText(*e.as<CallNode>());
      case ExprKind::kGlobalVar:
        uses_globals_ = true;
        return "cls." + ctx_.FuncName(e.as<GlobalVarNode>()->name);
      case ExprKind::kExternFunc:
        return "R.ExternFunc(" + ir::QuoteString(e.as<ExternFuncNode>()->symbol) + ")";
      case ExprKind::kSeqExpr:
      case ExprKind::kFunction:
        break;
    }
    throw Error(ErrorKind::kUnsupported,
                std::string("print: a nested ") + ExprKindName(e.kind()) +
                    " has no form in the Relax text format (only function bodies are SeqExprs)");
  }

  // TVMScript annotation; `quote` writes symbolic dims as strings ("n"), as TVM does in a
  // function signature, where the shape variables are not declared yet.
  std::string SInfo(const StructInfo& s, bool quote) {
    if (!s.defined()) return "R.Object";
    switch (s.kind()) {
      case StructInfoKind::kObject:
        return "R.Object";
      case StructInfoKind::kPrim: {
        const auto* p = s.as<PrimStructInfoNode>();
        if (p->value.defined()) return "R.Prim(value=" + Dim(p->value, quote) + ")";
        return "R.Prim(" + ir::QuoteString(p->dtype.ToString()) + ")";
      }
      case StructInfoKind::kShape: {
        const auto* p = s.as<ShapeStructInfoNode>();
        if (p->values) return "R.Shape(" + DimList(*p->values, quote) + ")";
        if (p->ndim == kUnknownNDim) return "R.Shape";
        return "R.Shape(ndim=" + std::to_string(p->ndim) + ")";
      }
      case StructInfoKind::kTensor: {
        const auto* t = s.as<TensorStructInfoNode>();
        std::string dtype =
            t->unknown_dtype() ? "" : "dtype=" + ir::QuoteString(t->dtype.ToString());
        if (t->shape) {
          std::string dims = "(";
          for (size_t i = 0; i < t->shape->size(); ++i) {
            dims += (i ? ", " : "") + Dim((*t->shape)[i], quote);
          }
          dims += t->shape->size() == 1 ? ",)" : ")";
          return "R.Tensor(" + dims + (dtype.empty() ? "" : ", " + dtype) + ")";
        }
        std::string ndim = t->unknown_ndim() ? "" : "ndim=" + std::to_string(t->ndim);
        if (dtype.empty() && ndim.empty()) return "R.Tensor";
        return "R.Tensor(" + dtype + (!dtype.empty() && !ndim.empty() ? ", " : "") + ndim + ")";
      }
      case StructInfoKind::kTuple: {
        const auto& fields = s.as<TupleStructInfoNode>()->fields;
        if (fields.empty()) return "R.Tuple";
        std::string out = "R.Tuple(";
        for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + SInfo(fields[i], quote);
        return out + ")";
      }
      case StructInfoKind::kFunc: {
        const auto* f = s.as<FuncStructInfoNode>();
        std::string out = "R.Callable((";
        for (size_t i = 0; i < f->params.size(); ++i) {
          out += (i ? ", " : "") + SInfo(f->params[i], quote);
        }
        return out + (f->params.size() == 1 ? ",)" : ")") + ", " + SInfo(f->ret, quote) + ")";
      }
    }
    return "R.Object";
  }

 private:
  void Block(const BindingBlock& block, int indent, std::string& out) {
    std::string pad(static_cast<size_t>(indent) * 4, ' ');
    if (!block.is_dataflow) {
      for (const Binding& b : block.bindings) out += pad + BindingText(b) + "\n";
      return;
    }
    out += pad + "with R.dataflow():\n";
    std::vector<std::string> outputs;
    for (const Binding& b : block.bindings) {
      out += pad + "    " + BindingText(b) + "\n";
      if (!b.var.is_dataflow()) outputs.push_back(VarName(b.var.get()));
    }
    out += pad + "    R.output(";
    for (size_t i = 0; i < outputs.size(); ++i) out += (i ? ", " : "") + outputs[i];
    out += ")\n";
  }

  std::string BindingText(const Binding& b) {
    // The value first: names in it are older than the variable bound here.
    std::string value = Print(b.value);
    if (b.is_match_cast()) value = "R.match_cast(" + value + ", " + SInfo(b.pattern, false) + ")";
    std::string note;
    for (char c : b.note) note += c == '\n' ? ' ' : c;
    return VarName(b.var.get()) + ": " + SInfo(b.var.struct_info(), false) + " = " + value +
           (note.empty() ? "" : "  # " + note);
  }

  std::string CallText(const CallNode& c) {
    if (c.op.empty()) return Print(c.callee) + "(" + List(c.args) + ")";
    bool dps = c.op == "call_tir" || c.op == "call_dps_packed";
    std::string out = "R." + c.op + "(";
    std::vector<std::string> items;
    for (size_t i = 0; i < c.args.size(); ++i) {
      const Expr& a = c.args[i];
      if (dps && i == 0 && a.as<ExternFuncNode>() != nullptr) {
        items.push_back(ir::QuoteString(a.as<ExternFuncNode>()->symbol));
      } else if (c.op == "call_tir" && i == 2) {
        items.push_back("tir_vars=" + Print(a));
      } else {
        items.push_back(Print(a));
      }
    }
    if (dps) {
      // The outputs before tir_vars, as TVM prints them.
      std::string sinfo = OutKeyword() + SInfoList(c.sinfo_args);
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(2, items.size())),
                   sinfo);
    }
    const OpInfo* info = OpRegistry::Global().Find(c.op);
    std::set<std::string> shown;
    if (info != nullptr) {
      for (const AttrSpec& spec : info->attrs) {
        const AttrValue* v = c.attrs.Find(spec.name);
        items.push_back(spec.name + "=" + (v != nullptr ? AttrText(*v) : "None"));
        shown.insert(spec.name);
      }
    }
    for (const auto& [key, value] : c.attrs.values()) {
      if (shown.count(key) == 0) items.push_back(key + "=" + AttrText(value));
    }
    if (!dps && !c.sinfo_args.empty()) items.push_back(OutKeyword() + SInfoList(c.sinfo_args));
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + ")";
  }

  std::string OutKeyword() const { return ctx_.v24() ? "out_ty=" : "out_sinfo="; }

  // 0.24+ declares the signature's int64 shape variables above the module; others are declared
  // in the body.
  bool IsTypeVar(const PrimVar& v) const {
    return ctx_.v24() && v.dtype() == DataType::Int(64) && signature_vars_.count(v.get()) != 0;
  }

  std::string SInfoList(const std::vector<StructInfo>& infos) {
    if (infos.size() == 1) return SInfo(infos[0], false);
    std::string out = "[";
    for (size_t i = 0; i < infos.size(); ++i) out += (i ? ", " : "") + SInfo(infos[i], false);
    return out + "]";
  }

  std::string FuncAttrText(const AttrValue& value) {
    // A dtype would read back as a string: R.dtype keeps it apart.
    if (TypeOf(value) == AttrType::kDType) {
      return "R.dtype(" + ir::QuoteString(std::get<DataType>(value).ToString()) + ")";
    }
    return AttrText(value);
  }

  std::string ConstantText(const ConstantNode* c) {
    const HostTensor& t = c->data;
    KILN_CHECK(t.dtype().is_scalar() && !t.dtype().is_handle() && !t.dtype().is_void(),
               ErrorKind::kUnsupported,
               "print: constant of dtype " + t.dtype().ToString() + " has no text form");
    if (t.numel() <= ctx_.options.max_inline_constant_elements) return InlineConstant(t);
    auto [it, added] = ctx_.metadata_index.emplace(c, ctx_.metadata.size());
    if (added) ctx_.metadata.push_back(c);
    const char* kind = ctx_.v24() ? text::kGenericConstKind : text::kLegacyConstKind;
    return "metadata[\"" + std::string(kind) + "\"][" + std::to_string(it->second) + "]";
  }

  std::string List(const std::vector<Expr>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Print(v[i]);
    return s;
  }

  std::string DimList(const std::vector<PrimExpr>& dims, bool quote) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + Dim(dims[i], quote);
    return s + "]";
  }

  // The value of a PrimValue: a dim, or a typed float or bool immediate.
  std::string PrimText(const PrimExpr& v) {
    if (const auto* f = v.as<ir::FloatImmNode>()) {
      return "T." + v.dtype().ToString() + "(" + FloatText(f->value) + ")";
    }
    return Dim(v, false);
  }

  std::string Dim(const PrimExpr& e, bool quote) {
    std::vector<PrimVar> vars = ir::FreeVarsOf(e);
    bool renamed = false;
    // A variable declared in the body is not yet defined in the signature: quote it there.
    bool declared_later = false;
    for (const PrimVar& v : vars) {
      renamed |= ShapeVarName(v) != v->name;
      declared_later |= !IsTypeVar(v);
    }
    std::string s = DimToString(renamed ? DimRenamer(renamed_).VisitExpr(e) : e);
    return quote && declared_later ? ir::QuoteString(s) : s;
  }

  std::string Unique(const std::string& hint) {
    std::string base = Sanitize(hint);
    std::string name = base;
    for (int i = 1; used_.count(name) != 0 || IsReserved(name); ++i) {
      name = base + "_" + std::to_string(i);
    }
    used_.insert(name);
    return name;
  }

  std::string VarName(const VarNode* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    return names_[v] = Unique(v->name);
  }

  std::string ShapeVarName(const PrimVar& v) {
    auto it = names_.find(v.get());
    if (it != names_.end()) return it->second;
    std::string name = Unique(v->name);
    names_[v.get()] = name;
    shape_vars_.push_back(v);
    if (name != v->name) renamed_[v.get()] = PrimVar(name, v.dtype());
    return name;
  }

  ModuleContext& ctx_;
  std::unordered_map<const void*, std::string> names_;
  std::set<std::string> used_;
  std::vector<PrimVar> shape_vars_;  // in order of first appearance
  std::unordered_set<const void*> signature_vars_;
  std::unordered_map<const void*, PrimVar> renamed_;
  bool uses_globals_ = false;
};

std::string Indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += pad + text.substr(start, end - start);
    out += "\n";
    start = end + 1;
  }
  return out;
}

// The metadata statement TVM prints above the module, or the comment TVM leaves without it.
std::string MetadataStatement(const ModuleContext& ctx) {
  if (ctx.metadata.empty() || !ctx.options.show_metadata) return "";
  std::vector<const HostTensor*> tensors;
  for (const ConstantNode* c : ctx.metadata) tensors.push_back(&c->data);
  return text::WriteMetadata(tensors, !ctx.v24());
}

std::string MetadataOmitted(const ModuleContext& ctx) {
  if (ctx.metadata.empty() || ctx.options.show_metadata) return "";
  return "\n# Metadata omitted (" + std::to_string(ctx.metadata.size()) +
         " constants). Use show_meta=True in script() method to show it.\n";
}

// The import comments and the TypeVar declarations above the module or function.
std::string Preamble(const ModuleContext& ctx, bool has_prim_funcs) {
  std::string out;
  if (ctx.v24()) {
    if (!ctx.type_vars.empty()) out += "# from typing import TypeVar\n";
    out += "# from tvm.script import ir as I\n";
    if (has_prim_funcs) out += "# from tvm.script import tirx as T\n";
    out += "# from tvm.script import relax as R\n\n";
    for (const std::string& name : ctx.type_vars) {
      out += name + " = TypeVar(" + ir::QuoteString(name) + ")\n";
    }
    return out;
  }
  return "# from tvm.script import ir as I\n"
         "# from tvm.script import relax as R\n"
         "# from tvm.script import tir as T\n\n";
}

std::string PrimFuncText(const ir::PrimFunc& f, const std::string& name, ModuleContext& ctx) {
  ir::PrimFunc named = f;
  if (f->name != name) {
    auto copy = std::make_shared<ir::PrimFuncNode>(*f.get());
    copy->name = name;
    named = ir::PrimFunc(std::move(copy));
  }
  ir::TirPrintOptions options;
  options.dialect = ctx.options.dialect;
  options.standalone = false;
  for (const std::string& v : ir::PrintedTypeVars(named, options)) ctx.DeclareTypeVar(v);
  return Indent(ir::PrintPrimFunc(named, options), "    ");
}

}  // namespace

std::string PrintModule(const IRModule& module, const PrintOptions& options) {
  ModuleContext ctx{options, {}, {}, {}, {}, {}};
  std::set<std::string> taken;
  for (const std::string& name : module.names()) {
    std::string printed = Sanitize(name);
    for (int i = 1; taken.count(printed) != 0 || ir::ReservedNames().count(printed) != 0; ++i) {
      printed = Sanitize(name) + "_" + std::to_string(i);
    }
    taken.insert(printed);
    ctx.func_names[name] = printed;
  }
  std::string body;
  bool first = true, has_prim_funcs = false;
  for (const std::string& name : module.names()) {
    if (!first) body += "\n";
    first = false;
    if (const ir::PrimFunc* p = module.LookupPrimFunc(name)) {
      body += PrimFuncText(*p, ctx.func_names[name], ctx);
      has_prim_funcs = true;
    } else {
      body +=
          FunctionPrinter(ctx).PrintFunction(*module.LookupFunction(name), ctx.func_names[name], 1);
    }
  }
  if (first) body += "    pass\n";
  return MetadataStatement(ctx) + Preamble(ctx, has_prim_funcs) + "@I.ir_module\nclass Module:\n" +
         body + MetadataOmitted(ctx);
}

std::string PrintFunction(const Function& func, const std::string& name,
                          const PrintOptions& options) {
  ModuleContext ctx{options, {}, {}, {}, {}, {}};
  std::string body = FunctionPrinter(ctx).PrintFunction(func, name, 0);
  return MetadataStatement(ctx) + Preamble(ctx, false) + body + MetadataOmitted(ctx);
}

std::string PrintExpr(const Expr& expr) {
  ModuleContext ctx;
  return FunctionPrinter(ctx).Print(expr);
}

std::string PrintStructInfo(const StructInfo& sinfo) {
  ModuleContext ctx;
  return FunctionPrinter(ctx).SInfo(sinfo, false);
}

}  // namespace kiln::ir::relax
