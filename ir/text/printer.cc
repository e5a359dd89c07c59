// The TVMScript printer. It follows TVM's printed layout (4-space indent, T.grid for nests of
// plain serial loops, T.axis.remap for iter vars bound straight to loop vars, the root block
// left implicit) and chooses every sugar so that the parser rebuilds the same node: a form is
// printed only when ir/text/parser.cc reads it back to an equal structure. The dialect changes
// names (T.block / T.sblock, keys, the header) and, in 0.24+, how symbolic shapes are declared:
// int64 variables as `n = TypeVar("n")` above the function, int32 ones by a string at their
// first use in the signature, T.Buffer(("n", 64)), and `n = T.int32()` in the body, as TVM
// 0.27 prints them, so that TVM reads the text back to the same function.
#include "ir/text/printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "ir/arith/expr_compare.h"
#include "ir/functor.h"
#include "ir/text/call_rules.h"
#include "ir/text/print_sparse.h"
#include "ir/text/print_util.h"

namespace kiln::ir {
namespace {

// Python operator precedence, loosest first; an atom binds tightest.
enum Prec : int { kOr = 1, kAnd, kNot, kCompare, kAdd, kMul, kUnary, kAtom };

struct Doc {
  std::string text;
  int prec = kAtom;
};

bool IsZeroOf(const Expr& e, DataType dtype) {
  return e.as<IntImmNode>() && e.dtype() == dtype && IsConstInt(e, 0);
}

class Printer {
 public:
  explicit Printer(const TirPrintOptions& options)
      : options_(options), v24_(options.dialect == TirDialect::kTvm024) {}

  const std::vector<std::string>& type_vars() const { return type_vars_; }

  std::string Function(const PrimFunc& f) {
    auto symbol = f->attrs.find("global_symbol");
    bool is_private = symbol == f->attrs.end();
    std::string fname = f->name.empty() ? "main" : IdentifierFrom(f->name);
    used_.insert(fname);
    std::vector<Var> free_vars = FreeVars(*f.get());
    for (const Var& v : free_vars) free_set_.insert(v.get());
    std::string head;
    if (v24_) {
      // int64 shape variables: declared above the function, as TVM 0.24+ prints them.
      for (const Var& v : free_vars) {
        if (v.dtype() != DataType::Int(64)) continue;
        type_vars_.push_back(Define(v.get(), v->name));
        head += type_vars_.back() + " = TypeVar(" + QuoteString(type_vars_.back()) + ")\n";
      }
      if (options_.standalone) {
        out_ = type_vars_.empty() ? "" : "# from typing import TypeVar\n";
        out_ += "# from tvm.script import tirx as T\n\n" + head;
      }
      out_ +=
          is_private ? "@T.prim_func(private=True, s_tir=True)\n" : "@T.prim_func(s_tir=True)\n";
    } else {
      if (options_.standalone) out_ = "# from tvm.script import tir as T\n\n";
      out_ += is_private ? "@T.prim_func(private=True)\n" : "@T.prim_func\n";
    }

    // Parameters: simple buffers as T.Buffer annotations, others through match_buffer;
    // SparseTIR's sparse buffers and an axis's implicit indptr/indices as bare handles.
    std::unordered_set<const void*> sparse_params = SparseHandleParams(*f.get());
    std::vector<std::string> params;
    std::vector<std::pair<std::string, Buffer>> matched;
    for (const Var& p : f->params) {
      auto buffer = f->BufferOf(p);
      if (sparse_params.count(p.get())) {
        std::string name = Define(p.get(), p->name);
        // An axis's indptr or indices: the body loads indptr[i] by the handle's name.
        bool sparse_buffer =
            std::any_of(f->sp_buffers.begin(), f->sp_buffers.end(),
                        [&](const SparseBuffer& sb) { return sb.param.same_as(p); });
        if (buffer && !sparse_buffer) names_[buffer->get()] = name;
        params.push_back(name + ": T.handle");
      } else if (buffer && IsSimpleParamBuffer(*buffer)) {
        std::string shape = v24_ ? ParamShape((*buffer)->shape) : "";
        std::string name = DefineBuffer(*buffer);
        names_[p.get()] = name;
        if (!v24_) shape = Shape((*buffer)->shape);
        std::string offset;
        if (!IsZeroOf((*buffer)->elem_offset, DataType::Int(32))) {
          offset = ", elem_offset=" + Print((*buffer)->elem_offset).text;
        }
        params.push_back(name + ": T.Buffer(" + shape + ", " +
                         QuoteString((*buffer)->dtype.ToString()) + offset + ")");
      } else if (buffer) {
        std::string hint = p->name == (*buffer)->name ? "var_" + p->name : p->name;
        std::string name = Define(p.get(), hint);
        params.push_back(name + ": T.handle");
        matched.emplace_back(name, *buffer);
      } else {
        std::string name = Define(p.get(), p->name);
        params.push_back(name + ": " + TypeName(p.dtype()));
      }
    }
    out_ += "def " + fname + "(";
    for (size_t i = 0; i < params.size(); ++i) out_ += (i ? ", " : "") + params[i];
    out_ += "):\n";
    indent_ = 1;

    Annotations attrs = f->attrs;
    if (!is_private) {
      if (const auto* s = symbol->second.as<StringImmNode>(); s && s->value == fname) {
        attrs.erase("global_symbol");
      }
    }
    if (v24_) {
      for (const RenamedAttrKey& key : RenamedAttrKeys()) {
        auto it = attrs.find(std::string(key.kiln));
        if (it == attrs.end() || attrs.count(std::string(key.tvm024))) continue;
        Expr value = it->second;
        attrs.erase(it);
        attrs[std::string(key.tvm024)] = value;
      }
      // TVM 0.24+ declares the other shape variables first, then the attributes.
      for (const Var& v : free_vars) {
        if (v.dtype() == DataType::Int(64)) continue;  // a TypeVar
        std::string name = VarName(v);
        Line(name + " = " + TypeName(v.dtype()) + "()");
      }
    }
    // T.func_attr comes first, as TVM prints it, unless its values name declared variables.
    bool attrs_use_vars = false;
    for (const auto& [key, value] : attrs) {
      attrs_use_vars |= !FreeVarsOf(value).empty();
    }
    if (!attrs.empty() && !attrs_use_vars) Line("T.func_attr(" + Dict(attrs) + ")");
    for (const auto& [name, buffer] : matched) DeclareFreeVars(buffer);
    for (const auto& [name, buffer] : matched) {
      std::string bname = DefineBuffer(buffer);
      Line(bname + " = T.match_buffer(" + name + ", " + BufferArgs(buffer) + ")");
    }
    for (const Var& v : free_vars) {
      if (names_.count(v.get())) continue;
      Line(Define(v.get(), v->name) + " = " + TypeName(v.dtype()) + "()");
    }
    if (!attrs.empty() && attrs_use_vars) Line("T.func_attr(" + Dict(attrs) + ")");
    SparseDecls(*f.get());

    const auto* realize = f->body.as<BlockRealizeNode>();
    if (realize && IsImplicitRoot(*realize)) {
      const BlockNode* root = realize->block_node();
      Line(v24_ ? "# with T.sblock(\"root\"):" : "# with T.block(\"root\"):");
      for (const Buffer& b : root->alloc_buffers) AllocBuffer(b);
      Body(root->body);
    } else if (f->body.defined()) {
      Body(f->body);
    } else {
      Line("T.evaluate(0)");
    }
    return out_;
  }

  std::string StmtText(const Stmt& s) {
    Body(s);
    return out_;
  }

  std::string ExprText(const Expr& e) { return Print(e).text; }

 private:
  // ---- names --------------------------------------------------------------------------

  // A fresh printed name for `key` from `hint`: the hint itself, else hint_1, hint_2, ...
  std::string Define(const void* key, const std::string& hint) {
    std::string base = IdentifierFrom(hint);
    std::string name = base;
    for (int i = 1; used_.count(name) || ReservedNames().count(name); ++i) {
      name = base + "_" + std::to_string(i);
    }
    used_.insert(name);
    scopes_.back().push_back(name);
    names_[key] = name;
    return name;
  }

  // Names are released when the scope that defined them ends, so sibling loops and blocks
  // reuse them as TVM prints them; the parser scopes names the same way.
  void EnterScope() { scopes_.emplace_back(); }
  void ExitScope() {
    for (const std::string& name : scopes_.back()) used_.erase(name);
    scopes_.pop_back();
  }

  std::string DefineBuffer(const Buffer& b) {
    std::string name = Define(b.get(), b->name.empty() ? "buf" : b->name);
    if (b->data.defined() && !names_.count(b->data.get())) {
      names_[b->data.get()] = name + ".data";
    }
    return name;
  }

  std::string VarName(const Var& v) {
    auto it = names_.find(v.get());
    return it != names_.end() ? it->second : Define(v.get(), v->name);
  }

  std::string BufferName(const Buffer& b) {
    auto it = names_.find(b.get());
    return it != names_.end() ? it->second : DefineBuffer(b);
  }

  // Declares (n = T.int32()) the variables in a buffer's fields that have no name yet.
  void DeclareFreeVars(const Buffer& b) {
    struct Collector : IRVisitor {
      std::vector<Var> vars;
      void VisitExpr_(const VarNode* op) override { vars.push_back(GetRef<Var>(op)); }
    } collector;
    for (const Expr& e : b->shape) collector.VisitExpr(e);
    for (const Expr& e : b->strides) collector.VisitExpr(e);
    if (b->elem_offset.defined()) collector.VisitExpr(b->elem_offset);
    for (const Var& v : collector.vars) {
      if (names_.count(v.get())) continue;
      std::string name = Define(v.get(), v->name);
      Line(name + " = " + TypeName(v.dtype()) + "()");
    }
  }

  // ---- pieces -------------------------------------------------------------------------

  static std::string TypeName(DataType t) { return "T." + t.ToString(); }

  void Line(const std::string& text) {
    out_.append(static_cast<size_t>(indent_) * 4, ' ');
    out_ += text;
    out_ += '\n';
  }

  std::string List(const std::vector<Expr>& exprs) {
    std::string s;
    for (size_t i = 0; i < exprs.size(); ++i) s += (i ? ", " : "") + Print(exprs[i]).text;
    return s;
  }

  std::string Shape(const std::vector<Expr>& shape) {
    if (shape.size() == 1) return "(" + Print(shape[0]).text + ",)";
    return "(" + List(shape) + ")";
  }

  std::string AnnotationValue(const Expr& e) {
    if (e.as<IntImmNode>() && e.dtype().is_bool()) {
      // TVM 0.24+ keeps a Python bool in attribute maps; T.bool(True) would read back as an
      // IntImm there, not an equal value.
      if (v24_) return IsConstInt(e, 0) ? "False" : "True";
      return IsConstInt(e, 0) ? "T.bool(False)" : "T.bool(True)";
    }
    return Print(e).text;
  }

  std::string Dict(const Annotations& annotations) {
    std::string s = "{";
    bool first = true;
    for (const auto& [key, value] : annotations) {
      s += (first ? "" : ", ") + QuoteString(key) + ": " + AnnotationValue(value);
      first = false;
    }
    return s + "}";
  }

  bool IsSimpleParamBuffer(const Buffer& b) {
    if (!b->strides.empty() || b->scope != "global" || b->align != 0) return false;
    if (!b->data.defined() || names_.count(b->data.get())) return false;
    if (!b->elem_offset.defined()) return false;
    if (!v24_) {
      if (!IsZeroOf(b->elem_offset, DataType::Int(32))) return false;
      for (const Expr& e : b->shape) {
        if (!e.as<IntImmNode>()) return false;
      }
      return true;
    }
    // 0.24+: shapes and offsets over variables that are already named (TypeVars, earlier
    // parameters) or, for a bare int32 variable, named here by a string.
    auto declared = [&](const Expr& e) {
      for (const Var& v : FreeVarsOf(e)) {
        if (!names_.count(v.get())) return false;
      }
      return true;
    };
    if (!IsZeroOf(b->elem_offset, DataType::Int(32)) && !declared(b->elem_offset)) return false;
    std::unordered_set<const VarNode*> named_here;
    for (const Expr& e : b->shape) {
      const auto* v = e.as<VarNode>();
      if (v && !names_.count(v) && free_set_.count(v) && v->dtype == DataType::Int(32) &&
          !named_here.count(v)) {
        named_here.insert(v);
        continue;
      }
      if (!declared(e) && !(v && named_here.count(v))) return false;
    }
    return true;
  }

  // A parameter's shape in the 0.24 dialect: a variable not named yet is defined by its
  // first use, written as a string ("n"), as TVM prints te's int32 shape variables.
  std::string ParamShape(const std::vector<Expr>& shape) {
    std::vector<std::string> items;
    for (const Expr& e : shape) {
      const auto* v = e.as<VarNode>();
      if (v && !names_.count(v) && free_set_.count(v)) {
        items.push_back(QuoteString(Define(v, v->name)));
      } else {
        items.push_back(Print(e).text);
      }
    }
    if (items.size() == 1) return "(" + items[0] + ",)";
    std::string s = "(";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
    return s + ")";
  }

  // "(shape), dtype, data=..., strides=..., elem_offset=..., scope=..., align=..."
  std::string BufferArgs(const Buffer& b) {
    std::string s = Shape(b->shape);
    if (b->dtype != DataType::Float(32)) s += ", " + QuoteString(b->dtype.ToString());
    if (b->data.defined()) {
      auto it = names_.find(b->data.get());
      auto own = names_.find(b.get());
      bool own_data =
          own != names_.end() && it != names_.end() && it->second == own->second + ".data";
      if (it != names_.end() && !own_data) s += ", data=" + it->second;
    }
    if (!b->strides.empty()) s += ", strides=" + Shape(b->strides);
    if (!b->elem_offset.defined()) {
      s += ", elem_offset=None";
    } else if (!IsZeroOf(b->elem_offset, DataType::Int(32))) {
      s += ", elem_offset=" + Print(b->elem_offset).text;
    }
    if (b->scope != "global") s += ", scope=" + QuoteString(b->scope);
    if (b->align != 0) s += ", align=" + std::to_string(b->align);
    return s;
  }

  // Defines the buffer's name before its arguments are printed only when its data var is
  // new, so `data=` names the storage of an earlier buffer.
  std::string BufferDecl(const Buffer& b, const char* fn, std::string* name) {
    DeclareFreeVars(b);
    bool shares_data = b->data.defined() && names_.count(b->data.get());
    if (b->data.defined() && !shares_data) {
      std::string data_name = Define(b->data.get(), b->name + "_data");
      Line(data_name + " = T.handle()");
    }
    *name = Define(b.get(), b->name.empty() ? "buf" : b->name);
    return std::string("T.") + fn + "(" + BufferArgs(b) + ")";
  }

  void AllocBuffer(const Buffer& b) {
    DeclareFreeVars(b);
    bool shares_data = b->data.defined() && names_.count(b->data.get());
    std::string name =
        shares_data ? Define(b.get(), b->name.empty() ? "buf" : b->name) : DefineBuffer(b);
    Line(name + (v24_ ? " = T.sblock_alloc_buffer(" : " = T.alloc_buffer(") + BufferArgs(b) + ")");
  }

  // The upper bound min + extent of a range, in the form the parser splits back.
  std::string RangeEnd(const Expr& min, const Expr& extent) {
    auto lo = AsConstInt(min);
    auto ext = AsConstInt(extent);
    if (lo && ext && extent.as<IntImmNode>()) {
      // Wrapping, as the parser's max - min wraps back.
      uint64_t end = static_cast<uint64_t>(*lo) + static_cast<uint64_t>(*ext);
      return Print(IntImm(extent.dtype(), static_cast<int64_t>(end))).text;
    }
    Expr sum(std::make_shared<const AddNode>(min.dtype(), min, extent));
    return Print(sum).text;
  }

  std::string RangeArgs(const Expr& min, const Expr& extent) {
    if (IsZeroOf(min, extent.dtype())) return Print(extent).text;
    return Print(min).text + ", " + RangeEnd(min, extent);
  }

  std::string Region(const BufferRegion& r) {
    std::string s = BufferName(r.buffer) + "[";
    if (r.region.empty()) return s + "()]";
    for (size_t i = 0; i < r.region.size(); ++i) {
      const Range& range = r.region[i];
      s += i ? ", " : "";
      if (range.extent.as<IntImmNode>() && IsConstInt(range.extent, 1) &&
          range.extent.dtype() == range.min.dtype()) {
        s += Print(range.min).text;
      } else {
        s += Print(range.min).text + ":" + RangeEnd(range.min, range.extent);
      }
    }
    return s + "]";
  }

  // ---- expressions --------------------------------------------------------------------

  std::string Paren(const Doc& d, bool needed) { return needed ? "(" + d.text + ")" : d.text; }

  Doc Binary(const Expr& a, const Expr& b, const char* op, int prec) {
    Doc da = Print(a);
    Doc db = Print(b);
    bool compare = prec == kCompare;
    return {Paren(da, compare ? da.prec <= prec : da.prec < prec) + " " + op + " " +
                Paren(db, db.prec <= prec),
            prec};
  }

  Doc Fn(const std::string& name, const std::vector<Expr>& args) {
    return {"T." + name + "(" + List(args) + ")", kAtom};
  }

  Doc Print(const Expr& e) {
    if (!e.defined()) return {"None", kAtom};
    switch (e.kind()) {
      case NodeKind::kVar:
        return {VarName(Var(e.ptr())), kAtom};
      case NodeKind::kIntImm: {
        int64_t v = e.as<IntImmNode>()->value;
        DataType t = e.dtype();
        if (t.is_bool()) return {v ? "True" : "False", kAtom};
        if (t == DataType::Int(32) && v >= INT32_MIN && v <= INT32_MAX) {
          return {std::to_string(v), v < 0 ? kUnary : kAtom};
        }
        return {TypeName(t) + "(" + std::to_string(v) + ")", kAtom};
      }
      case NodeKind::kFloatImm:
        return {TypeName(e.dtype()) + "(" + FloatLiteral(e.as<FloatImmNode>()->value) + ")", kAtom};
      case NodeKind::kStringImm:
        return {QuoteString(e.as<StringImmNode>()->value), kAtom};
      case NodeKind::kAdd:
        return Binary(e.as<AddNode>()->a, e.as<AddNode>()->b, "+", kAdd);
      case NodeKind::kSub:
        return Binary(e.as<SubNode>()->a, e.as<SubNode>()->b, "-", kAdd);
      case NodeKind::kMul:
        return Binary(e.as<MulNode>()->a, e.as<MulNode>()->b, "*", kMul);
      case NodeKind::kDiv: {
        const auto* op = e.as<DivNode>();
        if (e.dtype().is_float()) return Binary(op->a, op->b, "/", kMul);
        return Fn("truncdiv", {op->a, op->b});
      }
      case NodeKind::kMod:
        return Fn("truncmod", {e.as<ModNode>()->a, e.as<ModNode>()->b});
      case NodeKind::kFloorDiv:
        return Binary(e.as<FloorDivNode>()->a, e.as<FloorDivNode>()->b, "//", kMul);
      case NodeKind::kFloorMod:
        return Binary(e.as<FloorModNode>()->a, e.as<FloorModNode>()->b, "%", kMul);
      case NodeKind::kMin:
        return Fn("min", {e.as<MinNode>()->a, e.as<MinNode>()->b});
      case NodeKind::kMax:
        return Fn("max", {e.as<MaxNode>()->a, e.as<MaxNode>()->b});
      case NodeKind::kEQ:
        return Binary(e.as<EQNode>()->a, e.as<EQNode>()->b, "==", kCompare);
      case NodeKind::kNE:
        return Binary(e.as<NENode>()->a, e.as<NENode>()->b, "!=", kCompare);
      case NodeKind::kLT:
        return Binary(e.as<LTNode>()->a, e.as<LTNode>()->b, "<", kCompare);
      case NodeKind::kLE:
        return Binary(e.as<LENode>()->a, e.as<LENode>()->b, "<=", kCompare);
      case NodeKind::kGT:
        return Binary(e.as<GTNode>()->a, e.as<GTNode>()->b, ">", kCompare);
      case NodeKind::kGE:
        return Binary(e.as<GENode>()->a, e.as<GENode>()->b, ">=", kCompare);
      case NodeKind::kAnd:
        return Binary(e.as<AndNode>()->a, e.as<AndNode>()->b, "and", kAnd);
      case NodeKind::kOr:
        return Binary(e.as<OrNode>()->a, e.as<OrNode>()->b, "or", kOr);
      case NodeKind::kNot: {
        Doc a = Print(e.as<NotNode>()->a);
        return {"not " + Paren(a, a.prec < kNot), kNot};
      }
      case NodeKind::kSelect: {
        const auto* op = e.as<SelectNode>();
        return Fn("Select", {op->condition, op->true_value, op->false_value});
      }
      case NodeKind::kCast:
        return {"T.Cast(" + QuoteString(e.dtype().ToString()) + ", " +
                    Print(e.as<CastNode>()->value).text + ")",
                kAtom};
      case NodeKind::kCall: {
        const auto* op = e.as<CallNode>();
        std::string error;
        auto t = IntrinsicResultType(op->op, op->args, &error);
        if (t && *t == e.dtype()) return Fn(op->op, op->args);
        std::string s =
            "T.call_intrin(" + QuoteString(e.dtype().ToString()) + ", " + QuoteString(op->op);
        for (const Expr& arg : op->args) s += ", " + Print(arg).text;
        return {s + ")", kAtom};
      }
      case NodeKind::kBufferLoad: {
        const auto* op = e.as<BufferLoadNode>();
        std::string name = BufferName(op->buffer);
        if (op->indices.empty()) return {name + "[()]", kAtom};
        return {name + "[" + List(op->indices) + "]", kAtom};
      }
      case NodeKind::kRamp: {
        const auto* op = e.as<RampNode>();
        return {"T.Ramp(" + Print(op->base).text + ", " + Print(op->stride).text + ", " +
                    std::to_string(op->lanes) + ")",
                kAtom};
      }
      case NodeKind::kBroadcast: {
        const auto* op = e.as<BroadcastNode>();
        return {"T.Broadcast(" + Print(op->value).text + ", " + std::to_string(op->lanes) + ")",
                kAtom};
      }
      case NodeKind::kLet: {
        const auto* op = e.as<LetNode>();
        std::string value = Print(op->value).text;
        EnterScope();
        std::string var = Define(op->var.get(), op->var->name);
        std::string body = Print(op->body).text;
        ExitScope();
        return {"T.Let(" + body + ", where={" + var + ": " + value + "})", kAtom};
      }
      default:
        return {"<?>", kAtom};
    }
  }

  // ---- statements ---------------------------------------------------------------------

  bool IsImplicitRoot(const BlockRealizeNode& realize) {
    const BlockNode* b = realize.block_node();
    return b && b->name == "root" && b->iter_vars.empty() && realize.iter_values.empty() &&
           realize.predicate.defined() && IsConstInt(realize.predicate, 1) && b->reads.empty() &&
           b->writes.empty() && !b->init.defined() && b->annotations.empty() &&
           (!b->alloc_buffers.empty() || ContainsBlock(b->body));
  }

  // `s` as a list of statements at the current indent. A let or buffer declaration that
  // ends its list prints flat (its body follows at the same indent); elsewhere it takes a
  // `with` scope so that the statements after it stay outside.
  void Body(const Stmt& s) {
    if (!s.defined()) {
      Line("T.evaluate(0)");
      return;
    }
    if (const auto* seq = s.as<SeqStmtNode>()) {
      if (seq->seq.empty()) Line("T.evaluate(0)");
      for (size_t i = 0; i < seq->seq.size(); ++i) Item(seq->seq[i], i + 1 == seq->seq.size());
      return;
    }
    Item(s, true);
  }

  void Scoped(const Stmt& body) {
    ++indent_;
    EnterScope();
    Body(body);
    ExitScope();
    --indent_;
  }

  void Item(const Stmt& s, bool last) {
    if (const auto* op = s.as<LetStmtNode>()) {
      std::string value = Print(op->value).text;
      if (last) {
        std::string var = Define(op->var.get(), op->var->name);
        std::string type = TypeName(op->var.dtype());
        Line(var + ": " + (v24_ ? "T.let[" + type + "]" : type) + " = " + value);
        Body(op->body);
      } else {
        EnterScope();
        std::string var = Define(op->var.get(), op->var->name);
        Line("with T.LetStmt(" + value + ") as " + var + ":");
        Scoped(op->body);
        ExitScope();
      }
      return;
    }
    if (s.kind() == NodeKind::kAllocate || s.kind() == NodeKind::kDeclBuffer) {
      const Buffer& buffer = s.kind() == NodeKind::kAllocate ? s.as<AllocateNode>()->buffer
                                                             : s.as<DeclBufferNode>()->buffer;
      const Stmt& body = s.kind() == NodeKind::kAllocate ? s.as<AllocateNode>()->body
                                                         : s.as<DeclBufferNode>()->body;
      std::string name;
      std::string decl;
      if (!last) EnterScope();
      if (s.kind() == NodeKind::kAllocate) {
        DeclareFreeVars(buffer);
        name = DefineBuffer(buffer);
        decl = "T.decl_buffer(" + BufferArgs(buffer) + ")";
      } else {
        decl = BufferDecl(buffer, "decl_buffer", &name);
      }
      if (last) {
        Line(name + " = " + decl);
        Body(body);
      } else {
        Line("with " + decl + " as " + name + ":");
        Scoped(body);
        ExitScope();
      }
      return;
    }
    Statement(s);
  }

  void Statement(const Stmt& s) {
    switch (s.kind()) {
      case NodeKind::kBufferStore: {
        const auto* op = s.as<BufferStoreNode>();
        std::string target =
            BufferName(op->buffer) + (op->indices.empty() ? "[()]" : "[" + List(op->indices) + "]");
        Line(target + " = " + Print(op->value).text);
        return;
      }
      case NodeKind::kFor:
        return Loop(s.as<ForNode>());
      case NodeKind::kBlockRealize: {
        const auto* op = s.as<BlockRealizeNode>();
        return BlockStmt(op->block_node(), op);
      }
      case NodeKind::kBlock:
        return BlockStmt(s.as<BlockNode>(), nullptr);
      case NodeKind::kSeqStmt:
        return Body(s);
      case NodeKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        Line("if " + Print(op->condition).text + ":");
        Scoped(op->then_case);
        if (op->else_case.defined()) {
          Line("else:");
          Scoped(op->else_case);
        }
        return;
      }
      case NodeKind::kEvaluate:
        Line("T.evaluate(" + Print(s.as<EvaluateNode>()->value).text + ")");
        return;
      case NodeKind::kSparseIteration:
        return SpIterStmt(s.as<SparseIterationNode>());
      default:
        Item(s, true);
    }
  }

  // ---- SparseTIR ------------------------------------------------------------------------

  std::string AxisName(const Axis& axis) {
    auto it = names_.find(axis.get());
    return it != names_.end() ? it->second : Define(axis.get(), axis->name);
  }

  std::string AxisList(const std::vector<Axis>& axes) {
    std::string s = "[";
    for (size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + AxisName(axes[i]);
    return s + "]";
  }

  void SparseDecls(const PrimFuncNode& f) {
    const AxisDeclNames names{[this](const Axis& a) { return AxisName(a); },
                              [this](const Buffer& b) { return BufferName(b); },
                              [this](const Expr& e) { return Print(e).text; }};
    for (const Axis& axis : f.sp_axes) {
      std::string args = AxisDeclArgs(axis, names);
      std::string name = Define(axis.get(), axis->name);
      Line(name + " = T." + AxisKindName(axis->kind) + "(" + args + ")");
    }
    for (const SparseBuffer& sb : f.sp_buffers) {
      const Buffer& b = sb.buffer;
      std::string args = AxisList(sb.axes) + ", " + QuoteString(b->dtype.ToString());
      std::string fn = "alloc_sparse_buffer";
      if (sb.param.defined()) {
        fn = "match_sparse_buffer";
        args = VarName(sb.param) + ", " + args;
        if (sb.extra_storage.defined()) args += ", extra_storage=" + Print(sb.extra_storage).text;
      } else if (b->scope != "global") {
        args += ", scope=" + QuoteString(b->scope);
      }
      std::string name = DefineBuffer(b);
      Line(name + " = T." + fn + "(" + args + ")");
    }
  }

  void SpIterStmt(const SparseIterationNode* op) {
    std::string axes = SpIterAxes(*op, [this](const Axis& a) { return AxisName(a); });
    EnterScope();
    std::string names;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      names += (i ? ", " : "") + Define(op->iter_vars[i].var.get(), op->iter_vars[i].var->name);
    }
    Line("with T.sp_iter(" + axes + ", " + QuoteString(op->name) + ") as [" + names + "]:");
    ++indent_;
    if (op->init.defined()) {
      Line("with T.init():");
      Scoped(op->init);
    }
    Body(op->body);
    --indent_;
    ExitScope();
  }

  void Loop(const ForNode* loop) {
    std::vector<const ForNode*> grid;
    std::unordered_set<const VarNode*> grid_vars;
    for (const ForNode* l = loop; l; l = l->body.as<ForNode>()) {
      if (l->for_kind != ForKind::kSerial || !l->annotations.empty() || !l->thread_tag.empty() ||
          !IsZeroOf(l->min, l->extent.dtype()) || l->loop_var.dtype() != l->extent.dtype()) {
        break;
      }
      bool depends = false;
      for (const VarNode* v : grid_vars) depends |= arith::UsesVar(l->extent, v);
      if (depends) break;
      grid.push_back(l);
      grid_vars.insert(l->loop_var.get());
    }
    if (grid.size() > 1) {
      std::string vars;
      std::vector<Expr> extents;
      for (size_t i = 0; i < grid.size(); ++i) {
        extents.push_back(grid[i]->extent);
      }
      std::string extent_text = List(extents);
      EnterScope();
      for (size_t i = 0; i < grid.size(); ++i) {
        vars += (i ? ", " : "") + Define(grid[i]->loop_var.get(), grid[i]->loop_var->name);
        loops_[grid[i]->loop_var.get()] = grid[i];
      }
      Line("for " + vars + " in T.grid(" + extent_text + "):");
      Scoped(grid.back()->body);
      ExitScope();
      for (const ForNode* l : grid) loops_.erase(l->loop_var.get());
      return;
    }
    std::string args = RangeArgs(loop->min, loop->extent);
    std::string fn;
    switch (loop->for_kind) {
      case ForKind::kSerial:
        fn = loop->annotations.empty() ? "range" : "T.serial";
        break;
      case ForKind::kParallel:
        fn = "T.parallel";
        break;
      case ForKind::kVectorized:
        fn = "T.vectorized";
        break;
      case ForKind::kUnrolled:
        fn = "T.unroll";
        break;
      case ForKind::kThreadBinding:
        fn = "T.thread_binding";
        break;
    }
    if (loop->for_kind == ForKind::kThreadBinding || !loop->thread_tag.empty()) {
      args += ", thread=" + QuoteString(loop->thread_tag);
    }
    if (!loop->annotations.empty()) args += ", annotations=" + Dict(loop->annotations);
    EnterScope();
    std::string var = Define(loop->loop_var.get(), loop->loop_var->name);
    Line("for " + var + " in " + fn + "(" + args + "):");
    loops_[loop->loop_var.get()] = loop;
    Scoped(loop->body);
    ExitScope();
    loops_.erase(loop->loop_var.get());
  }

  bool Remappable(const IterVar& iv, const Expr& value) {
    if (iv.kind == IterKind::kOpaque) return false;
    const auto* v = value.as<VarNode>();
    if (!v || v->dtype != iv.var.dtype()) return false;
    auto it = loops_.find(v);
    return it != loops_.end() && arith::ExprDeepEqual(it->second->min, iv.dom.min) &&
           arith::ExprDeepEqual(it->second->extent, iv.dom.extent);
  }

  void IterVarLine(const IterVar& iv, const Expr* value) {
    std::string dom = RangeArgs(iv.dom.min, iv.dom.extent);
    if (!IsZeroOf(iv.dom.min, iv.dom.extent.dtype())) dom = "(" + dom + ")";
    std::string args = dom + (value ? ", " + Print(*value).text : "");
    std::string name = Define(iv.var.get(), iv.var->name);
    Line(name + " = T.axis." + IterKindName(iv.kind) + "(" + args + ")");
  }

  void BlockStmt(const BlockNode* block, const BlockRealizeNode* realize) {
    std::string header =
        std::string(v24_ ? "with T.sblock(" : "with T.block(") + QuoteString(block->name);
    Line(header + (realize ? "):" : ", no_realize=True):"));
    ++indent_;
    EnterScope();
    // Iter vars: runs of remappable ones as T.axis.remap, the rest one per line.
    std::vector<size_t> run;
    auto flush = [&]() {
      if (run.size() == 1) IterVarLine(block->iter_vars[run[0]], &realize->iter_values[run[0]]);
      if (run.size() > 1) {
        std::string kinds;
        std::vector<Expr> values;
        for (size_t i : run) {
          kinds += block->iter_vars[i].kind == IterKind::kSpatial ? "S" : "R";
          values.push_back(realize->iter_values[i]);
        }
        std::string value_text = List(values);
        std::string names;
        for (size_t k = 0; k < run.size(); ++k) {
          const IterVar& iv = block->iter_vars[run[k]];
          names += (k ? ", " : "") + Define(iv.var.get(), iv.var->name);
        }
        Line(names + " = T.axis.remap(\"" + kinds + "\", [" + value_text + "])");
      }
      run.clear();
    };
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      bool has_value = realize && i < realize->iter_values.size();
      if (has_value && Remappable(block->iter_vars[i], realize->iter_values[i])) {
        run.push_back(i);
        continue;
      }
      flush();
      IterVarLine(block->iter_vars[i], has_value ? &realize->iter_values[i] : nullptr);
    }
    flush();
    if (realize && realize->predicate.defined() && !IsConstInt(realize->predicate, 1)) {
      Line("T.where(" + Print(realize->predicate).text + ")");
    }
    auto regions = [&](const std::vector<BufferRegion>& rs) {
      std::string s;
      for (size_t i = 0; i < rs.size(); ++i) s += (i ? ", " : "") + Region(rs[i]);
      return s;
    };
    // Regions of a buffer the block allocates can only be read back after its allocation.
    bool allocs_first = false;
    for (const Buffer& b : block->alloc_buffers) {
      for (const BufferRegion& r : block->reads) allocs_first |= r.buffer.same_as(b);
      for (const BufferRegion& r : block->writes) allocs_first |= r.buffer.same_as(b);
    }
    if (allocs_first) {
      for (const Buffer& b : block->alloc_buffers) AllocBuffer(b);
    }
    Line("T.reads(" + regions(block->reads) + ")");
    Line("T.writes(" + regions(block->writes) + ")");
    if (!block->annotations.empty()) {
      Line((v24_ ? "T.sblock_attr(" : "T.block_attr(") + Dict(block->annotations) + ")");
    }
    if (!allocs_first) {
      for (const Buffer& b : block->alloc_buffers) AllocBuffer(b);
    }
    if (block->init.defined()) {
      Line("with T.init():");
      Scoped(block->init);
    }
    Body(block->body);
    ExitScope();
    --indent_;
  }

  TirPrintOptions options_;
  bool v24_;
  std::vector<std::string> type_vars_;
  std::unordered_set<const VarNode*> free_set_;  // the function's symbolic variables
  std::string out_;
  int indent_ = 0;
  std::unordered_map<const void*, std::string> names_;
  std::unordered_set<std::string> used_;
  std::vector<std::vector<std::string>> scopes_{1};
  std::unordered_map<const VarNode*, const ForNode*> loops_;
};

}  // namespace

TirDialect ParseTirDialect(std::string_view name) {
  if (name == "tvm-0.23") return TirDialect::kTvm023;
  if (name == "tvm-0.24" || name == "tvm-0.27") return TirDialect::kTvm024;
  throw Error(ErrorKind::kUnsupported, "unknown TensorIR dialect '" + std::string(name) +
                                           "': expected tvm-0.24 (TVM 0.24 and later, the "
                                           "default) or tvm-0.23 (TVM up to 0.23)");
}

std::string_view TirDialectName(TirDialect dialect) {
  return dialect == TirDialect::kTvm023 ? "tvm-0.23" : "tvm-0.24";
}

std::string PrintPrimFunc(const PrimFunc& f, const TirPrintOptions& options) {
  return Printer(options).Function(f);
}

std::vector<std::string> PrintedTypeVars(const PrimFunc& f, const TirPrintOptions& options) {
  Printer printer(options);
  printer.Function(f);
  return printer.type_vars();
}

std::string PrintStmt(const Stmt& s, const TirPrintOptions& options) {
  return Printer(options).StmtText(s);
}

std::string PrintExpr(const Expr& e, const TirPrintOptions& options) {
  return Printer(options).ExprText(e);
}

}  // namespace kiln::ir
