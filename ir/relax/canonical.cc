// Canonical token streams of struct info, dims and Relax expressions.
#include "ir/relax/canonical.h"

#include <cstring>

#include "support/stable_hash.h"

namespace kiln::ir::relax {

int CanonicalStream::Index(const void* var) {
  return vars_.emplace(var, static_cast<int>(vars_.size())).first->second;
}

void CanonicalStream::AddStructInfo(const StructInfo& s) {
  if (!s.defined()) {
    Token("undef");
    return;
  }
  switch (s.kind()) {
    case StructInfoKind::kObject:
      Token("Object");
      break;
    case StructInfoKind::kPrim: {
      const auto* p = s.as<PrimStructInfoNode>();
      Token("Prim");
      Token(p->dtype.ToString());
      AddDim(p->value);
      break;
    }
    case StructInfoKind::kShape: {
      const auto* p = s.as<ShapeStructInfoNode>();
      Token("Shape");
      Token(std::to_string(p->ndim));
      AddDims(p->values);
      break;
    }
    case StructInfoKind::kTensor: {
      const auto* t = s.as<TensorStructInfoNode>();
      Token("Tensor");
      Token(t->dtype.ToString());
      Token(std::to_string(t->ndim));
      AddDims(t->shape);
      break;
    }
    case StructInfoKind::kTuple: {
      const auto* t = s.as<TupleStructInfoNode>();
      Token("Tuple");
      Token(std::to_string(t->fields.size()));
      for (const StructInfo& f : t->fields) AddStructInfo(f);
      break;
    }
    case StructInfoKind::kFunc: {
      const auto* f = s.as<FuncStructInfoNode>();
      Token("Func");
      Token(std::to_string(f->params.size()));
      for (const StructInfo& p : f->params) AddStructInfo(p);
      AddStructInfo(f->ret);
      break;
    }
  }
}

void CanonicalStream::AddDims(const std::optional<std::vector<PrimExpr>>& dims) {
  if (!dims) {
    Token("nodims");
    return;
  }
  Token(std::to_string(dims->size()));
  for (const PrimExpr& d : *dims) AddDim(d);
}

void CanonicalStream::AddDim(const PrimExpr& e) {
  if (!e.defined()) {
    Token("undef");
    return;
  }
  Token(NodeKindName(e.kind()));
  Token(e.dtype().ToString());
  switch (e.kind()) {
    case NodeKind::kVar:
      Token("$" + std::to_string(Index(e.get())));
      break;
    case NodeKind::kIntImm:
      Token(std::to_string(e.as<IntImmNode>()->value));
      break;
#define KILN_BINARY_CANON(name)         \
  case NodeKind::k##name: {             \
    const auto* n = e.as<name##Node>(); \
    AddDim(n->a);                       \
    AddDim(n->b);                       \
    break;                              \
  }
      KILN_BINARY_NODES(KILN_BINARY_CANON)
#undef KILN_BINARY_CANON
    case NodeKind::kCast:
      AddDim(e.as<CastNode>()->value);
      break;
    default:
      Token(DimToString(e));
  }
}

void CanonicalStream::VarDef(const Var& v) {
  Token(v.is_dataflow() ? "dfvar" : "var");
  Token("%" + std::to_string(Index(v.get())));
  AddStructInfo(v.struct_info());
}

void CanonicalStream::AttrList(const Attrs& attrs, bool skip_symbol) {
  std::vector<std::string> items;
  for (const auto& [name, value] : attrs.values()) {
    if (skip_symbol && name == "global_symbol") continue;
    items.push_back(name);
    items.push_back(std::string(AttrTypeName(TypeOf(value))) + ":" + AttrValueToString(value));
  }
  Token(std::to_string(items.size() / 2));
  for (std::string& item : items) Token(std::move(item));
}

void CanonicalStream::Block(const BindingBlock& block) {
  Token(block.is_dataflow ? "dataflow" : "block");
  Token(std::to_string(block.bindings.size()));
  for (const Binding& b : block.bindings) {
    Token(b.is_match_cast() ? "match_cast" : "bind");
    AddExpr(b.value);
    if (b.is_match_cast()) AddStructInfo(b.pattern);
    VarDef(b.var);
  }
}

void CanonicalStream::AddExpr(const Expr& e) {
  if (!e.defined()) {
    Token("undef");
    return;
  }
  Token(ExprKindName(e.kind()));
  switch (e.kind()) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
      Token("%" + std::to_string(Index(e.get())));
      break;
    case ExprKind::kConstant: {
      const HostTensor& t = e.as<ConstantNode>()->data;
      AddStructInfo(e.struct_info());
      StableHasher h;
      const auto* bytes = static_cast<const uint8_t*>(t.data());
      for (size_t i = 0; i < t.nbytes(); ++i) h.Byte(bytes[i]);
      Token(std::to_string(h.value()));
      break;
    }
    case ExprKind::kTuple: {
      const auto& fields = e.as<TupleNode>()->fields;
      Token(std::to_string(fields.size()));
      for (const Expr& f : fields) AddExpr(f);
      break;
    }
    case ExprKind::kTupleGetItem:
      Token(std::to_string(e.as<TupleGetItemNode>()->index));
      AddExpr(e.as<TupleGetItemNode>()->tuple);
      break;
    case ExprKind::kShapeExpr: {
      const auto& values = e.as<ShapeExprNode>()->values;
      Token(std::to_string(values.size()));
      for (const PrimExpr& v : values) AddDim(v);
      break;
    }
    case ExprKind::kPrimValue:
      AddDim(e.as<PrimValueNode>()->value);
      break;
    case ExprKind::kCall: {
      const auto* c = e.as<CallNode>();
      Token(c->op);
      AddExpr(c->callee);
      Token(std::to_string(c->args.size()));
      for (const Expr& a : c->args) AddExpr(a);
      AttrList(c->attrs, false);
      Token(std::to_string(c->sinfo_args.size()));
      for (const StructInfo& s : c->sinfo_args) AddStructInfo(s);
      break;
    }
    case ExprKind::kGlobalVar:
      Token(e.as<GlobalVarNode>()->name);
      break;
    case ExprKind::kExternFunc:
      Token(e.as<ExternFuncNode>()->symbol);
      break;
    case ExprKind::kSeqExpr: {
      const auto* seq = e.as<SeqExprNode>();
      Token(std::to_string(seq->blocks.size()));
      for (const BindingBlock& block : seq->blocks) Block(block);
      AddExpr(seq->body);
      break;
    }
    case ExprKind::kFunction: {
      const auto* f = e.as<FunctionNode>();
      Token(std::to_string(f->params.size()));
      for (const Var& p : f->params) VarDef(p);
      AddExpr(f->body);
      AddStructInfo(f->ret_struct_info);
      AttrList(f->attrs, true);
      break;
    }
  }
}

uint64_t CanonicalStream::Hash() const {
  StableHasher h;
  for (const std::string& t : tokens_) h.String(t);
  return h.value();
}

std::string CanonicalStream::Text() const {
  std::string s;
  for (const std::string& t : tokens_) s += (s.empty() ? "" : " ") + t;
  return s;
}

}  // namespace kiln::ir::relax
