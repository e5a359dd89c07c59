// PrimFunc -> TVM 0.24+'s JSON object graph of an IRModule (see prim_func_graph.h).
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ir/arith/const_fold.h"
#include "ir/op.h"
#include "ir/text/print_util.h"
#include "ir/tvm_json/prim_func_graph.h"
#include "ir/tvm_json/prim_func_graph_names.h"
#include "ir/tvm_json/writer.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

using namespace graph_names;

class FuncWriter {
 public:
  std::string Write(const PrimFunc& func, std::string_view tvm_version) {
    null_ = w_.AddNull();
    int64_t type = w_.AddObject("ir.Type", {Span()});
    int64_t main = String("main");
    int64_t global_var = w_.AddObject("ir.GlobalVar", {Span(), WriterField::Ref("ty", type),
                                                       WriterField::Ref("name_hint", main)});
    int64_t func_node = WriteFunc(func);
    int64_t functions = w_.AddMap({{global_var, func_node}});
    int64_t names = w_.AddMap({{main, global_var}});
    int64_t source_map =
        w_.AddObject("ir.SourceMap", {WriterField::Ref("source_map", w_.AddMap({}))});
    int64_t attrs = w_.AddObject("ir.DictAttrs", {WriterField::Ref("__dict__", w_.AddMap({}))});
    int64_t module = w_.AddObject(
        "ir.IRModule",
        {WriterField::Ref("functions", functions), WriterField::Ref("global_var_map_", names),
         WriterField::Ref("source_map", source_map), WriterField::Ref("attrs", attrs),
         WriterField::Ref("global_infos", w_.AddMap({}))});
    return w_.Write(module, GraphFormat::kFfi, tvm_version, 2);
  }

 private:
  WriterField Span() const { return WriterField::Ref("span", null_); }

  int64_t String(const std::string& s) {
    auto [it, added] = strings_.emplace(s, 0);
    if (added) it->second = w_.AddString(s);
    return it->second;
  }

  int64_t Int(int64_t value) {
    auto [it, added] = ints_.emplace(value, 0);
    if (added) it->second = w_.AddInt(value);
    return it->second;
  }

  int64_t Bool(bool value) {
    int64_t& node = value ? true_ : false_;
    if (node < 0) node = w_.AddBool(value);
    return node;
  }

  int64_t PrimType(DataType dtype) {
    std::string name = dtype.ToString();
    auto [it, added] = types_.emplace(name, 0);
    if (added) {
      it->second = w_.AddObject("ir.PrimType", {Span(), WriterField::String("dtype", name)});
    }
    return it->second;
  }

  int64_t Array(const std::vector<int64_t>& elements) { return w_.AddArray(elements); }

  int64_t IntImmNode(DataType dtype, int64_t value) {
    int64_t boxed = Int(value);
    return w_.AddObject("ir.IntImm", {Span(), WriterField::Ref("ty", PrimType(dtype)),
                                      WriterField::Ref("value", boxed)});
  }

  int64_t WriteFunc(const PrimFunc& func) {
    std::vector<int64_t> params, param_types;
    for (const Var& p : func->params) {
      if (std::optional<Buffer> buffer = func->BufferOf(p)) {
        params.push_back(BufferVar(*buffer));
        param_types.push_back(TensorType(*buffer));
      } else {
        params.push_back(VarNode(p));
        param_types.push_back(PrimType(p.dtype()));
      }
    }
    int64_t unit = w_.AddObject("ir.TupleType", {Span(), WriterField::Ref("fields", Array({}))});
    int64_t func_type = w_.AddObject(
        "relax.FuncType",
        {Span(), WriterField::Ref("params", Array(param_types)), WriterField::Ref("ret", unit),
         WriterField::Ref("derive_func", null_), WriterField::Bool("purity", false)});
    std::vector<std::pair<int64_t, int64_t>> attrs;
    for (const auto& [key, value] : func->attrs) {
      attrs.emplace_back(String(TvmAttrKey(key)), AttrValue(value));
    }
    attrs.emplace_back(String("s_tir"), Bool(true));
    int64_t dict = w_.AddObject("ir.DictAttrs", {WriterField::Ref("__dict__", w_.AddMap(attrs))});
    int64_t ret = w_.AddObject("ir.TupleType", {Span(), WriterField::Ref("fields", Array({}))});
    int64_t body = Body(func->body);
    return w_.AddObject("tirx.PrimFunc",
                        {Span(), WriterField::Ref("ty", func_type), WriterField::Ref("attrs", dict),
                         WriterField::Ref("params", Array(params)),
                         WriterField::Ref("ret_type", ret), WriterField::Ref("body", body)});
  }

  // The parameter's type as TVM derives it: a tensor type whose shape is in int64.
  int64_t TensorType(const Buffer& buffer) {
    std::vector<int64_t> dims;
    for (const Expr& d : buffer->shape) {
      if (d.dtype() == DataType::Int(64)) {
        dims.push_back(ExprNode(d));
      } else if (auto value = AsConstInt(d)) {
        dims.push_back(IntImmNode(DataType::Int(64), *value));
      } else {
        dims.push_back(ExprNode(Cast(DataType::Int(64), d)));
      }
    }
    int64_t values = Array(dims);
    int64_t ndim = static_cast<int64_t>(dims.size());
    int64_t shape_type =
        w_.AddObject("relax.ShapeType",
                     {Span(), WriterField::Ref("values", values), WriterField::Int("ndim", ndim)});
    int64_t shape = w_.AddObject(
        "relax.expr.ShapeExpr",
        {Span(), WriterField::Ref("ty", shape_type), WriterField::Ref("values", values)});
    return w_.AddObject("relax.TensorType",
                        {Span(), WriterField::Ref("shape", shape),
                         WriterField::Ref("dtype", PrimType(buffer->dtype)),
                         WriterField::Ref("vdevice", null_), WriterField::Int("ndim", ndim)});
  }

  int64_t AttrValue(const Expr& value) {
    if (const auto* imm = value.as<ir::IntImmNode>()) {
      if (value.dtype().is_bool()) return Bool(imm->value != 0);
      if (value.dtype() == DataType::Int(32)) return Int(imm->value);
    }
    if (const auto* imm = value.as<FloatImmNode>(); imm && value.dtype() == DataType::Float(32)) {
      return w_.AddFloat(imm->value);
    }
    if (const auto* imm = value.as<StringImmNode>()) return String(imm->value);
    return ExprNode(value);
  }

  int64_t Annotations(const ir::Annotations& annotations) {
    std::vector<std::pair<int64_t, int64_t>> entries;
    for (const auto& [key, value] : annotations) {
      entries.emplace_back(String(key), AttrValue(value));
    }
    return w_.AddMap(entries);
  }

  int64_t BufferVar(const Buffer& buffer) {
    if (auto it = buffers_.find(buffer.get()); it != buffers_.end()) return it->second;
    std::vector<int64_t> shape, strides;
    for (const Expr& d : buffer->shape) shape.push_back(ExprNode(d));
    for (const Expr& s : buffer->strides) strides.push_back(ExprNode(s));
    // TVM's zero offset has the dtype of the buffer's index arithmetic (its shape's).
    DataType index = buffer->shape.empty() ? DataType::Int(32) : buffer->shape[0].dtype();
    int64_t offset = IsConstInt(buffer->elem_offset, 0) || !buffer->elem_offset.defined()
                         ? IntImmNode(index, 0)
                         : ExprNode(buffer->elem_offset);
    int64_t type = w_.AddObject(
        "tirx.BufferType",
        {Span(), WriterField::Ref("dtype", PrimType(buffer->dtype)),
         WriterField::Ref("storage_scope", String(buffer->scope)),
         WriterField::Ref("shape", Array(shape)), WriterField::Ref("strides", Array(strides)),
         WriterField::Ref("elem_offset", offset),
         WriterField::Int("data_alignment", buffer->align == 0 ? 64 : buffer->align),
         WriterField::Int("offset_factor", 1), WriterField::Ref("layout", null_),
         WriterField::Ref("allocated_addr", Array({}))});
    int64_t var = w_.AddObject("ir.Var", {Span(), WriterField::Ref("ty", type),
                                          WriterField::Ref("name", String(buffer->name))});
    buffers_.emplace(buffer.get(), var);
    return var;
  }

  int64_t VarNode(const Var& var) {
    if (auto it = vars_.find(var.get()); it != vars_.end()) return it->second;
    KILN_CHECK(!var.dtype().is_handle(), ErrorKind::kUnsupported,
               "TVM JSON graph: the handle variable " + var.name() +
                   " has no form here (only tensor parameters mapped to buffers)");
    int64_t node = w_.AddObject("ir.Var", {Span(), WriterField::Ref("ty", PrimType(var.dtype())),
                                           WriterField::Ref("name", String(var.name()))});
    vars_.emplace(var.get(), node);
    return node;
  }

  std::vector<int64_t> ExprNodes(const std::vector<Expr>& exprs) {
    std::vector<int64_t> out;
    for (const Expr& e : exprs) out.push_back(ExprNode(e));
    return out;
  }

  int64_t ExprNode(const Expr& e) {
    auto typed = [&](const char* type, std::vector<WriterField> fields) {
      fields.insert(fields.begin(), {Span(), WriterField::Ref("ty", PrimType(e.dtype()))});
      return w_.AddObject(type, std::move(fields));
    };
    switch (e.kind()) {
      case ir::NodeKind::kVar:
        return VarNode(Var(e.ptr()));
      case ir::NodeKind::kIntImm:
        return IntImmNode(e.dtype(), e.as<ir::IntImmNode>()->value);
      case ir::NodeKind::kFloatImm:
        return typed("ir.FloatImm", {WriterField::Float("value", e.as<FloatImmNode>()->value)});
      case ir::NodeKind::kStringImm: {
        int64_t type = w_.AddObject("ir.StringType", {Span()});
        return w_.AddObject("ir.StringImm",
                            {Span(), WriterField::Ref("ty", type),
                             WriterField::Ref("value", String(e.as<StringImmNode>()->value))});
      }
      case ir::NodeKind::kNot:
        return typed("prim.Not", {WriterField::Ref("a", ExprNode(e.as<NotNode>()->a))});
      case ir::NodeKind::kSelect: {
        const auto* s = e.as<SelectNode>();
        int64_t c = ExprNode(s->condition), t = ExprNode(s->true_value),
                f = ExprNode(s->false_value);
        return typed("prim.Select",
                     {WriterField::Ref("condition", c), WriterField::Ref("true_value", t),
                      WriterField::Ref("false_value", f)});
      }
      case ir::NodeKind::kCast:
        return typed("prim.Cast", {WriterField::Ref("value", ExprNode(e.as<CastNode>()->value))});
      case ir::NodeKind::kCall: {
        const auto* c = e.as<CallNode>();
        int64_t args = Array(ExprNodes(c->args));
        int64_t op = w_.AddStringObject("ir.Op", TvmOpName(c->op));
        return typed("ir.Call",
                     {WriterField::Ref("op", op), WriterField::Ref("args", args),
                      WriterField::Ref("attrs", null_), WriterField::Ref("ty_args", Array({}))});
      }
      case ir::NodeKind::kBufferLoad: {
        const auto* l = e.as<BufferLoadNode>();
        int64_t source = BufferVar(l->buffer);
        int64_t indices = Array(ExprNodes(l->indices));
        return typed("ir.TensorLoad",
                     {WriterField::Ref("source", source), WriterField::Ref("indices", indices)});
      }
      case ir::NodeKind::kRamp: {
        const auto* r = e.as<RampNode>();
        int64_t base = ExprNode(r->base), stride = ExprNode(r->stride);
        int64_t lanes = IntImmNode(DataType::Int(32), r->lanes);
        return typed("prim.Ramp",
                     {WriterField::Ref("base", base), WriterField::Ref("stride", stride),
                      WriterField::Ref("lanes", lanes)});
      }
      case ir::NodeKind::kBroadcast: {
        const auto* b = e.as<BroadcastNode>();
        int64_t value = ExprNode(b->value);
        int64_t lanes = IntImmNode(DataType::Int(32), b->lanes);
        return typed("prim.Broadcast",
                     {WriterField::Ref("value", value), WriterField::Ref("lanes", lanes)});
      }
      case ir::NodeKind::kLet: {
        const auto* l = e.as<LetNode>();
        int64_t var = VarNode(l->var), value = ExprNode(l->value), body = ExprNode(l->body);
        return typed("prim.Let", {WriterField::Ref("var", var), WriterField::Ref("value", value),
                                  WriterField::Ref("body", body)});
      }
      default:
        break;
    }
    for (const BinaryKind& kind : kBinaryKinds) {
      if (e.kind() != kind.kiln) continue;
      Expr lhs, rhs;
      ir::arith::GetBinaryOperands(e, &lhs, &rhs);
      int64_t a = ExprNode(lhs), b = ExprNode(rhs);
      return typed(kind.tvm, {WriterField::Ref("a", a), WriterField::Ref("b", b)});
    }
    throw Error(ErrorKind::kUnsupported, std::string("TVM JSON graph: the expression kind ") +
                                             NodeKindName(e.kind()) + " has no form here");
  }

  int64_t Range(const ir::Range& r) {
    int64_t min = ExprNode(r.min), extent = ExprNode(r.extent);
    return w_.AddObject("ir.Range",
                        {WriterField::Ref("min", min), WriterField::Ref("extent", extent), Span()});
  }

  // A statement as TVM's node; a LetStmt becomes a Bind followed by its body's statements.
  int64_t Body(const Stmt& s) {
    std::vector<int64_t> items;
    Stmts(s, items);
    if (items.size() == 1) return items[0];
    return w_.AddObject("tirx.SeqStmt", {Span(), WriterField::Ref("seq", Array(items))});
  }

  void Stmts(const Stmt& s, std::vector<int64_t>& out) {
    switch (s.kind()) {
      case ir::NodeKind::kSeqStmt:
        for (const Stmt& item : s.as<SeqStmtNode>()->seq) Stmts(item, out);
        return;
      case ir::NodeKind::kLetStmt: {
        const auto* l = s.as<LetStmtNode>();
        int64_t var = VarNode(l->var), value = ExprNode(l->value);
        out.push_back(w_.AddObject(
            "tirx.Bind", {Span(), WriterField::Ref("var", var), WriterField::Ref("value", value)}));
        Stmts(l->body, out);
        return;
      }
      default:
        out.push_back(StmtNode(s));
    }
  }

  int64_t StmtNode(const Stmt& s) {
    switch (s.kind()) {
      case ir::NodeKind::kBufferStore: {
        const auto* st = s.as<BufferStoreNode>();
        int64_t buffer = BufferVar(st->buffer), value = ExprNode(st->value);
        int64_t indices = Array(ExprNodes(st->indices));
        return w_.AddObject("tirx.BufferStore", {Span(), WriterField::Ref("buffer", buffer),
                                                 WriterField::Ref("value", value),
                                                 WriterField::Ref("indices", indices)});
      }
      case ir::NodeKind::kFor: {
        const auto* f = s.as<ForNode>();
        int64_t var = VarNode(f->loop_var), min = ExprNode(f->min), extent = ExprNode(f->extent);
        int64_t binding = null_;
        if (f->for_kind == ForKind::kThreadBinding) {
          // TVM's parser binds a thread loop through an IterVar of its own ("iter").
          int64_t iter =
              w_.AddObject("ir.Var", {Span(), WriterField::Ref("ty", PrimType(f->loop_var.dtype())),
                                      WriterField::Ref("name", String("iter"))});
          binding = w_.AddObject("tirx.IterVar",
                                 {WriterField::Ref("dom", null_), WriterField::Ref("var", iter),
                                  WriterField::Int("iter_type", kTvmThreadIndex),
                                  WriterField::Ref("thread_tag", String(f->thread_tag)), Span()});
        }
        int64_t annotations = Annotations(f->annotations);
        int64_t body = Body(f->body);
        return w_.AddObject(
            "tirx.For",
            {Span(), WriterField::Ref("loop_var", var), WriterField::Ref("min", min),
             WriterField::Ref("extent", extent),
             WriterField::Int("kind", static_cast<int64_t>(f->for_kind)),
             WriterField::Ref("body", body), WriterField::Ref("thread_binding", binding),
             WriterField::Ref("annotations", annotations), WriterField::Ref("step", null_)});
      }
      case ir::NodeKind::kBlockRealize:
        return Realize(*s.as<BlockRealizeNode>());
      case ir::NodeKind::kIfThenElse: {
        const auto* i = s.as<IfThenElseNode>();
        int64_t condition = ExprNode(i->condition), then_case = Body(i->then_case);
        int64_t else_case = i->else_case.defined() ? Body(i->else_case) : null_;
        return w_.AddObject("tirx.IfThenElse", {Span(), WriterField::Ref("condition", condition),
                                                WriterField::Ref("then_case", then_case),
                                                WriterField::Ref("else_case", else_case)});
      }
      case ir::NodeKind::kEvaluate: {
        int64_t value = ExprNode(s.as<EvaluateNode>()->value);
        return w_.AddObject("tirx.Evaluate", {Span(), WriterField::Ref("value", value)});
      }
      default:
        throw Error(ErrorKind::kUnsupported, std::string("TVM JSON graph: the statement kind ") +
                                                 NodeKindName(s.kind()) +
                                                 " has no form here (lowered code is never a "
                                                 "tuning workload)");
    }
  }

  int64_t Realize(const BlockRealizeNode& realize) {
    const BlockNode* block = realize.block_node();
    int64_t values = Array(ExprNodes(realize.iter_values));
    int64_t predicate = ExprNode(realize.predicate);
    std::vector<int64_t> iter_vars, allocs;
    for (const IterVar& iv : block->iter_vars) {
      int64_t dom = Range(iv.dom), var = VarNode(iv.var);
      int64_t kind = iv.kind == IterKind::kSpatial  ? kTvmDataPar
                     : iv.kind == IterKind::kReduce ? kTvmCommReduce
                                                    : kTvmOpaque;
      iter_vars.push_back(
          w_.AddObject("tirx.IterVar", {WriterField::Ref("dom", dom), WriterField::Ref("var", var),
                                        WriterField::Int("iter_type", kind),
                                        WriterField::Ref("thread_tag", String("")), Span()}));
    }
    int64_t reads = Regions(block->reads), writes = Regions(block->writes);
    for (const Buffer& b : block->alloc_buffers) allocs.push_back(BufferVar(b));
    int64_t annotations = Annotations(block->annotations);
    int64_t init = block->init.defined() ? Body(block->init) : null_;
    int64_t body = Body(block->body);
    int64_t block_node = w_.AddObject(
        "s_tir.SBlock",
        {Span(), WriterField::Ref("iter_vars", Array(iter_vars)), WriterField::Ref("reads", reads),
         WriterField::Ref("writes", writes), WriterField::Ref("name_hint", String(block->name)),
         WriterField::Ref("alloc_buffers", Array(allocs)),
         WriterField::Ref("match_buffers", Array({})), WriterField::Ref("annotations", annotations),
         WriterField::Ref("init", init), WriterField::Ref("body", body)});
    return w_.AddObject("s_tir.SBlockRealize", {Span(), WriterField::Ref("iter_values", values),
                                                WriterField::Ref("predicate", predicate),
                                                WriterField::Ref("block", block_node)});
  }

  int64_t Regions(const std::vector<BufferRegion>& regions) {
    std::vector<int64_t> out;
    for (const BufferRegion& r : regions) {
      int64_t source = BufferVar(r.buffer);
      std::vector<int64_t> ranges;
      for (const ir::Range& range : r.region) ranges.push_back(Range(range));
      if (region_type_ < 0) region_type_ = w_.AddObject("tirx.BufferRegionType", {Span()});
      out.push_back(w_.AddObject("ir.TensorRegion", {Span(), WriterField::Ref("ty", region_type_),
                                                     WriterField::Ref("source", source),
                                                     WriterField::Ref("region", Array(ranges))}));
    }
    return Array(out);
  }

  GraphWriter w_;
  int64_t null_ = 0;
  int64_t true_ = -1, false_ = -1, region_type_ = -1;
  std::map<std::string, int64_t> strings_, types_;
  std::map<int64_t, int64_t> ints_;
  std::unordered_map<const ir::VarNode*, int64_t> vars_;
  std::unordered_map<const BufferNode*, int64_t> buffers_;
};

}  // namespace

std::string WritePrimFuncModuleJson(const PrimFunc& func, std::string_view tvm_version) {
  return FuncWriter().Write(func, tvm_version);
}

}  // namespace kiln::ir::tvm_json
