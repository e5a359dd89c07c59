// BlockBuilder: scopes, naming, normalization to A-normal form and the checks that keep
// dataflow variables inside their blocks.
#include "ir/relax/block_builder.h"

namespace kiln::ir::relax {

// ---- A-normal form ----------------------------------------------------------------------------

bool IsLeaf(const Expr& e) {
  if (!e.defined()) return false;
  switch (e.kind()) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
    case ExprKind::kConstant:
    case ExprKind::kShapeExpr:
    case ExprKind::kPrimValue:
    case ExprKind::kGlobalVar:
    case ExprKind::kExternFunc:
      return true;
    default:
      return false;
  }
}

bool IsLeafOrTuple(const Expr& e) {
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsLeafOrTuple(f)) return false;
    }
    return true;
  }
  return IsLeaf(e);
}

namespace {

// The normalized arguments of `exprs`; `changed` tells whether any differs.
std::vector<Expr> NormalizeArguments(const std::vector<Expr>& exprs, const EmitFn& emit,
                                     bool& changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(NormalizeArgument(e, emit));
    changed |= !out.back().same_as(e);
  }
  return out;
}

}  // namespace

Expr NormalizeValue(const Expr& value, const EmitFn& emit) {
  if (!value.defined()) return value;
  if (const auto* c = value.as<CallNode>()) {
    bool changed = false;
    Expr callee = c->callee.defined() ? NormalizeArgument(c->callee, emit) : c->callee;
    changed |= !callee.same_as(c->callee);
    std::vector<Expr> args = NormalizeArguments(c->args, emit, changed);
    if (!changed) return value;
    // Each replaced argument is a variable of the argument's own struct info, so the call's
    // struct info stands as it was inferred.
    auto node = std::make_shared<CallNode>(c->struct_info);
    node->op = c->op;
    node->callee = std::move(callee);
    node->args = std::move(args);
    node->attrs = c->attrs;
    node->sinfo_args = c->sinfo_args;
    return Expr(std::move(node));
  }
  if (const auto* t = value.as<TupleNode>()) {
    bool changed = false;
    std::vector<Expr> fields = NormalizeArguments(t->fields, emit, changed);
    return changed ? Tuple(std::move(fields)) : value;
  }
  if (const auto* g = value.as<TupleGetItemNode>()) {
    Expr tuple = NormalizeArgument(g->tuple, emit);
    return tuple.same_as(g->tuple) ? value : TupleGetItem(tuple, g->index);
  }
  return value;
}

Expr NormalizeArgument(const Expr& value, const EmitFn& emit) {
  if (!value.defined() || IsLeaf(value)) return value;
  Expr normalized = NormalizeValue(value, emit);
  if (normalized.as<TupleNode>() != nullptr) return normalized;  // a tuple of leaves
  return emit(normalized);
}

// ---- BlockBuilder -----------------------------------------------------------------------------

namespace {

// Throws when `e` refers to a DataflowVar (looking through tuples, calls and projections,
// which is where a variable can appear in a binding's value).
void CheckNoDataflowVar(const Expr& e, const std::string& where) {
  if (!e.defined()) return;
  if (const auto* v = e.as<VarNode>()) {
    KILN_CHECK(e.kind() != ExprKind::kDataflowVar, ErrorKind::kInvalidIR,
               where + ": dataflow variable " + v->name +
                   " is used outside its dataflow block; emit it with EmitOutput");
    return;
  }
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) CheckNoDataflowVar(f, where);
  } else if (const auto* c = e.as<CallNode>()) {
    CheckNoDataflowVar(c->callee, where);
    for (const Expr& a : c->args) CheckNoDataflowVar(a, where);
  } else if (const auto* g = e.as<TupleGetItemNode>()) {
    CheckNoDataflowVar(g->tuple, where);
  }
}

}  // namespace

BlockBuilder::BlockBuilder(IRModule module) : module_(std::move(module)) {}

void BlockBuilder::RequireFunction(const char* what) const {
  KILN_CHECK(in_function_, ErrorKind::kInvalidIR,
             std::string("BlockBuilder::") + what + ": no function is being built");
}

void BlockBuilder::BeginFunction(const std::string& name, std::vector<Var> params, Attrs attrs) {
  KILN_CHECK(!in_function_, ErrorKind::kInvalidIR,
             "BlockBuilder::BeginFunction(" + name + "): function " + func_name_ +
                 " is still being built");
  for (const Var& p : params) {
    KILN_CHECK(p.defined() && !p.is_dataflow(), ErrorKind::kInvalidIR,
               "BlockBuilder::BeginFunction(" + name + "): parameters must be non-dataflow Vars");
  }
  in_function_ = true;
  in_dataflow_ = false;
  func_name_ = name;
  params_ = std::move(params);
  func_attrs_ = std::move(attrs);
  blocks_.clear();
  name_counts_.clear();
  used_names_.clear();
  for (const Var& p : params_) used_names_.insert(p.name());
}

GlobalVar BlockBuilder::EndFunction(const Expr& result, StructInfo ret) {
  RequireFunction("EndFunction");
  KILN_CHECK(!in_dataflow_, ErrorKind::kInvalidIR,
             "BlockBuilder::EndFunction(" + func_name_ + "): a dataflow block is still open");
  KILN_CHECK(result.defined(), ErrorKind::kInvalidIR,
             "BlockBuilder::EndFunction(" + func_name_ + "): undefined result");
  CheckNoDataflowVar(result, "function " + func_name_ + " result");
  std::string name = module_.UniqueName(func_name_);
  Attrs attrs = func_attrs_;
  if (!attrs.Has("global_symbol")) attrs.Set("global_symbol", name);
  // Built from copies (the bindings normalization adds included), so that a rejected return
  // type leaves the function open to fix as it was.
  std::vector<BindingBlock> saved_blocks = blocks_;
  std::map<std::string, int> saved_counts = name_counts_;
  std::set<std::string> saved_names = used_names_;
  Function func;
  try {
    Expr body = NormalizeArgument(result, [this](const Expr& v) { return EmitInner(v); });
    func = MakeFunction(params_, SeqExpr(blocks_, body), std::move(ret), std::move(attrs));
  } catch (const Error&) {
    blocks_ = std::move(saved_blocks);
    name_counts_ = std::move(saved_counts);
    used_names_ = std::move(saved_names);
    throw;
  }
  in_function_ = false;
  blocks_.clear();
  params_.clear();
  return module_.Add(name, func);
}

void BlockBuilder::BeginDataflow() {
  RequireFunction("BeginDataflow");
  KILN_CHECK(!in_dataflow_, ErrorKind::kInvalidIR,
             "BlockBuilder::BeginDataflow: dataflow blocks do not nest");
  in_dataflow_ = true;
  blocks_.push_back(BindingBlock{{}, true});
}

void BlockBuilder::EndDataflow() {
  KILN_CHECK(in_dataflow_, ErrorKind::kInvalidIR,
             "BlockBuilder::EndDataflow: no dataflow block open");
  in_dataflow_ = false;
}

std::string BlockBuilder::FreshName(const std::string& hint) {
  std::string name = hint;
  while (used_names_.count(name) != 0) name = hint + std::to_string(++name_counts_[hint]);
  used_names_.insert(name);
  return name;
}

void BlockBuilder::CheckBindable(const Expr& value, const char* what) const {
  RequireFunction(what);
  KILN_CHECK(value.defined(), ErrorKind::kInvalidIR,
             std::string("BlockBuilder::") + what + ": undefined value");
  KILN_CHECK(value.as<SeqExprNode>() == nullptr, ErrorKind::kInvalidIR,
             std::string("BlockBuilder::") + what + ": cannot bind a SeqExpr");
  if (!in_dataflow_) CheckNoDataflowVar(value, std::string("BlockBuilder::") + what);
}

Var BlockBuilder::Bind(Binding binding, const Expr& value, bool dataflow_var,
                       const std::string& name, const char* what) {
  CheckBindable(value, what);
  StructInfo sinfo = binding.is_match_cast() ? binding.pattern : value.struct_info();
  Var var = dataflow_var ? DataflowVar(name, sinfo) : Var(name, sinfo);
  Binding b = binding.is_match_cast() ? MatchCast(var, value, binding.pattern, binding.note)
                                      : VarBinding(var, value);
  if (blocks_.empty() || blocks_.back().is_dataflow != in_dataflow_) {
    blocks_.push_back(BindingBlock{{}, in_dataflow_});
  }
  blocks_.back().bindings.push_back(std::move(b));
  return var;
}

Var BlockBuilder::EmitInner(const Expr& value) {
  return Bind(Binding{}, value, in_dataflow_, FreshName(in_dataflow_ ? "lv" : "gv"), "Emit");
}

Expr BlockBuilder::Normalize(const Expr& value) {
  RequireFunction("Normalize");
  return NormalizeValue(value, [this](const Expr& v) { return EmitInner(v); });
}

Var BlockBuilder::Emit(const Expr& value, const std::string& name_hint) {
  CheckBindable(value, "Emit");
  Expr normalized = Normalize(value);
  std::string hint = name_hint.empty() ? (in_dataflow_ ? "lv" : "gv") : name_hint;
  return Bind(Binding{}, normalized, in_dataflow_, FreshName(hint), "Emit");
}

Var BlockBuilder::EmitOutput(const Expr& value, const std::string& name_hint) {
  RequireFunction("EmitOutput");
  KILN_CHECK(in_dataflow_, ErrorKind::kInvalidIR,
             "BlockBuilder::EmitOutput: only inside a dataflow block (use Emit outside)");
  CheckBindable(value, "EmitOutput");
  Expr normalized = Normalize(value);
  return Bind(Binding{}, normalized, false, FreshName(name_hint.empty() ? "gv" : name_hint),
              "EmitOutput");
}

Var BlockBuilder::EmitMatchCast(const Expr& value, StructInfo pattern, const std::string& name_hint,
                                const std::string& note) {
  KILN_CHECK(pattern.defined(), ErrorKind::kInvalidIR, "BlockBuilder::EmitMatchCast: no pattern");
  CheckBindable(value, "EmitMatchCast");
  Expr normalized = Normalize(value);
  std::string hint = name_hint.empty() ? (in_dataflow_ ? "lv" : "gv") : name_hint;
  return Bind(Binding{Var(), Expr(), std::move(pattern), note}, normalized, in_dataflow_,
              FreshName(hint), "EmitMatchCast");
}

Expr BlockBuilder::LookupBinding(const Var& var) const {
  for (auto block = blocks_.rbegin(); block != blocks_.rend(); ++block) {
    for (auto b = block->bindings.rbegin(); b != block->bindings.rend(); ++b) {
      if (b->var.get() == var.get()) return b->value;
    }
  }
  return Expr();
}

GlobalVar BlockBuilder::AddFunction(const std::string& name_hint, Function func) {
  return module_.Add(module_.UniqueName(name_hint), std::move(func));
}

GlobalVar BlockBuilder::AddFunction(const std::string& name_hint, ir::PrimFunc func) {
  return module_.Add(module_.UniqueName(name_hint), std::move(func));
}

IRModule BlockBuilder::Finalize() const {
  KILN_CHECK(!in_function_, ErrorKind::kInvalidIR,
             "BlockBuilder::Finalize: function " + func_name_ + " is still being built");
  return module_;
}

}  // namespace kiln::ir::relax
