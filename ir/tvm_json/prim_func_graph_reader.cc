// TVM 0.24+'s JSON object graph of an IRModule -> PrimFunc (see prim_func_graph.h).
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ir/op.h"
#include "ir/text/print_util.h"
#include "ir/tvm_json/prim_func_graph.h"
#include "ir/tvm_json/prim_func_graph_names.h"
#include "ir/tvm_json/writer.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

using namespace graph_names;

class FuncReader {
 public:
  explicit FuncReader(const Graph& graph) : g_(graph) {}

  PrimFunc Read(int64_t func, std::string name) {
    Expect(func, "tirx.PrimFunc");
    auto node = std::make_shared<PrimFuncNode>();
    node->name = std::move(name);
    // TVM 0.24 to 0.26: handle parameters and a map from them to their buffers.
    std::map<int64_t, int64_t> buffer_map;
    if (g_.HasField(func, "buffer_map")) {
      for (auto [param, buffer] : g_.Entries(g_.Ref(func, "buffer_map"))) {
        buffer_map[param] = buffer;
      }
    }
    for (int64_t p : g_.Elements(g_.Ref(func, "params"))) {
      if (auto it = buffer_map.find(p); it != buffer_map.end()) {
        Buffer buffer = BufferAt(it->second);
        Var handle(g_.StringValue(g_.Ref(p, "name")), DataType::Handle());
        node->params.push_back(handle);
        node->buffer_map.emplace_back(handle, buffer);
      } else if (IsBufferVar(p)) {
        // Kiln's parser gives a tensor parameter a handle Var and a Buffer with its own data Var.
        Buffer buffer = BufferAt(p);
        Var handle(buffer->name, DataType::Handle());
        node->params.push_back(handle);
        node->buffer_map.emplace_back(handle, buffer);
      } else {
        node->params.push_back(VarAt(p));
      }
    }
    int64_t attrs = g_.Ref(func, "attrs");
    if (!g_.IsNull(attrs)) {
      Expect(attrs, "ir.DictAttrs");
      for (auto& [key, value] : AnnotationsAt(g_.Ref(attrs, "__dict__"))) {
        // s_tir=True marks a function with blocks; every Kiln function is one.
        if (key == "s_tir") continue;
        node->attrs[KilnAttrKey(key)] = value;
      }
    }
    node->body = StmtAt(g_.Ref(func, "body"), 0);
    return PrimFunc(std::move(node));
  }

 private:
  // The node's type as TVM 0.27 names it. TVM 0.24 to 0.26 wrote TensorIR nodes under "tirx."
  // ("tirx.Var", "tirx.Add", "tirx.BufferLoad", "tirx.SBlock"), with inline dtypes and buffers
  // as objects of their own; the reader takes both and tells them apart by their fields.
  std::string Type(int64_t n) const {
    const std::string& type = g_.node(n).type_key;
    static const std::map<std::string, std::string, std::less<>> kRenamed = {
        {"tirx.Var", "ir.Var"},
        {"tirx.SizeVar", "ir.Var"},
        {"tirx.SBlock", "s_tir.SBlock"},
        {"tirx.SBlockRealize", "s_tir.SBlockRealize"},
        {"tirx.BufferLoad", "ir.TensorLoad"},
        {"tirx.BufferRegion", "ir.TensorRegion"},
        {"tirx.Call", "ir.Call"},
        {"tirx.StringImm", "ir.StringImm"}};
    if (auto it = kRenamed.find(type); it != kRenamed.end()) return it->second;
    if (type.rfind("tirx.", 0) == 0) {
      std::string prim = "prim." + type.substr(5);
      if (FindBinary(prim) || prim == "prim.Not" || prim == "prim.Select" || prim == "prim.Cast" ||
          prim == "prim.Ramp" || prim == "prim.Broadcast" || prim == "prim.Let") {
        return prim;
      }
    }
    return type;
  }

  // Whether the field holds an inline string (0.24 to 0.26's dtypes) rather than a reference.
  bool InlineString(int64_t n, std::string_view field) const {
    if (!g_.HasField(n, field)) return false;
    try {
      g_.Str(n, field);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  void Expect(int64_t n, std::string_view type) const {
    KILN_CHECK(Type(n) == type, ErrorKind::kParse, g_.Where(n) + ": expected " + std::string(type));
  }

  void CheckDepth(int64_t n, int depth) const {
    KILN_CHECK(depth < kMaxDepth, ErrorKind::kParse,
               g_.Where(n) + ": nested deeper than " + std::to_string(kMaxDepth) +
                   " levels (a cycle in the graph?)");
  }

  DataType DtypeOf(int64_t n) const {
    if (InlineString(n, "dtype")) {
      std::optional<DataType> dtype = DataType::Parse(g_.Str(n, "dtype"));
      KILN_CHECK(dtype.has_value(), ErrorKind::kUnsupported,
                 g_.Where(n) + ": dtype \"" + g_.Str(n, "dtype") + "\" is not one Kiln has");
      return *dtype;
    }
    int64_t ty = g_.Ref(n, "ty");
    KILN_CHECK(Type(ty) == "ir.PrimType", ErrorKind::kUnsupported,
               g_.Where(n) + ", field \"ty\": " + g_.Where(ty) + " is not a scalar type");
    const std::string& text = g_.Str(ty, "dtype");
    std::optional<DataType> dtype = DataType::Parse(text);
    KILN_CHECK(dtype.has_value(), ErrorKind::kUnsupported,
               g_.Where(ty) + ": dtype \"" + text + "\" is not one Kiln has");
    return *dtype;
  }

  bool IsBufferVar(int64_t n) const {
    return Type(n) == "ir.Var" && g_.HasField(n, "ty") &&
           Type(g_.Ref(n, "ty")) == "tirx.BufferType";
  }

  Var VarAt(int64_t n) {
    if (auto it = exprs_.find(n); it != exprs_.end()) {
      KILN_CHECK(it->second.kind() == ir::NodeKind::kVar, ErrorKind::kParse,
                 g_.Where(n) + ": expected a variable");
      return Var(it->second.ptr());
    }
    Expect(n, "ir.Var");
    KILN_CHECK(!IsBufferVar(n), ErrorKind::kParse,
               g_.Where(n) + ": a buffer where a scalar variable was expected");
    DataType dtype = DtypeOf(n);
    // Kiln's only handles are tensor parameters', which are buffer variables in TVM's graph.
    KILN_CHECK(!dtype.is_handle() && !dtype.is_void(), ErrorKind::kUnsupported,
               g_.Where(n) + ": a variable of dtype " + dtype.ToString() + " is not supported");
    Var var(g_.StringValue(g_.Ref(n, "name")), dtype);
    exprs_.emplace(n, var);
    return var;
  }

  Buffer BufferAt(int64_t n) {
    if (auto it = buffers_.find(n); it != buffers_.end()) return it->second;
    if (Type(n) == "tirx.Buffer") return OlderBufferAt(n);
    KILN_CHECK(IsBufferVar(n), ErrorKind::kParse, g_.Where(n) + ": expected a buffer variable");
    KILN_CHECK(in_progress_.insert(n).second, ErrorKind::kParse,
               g_.Where(n) + ": the buffer's type refers to the buffer itself");
    int64_t type = g_.Ref(n, "ty");
    auto node = std::make_shared<BufferNode>();
    node->name = g_.StringValue(g_.Ref(n, "name"));
    int64_t dtype = g_.Ref(type, "dtype");
    Expect(dtype, "ir.PrimType");
    std::optional<DataType> parsed = DataType::Parse(g_.Str(dtype, "dtype"));
    KILN_CHECK(parsed && !parsed->is_handle(), ErrorKind::kUnsupported,
               g_.Where(type) + ", field \"dtype\": " + g_.Str(dtype, "dtype") +
                   " is not an element type Kiln has");
    node->dtype = *parsed;
    for (int64_t e : g_.Elements(g_.Ref(type, "shape"))) node->shape.push_back(IndexAt(e, type));
    for (int64_t e : g_.Elements(g_.Ref(type, "strides"))) {
      node->strides.push_back(IndexAt(e, type));
    }
    KILN_CHECK(node->strides.empty() || node->strides.size() == node->shape.size(),
               ErrorKind::kParse,
               g_.Where(type) + ": " + std::to_string(node->strides.size()) + " strides for " +
                   std::to_string(node->shape.size()) + " dimensions");
    // Kiln's parser writes a zero offset as int32 whatever the shape's dtype; TVM as the shape's.
    int64_t offset = g_.Ref(type, "elem_offset");
    node->elem_offset = IntImm(DataType::Int(32), 0);
    if (!g_.IsNull(offset)) {
      Expr e = IndexAt(offset, type);
      if (!IsConstInt(e, 0)) node->elem_offset = e;
    }
    node->scope = g_.StringValue(g_.Ref(type, "storage_scope"));
    int64_t align = g_.Int(type, "data_alignment");
    KILN_CHECK(align >= 0, ErrorKind::kParse,
               g_.Where(type) + ", field \"data_alignment\": negative");
    node->align = align == kTvmDefaultAlign ? 0 : align;
    KILN_CHECK(!g_.HasField(type, "layout") || g_.IsNull(g_.Ref(type, "layout")),
               ErrorKind::kUnsupported, g_.Where(type) + ": a buffer layout is not supported");
    node->data = Var(node->name, DataType::Handle());
    Buffer buffer(std::move(node));
    in_progress_.erase(n);
    buffers_.emplace(n, buffer);
    return buffer;
  }

  // TVM 0.24 to 0.26: a "tirx.Buffer" with an inline dtype, its name, and a data variable whose
  // pointer type holds the storage scope.
  Buffer OlderBufferAt(int64_t n) {
    KILN_CHECK(in_progress_.insert(n).second, ErrorKind::kParse,
               g_.Where(n) + ": the buffer refers to itself");
    auto node = std::make_shared<BufferNode>();
    node->name = g_.StringValue(g_.Ref(n, "name"));
    std::optional<DataType> dtype = DataType::Parse(g_.Str(n, "dtype"));
    KILN_CHECK(dtype && !dtype->is_handle(), ErrorKind::kUnsupported,
               g_.Where(n) + ", field \"dtype\": " + g_.Str(n, "dtype") +
                   " is not an element type Kiln has");
    node->dtype = *dtype;
    for (int64_t e : g_.Elements(g_.Ref(n, "shape"))) node->shape.push_back(IndexAt(e, n));
    for (int64_t e : g_.Elements(g_.Ref(n, "strides"))) node->strides.push_back(IndexAt(e, n));
    KILN_CHECK(node->strides.empty() || node->strides.size() == node->shape.size(),
               ErrorKind::kParse,
               g_.Where(n) + ": " + std::to_string(node->strides.size()) + " strides for " +
                   std::to_string(node->shape.size()) + " dimensions");
    KILN_CHECK(
        !g_.HasField(n, "axis_separators") || g_.Elements(g_.Ref(n, "axis_separators")).empty(),
        ErrorKind::kUnsupported, g_.Where(n) + ": axis separators are not supported");
    KILN_CHECK(!g_.HasField(n, "layout") || g_.IsNull(g_.Ref(n, "layout")), ErrorKind::kUnsupported,
               g_.Where(n) + ": a buffer layout is not supported");
    node->elem_offset = IntImm(DataType::Int(32), 0);
    int64_t offset = g_.Ref(n, "elem_offset");
    if (!g_.IsNull(offset)) {
      Expr e = IndexAt(offset, n);
      if (!IsConstInt(e, 0)) node->elem_offset = e;
    }
    int64_t align = g_.Int(n, "data_alignment");
    KILN_CHECK(align >= 0, ErrorKind::kParse, g_.Where(n) + ", field \"data_alignment\": negative");
    node->align = align == kTvmDefaultAlign ? 0 : align;
    int64_t data = g_.Ref(n, "data");
    KILN_CHECK(Type(data) == "ir.Var", ErrorKind::kParse,
               g_.Where(n) + ", field \"data\": expected a variable");
    int64_t pointer = g_.Ref(data, "type_annotation");
    if (!g_.IsNull(pointer) && Type(pointer) == "ir.PointerType") {
      std::string scope = g_.StringValue(g_.Ref(pointer, "storage_scope"));
      if (!scope.empty()) node->scope = scope;
    }
    node->data = Var(node->name, DataType::Handle());
    Buffer buffer(std::move(node));
    in_progress_.erase(n);
    buffers_.emplace(n, buffer);
    return buffer;
  }

  // A shape, stride or offset entry: an integer expression.
  Expr IndexAt(int64_t n, int64_t owner) {
    Expr e = ExprAt(n, 0);
    KILN_CHECK(e.dtype().is_scalar() && (e.dtype().is_int() || e.dtype().is_uint()),
               ErrorKind::kParse, g_.Where(owner) + ": " + g_.Where(n) + " is not an integer");
    return e;
  }

  Range RangeAt(int64_t n, int depth) {
    Expect(n, "ir.Range");
    return RangeFromMinExtent(ExprAt(g_.Ref(n, "min"), depth + 1),
                              ExprAt(g_.Ref(n, "extent"), depth + 1));
  }

  std::vector<Expr> ExprsAt(int64_t array, int depth) {
    std::vector<Expr> out;
    for (int64_t e : g_.Elements(array)) out.push_back(ExprAt(e, depth + 1));
    return out;
  }

  Expr ExprAt(int64_t n, int depth) {
    if (auto it = exprs_.find(n); it != exprs_.end()) return it->second;
    CheckDepth(n, depth);
    KILN_CHECK(in_progress_.insert(n).second, ErrorKind::kParse,
               g_.Where(n) + ": the expression contains itself");
    Expr e = MakeExpr(n, depth);
    in_progress_.erase(n);
    exprs_.emplace(n, e);
    return e;
  }

  Expr MakeExpr(int64_t n, int depth) {
    const std::string& type = Type(n);
    auto sub = [&](std::string_view field) { return ExprAt(g_.Ref(n, field), depth + 1); };
    if (type == "ir.Var") {
      in_progress_.erase(n);
      return VarAt(n);
    }
    if (type == "ir.IntImm") {
      DataType dtype = DtypeOf(n);
      KILN_CHECK(dtype.is_integral() && dtype.is_scalar(), ErrorKind::kParse,
                 g_.Where(n) + ": an IntImm of dtype " + dtype.ToString());
      // 0.24 to 0.26 write the value inline, with the dtype.
      return IntImm(dtype, InlineString(n, "dtype") ? g_.Int(n, "value") : g_.BoxedInt(n, "value"));
    }
    if (type == "ir.FloatImm") {
      DataType dtype = DtypeOf(n);
      KILN_CHECK(dtype.is_float() && dtype.is_scalar(), ErrorKind::kParse,
                 g_.Where(n) + ": a FloatImm of dtype " + dtype.ToString());
      return FloatImm(dtype, g_.Float(n, "value"));
    }
    if (type == "ir.StringImm") {
      return StringImm(InlineString(n, "value") ? g_.Str(n, "value")
                                                : g_.StringValue(g_.Ref(n, "value")));
    }
    if (const BinaryKind* kind = FindBinary(type)) return kind->make(sub("a"), sub("b"));
    if (type == "prim.Not") return Not(sub("a"));
    if (type == "prim.Select") {
      return Select(sub("condition"), sub("true_value"), sub("false_value"));
    }
    if (type == "prim.Cast") return Cast(DtypeOf(n), sub("value"));
    if (type == "prim.Ramp") return Ramp(sub("base"), sub("stride"), Lanes(n));
    if (type == "prim.Broadcast") return Broadcast(sub("value"), Lanes(n));
    if (type == "prim.Let") {
      Var var = VarAt(g_.Ref(n, "var"));
      return Let(var, sub("value"), sub("body"));
    }
    if (type == "ir.TensorLoad") {
      Buffer buffer = BufferAt(g_.Ref(n, g_.HasField(n, "source") ? "source" : "buffer"));
      std::vector<Expr> indices = ExprsAt(g_.Ref(n, "indices"), depth);
      KILN_CHECK(indices.size() == buffer.ndim(), ErrorKind::kParse,
                 g_.Where(n) + ": " + std::to_string(indices.size()) + " indices into " +
                     buffer->name + " of " + std::to_string(buffer.ndim()) + " dimensions");
      return BufferLoad(buffer, std::move(indices));
    }
    if (type == "ir.Call") {
      int64_t op = g_.Ref(n, "op");
      Expect(op, "ir.Op");
      std::string name = KilnOpName(g_.StringValue(op));
      std::vector<Expr> args = ExprsAt(g_.Ref(n, "args"), depth);
      if (name == kIfThenElse) {
        KILN_CHECK(args.size() == 3, ErrorKind::kParse,
                   g_.Where(n) + ": if_then_else takes 3 arguments");
        return IfThenElseCall(args[0], args[1], args[2]);
      }
      std::optional<IntrinsicInfo> info = LookupIntrinsic(name);
      KILN_CHECK(info.has_value(), ErrorKind::kUnsupported,
                 g_.Where(n) + ": the op " + g_.StringValue(op) + " is not one Kiln has");
      KILN_CHECK(static_cast<int>(args.size()) == info->num_args, ErrorKind::kParse,
                 g_.Where(n) + ": " + name + " takes " + std::to_string(info->num_args) +
                     " arguments, got " + std::to_string(args.size()));
      return Call(DtypeOf(n), name, std::move(args));
    }
    throw Error(ErrorKind::kUnsupported, g_.Where(n) + ": not an expression Kiln's TensorIR has");
  }

  int Lanes(int64_t n) {
    int64_t lanes = g_.IntValue(g_.Ref(n, "lanes"));
    KILN_CHECK(lanes >= 1 && lanes <= 1024, ErrorKind::kParse,
               g_.Where(n) + ", field \"lanes\": " + std::to_string(lanes) + " lanes");
    return static_cast<int>(lanes);
  }

  Expr AnnotationValue(int64_t n) {
    const Node& node = g_.node(n);
    switch (node.kind) {
      case tvm_json::NodeKind::kBool:
        return BoolImm(node.bool_value);
      case tvm_json::NodeKind::kInt:
        KILN_CHECK(node.int_value >= INT32_MIN && node.int_value <= INT32_MAX, ErrorKind::kParse,
                   g_.Where(n) + ": annotation value out of int32's range");
        return IntImm(DataType::Int(32), node.int_value);
      case tvm_json::NodeKind::kFloat:
        return FloatImm(DataType::Float(32), node.float_value);
      case tvm_json::NodeKind::kString:
        return StringImm(node.string_value);
      default:
        break;
    }
    Expr e = ExprAt(n, 0);
    KILN_CHECK(e.as<IntImmNode>() || e.as<FloatImmNode>() || e.as<StringImmNode>(),
               ErrorKind::kUnsupported,
               g_.Where(n) + ": an annotation value that is not a number or a string");
    return e;
  }

  Annotations AnnotationsAt(int64_t map) {
    Annotations out;
    for (auto [k, v] : g_.Entries(map)) {
      const std::string& key = g_.StringValue(k);
      KILN_CHECK(!out.count(key), ErrorKind::kParse,
                 g_.Where(map) + ": annotation key \"" + key + "\" repeated");
      out[key] = AnnotationValue(v);
    }
    return out;
  }

  Stmt StmtAt(int64_t n, int depth) {
    CheckDepth(n, depth);
    KILN_CHECK(in_progress_.insert(n).second, ErrorKind::kParse,
               g_.Where(n) + ": the statement contains itself");
    Stmt s = MakeStmt(n, depth);
    in_progress_.erase(n);
    return s;
  }

  // A statement sequence; a binding scopes over the statements after it.
  Stmt SequenceAt(const std::vector<int64_t>& items, size_t first, int64_t seq, int depth) {
    std::vector<Stmt> out;
    for (size_t i = first; i < items.size(); ++i) {
      int64_t item = items[i];
      if (Type(item) == "tirx.Bind") {
        KILN_CHECK(i + 1 < items.size(), ErrorKind::kUnsupported,
                   g_.Where(item) + ": a binding with no statement after it");
        Var var = VarAt(g_.Ref(item, "var"));
        Expr value = ExprAt(g_.Ref(item, "value"), depth + 1);
        out.push_back(LetStmt(var, value, SequenceAt(items, i + 1, seq, depth + 1)));
        break;
      }
      out.push_back(StmtAt(item, depth + 1));
    }
    KILN_CHECK(!out.empty(), ErrorKind::kParse, g_.Where(seq) + ": an empty statement sequence");
    return SeqStmt(std::move(out));
  }

  Stmt MakeStmt(int64_t n, int depth) {
    const std::string& type = Type(n);
    auto sub = [&](std::string_view field) { return StmtAt(g_.Ref(n, field), depth + 1); };
    auto expr = [&](std::string_view field) { return ExprAt(g_.Ref(n, field), depth + 1); };
    if (type == "tirx.SeqStmt") return SequenceAt(g_.Elements(g_.Ref(n, "seq")), 0, n, depth);
    if (type == "tirx.Bind") return SequenceAt({n}, 0, n, depth);
    if (type == "tirx.BufferStore") {
      Buffer buffer = BufferAt(g_.Ref(n, "buffer"));
      std::vector<Expr> indices = ExprsAt(g_.Ref(n, "indices"), depth);
      KILN_CHECK(indices.size() == buffer.ndim(), ErrorKind::kParse,
                 g_.Where(n) + ": " + std::to_string(indices.size()) + " indices into " +
                     buffer->name + " of " + std::to_string(buffer.ndim()) + " dimensions");
      return BufferStore(buffer, expr("value"), std::move(indices));
    }
    if (type == "tirx.For") return ForAt(n, depth);
    if (type == "s_tir.SBlockRealize") return RealizeAt(n, depth);
    if (type == "tirx.IfThenElse") {
      int64_t else_case = g_.Ref(n, "else_case");
      Expr condition = expr("condition");
      Stmt then_case = sub("then_case");
      return IfThenElse(condition, then_case,
                        g_.IsNull(else_case) ? Stmt() : StmtAt(else_case, depth + 1));
    }
    if (type == "tirx.Evaluate") return Evaluate(expr("value"));
    if (type == "tirx.LetStmt") {
      Var var = VarAt(g_.Ref(n, "var"));
      Expr value = expr("value");
      return LetStmt(var, value, sub("body"));
    }
    if (type == "tirx.AttrStmt") {
      // Kiln drops `T.attr` pragmas as its TVMScript parser does; nothing else has a form.
      const std::string& key = g_.StringValue(g_.Ref(n, "attr_key"));
      KILN_CHECK(key.rfind("pragma_", 0) == 0, ErrorKind::kUnsupported,
                 g_.Where(n) + ": the attribute \"" + key + "\" is not supported (pragmas are)");
      return sub("body");
    }
    throw Error(ErrorKind::kUnsupported, g_.Where(n) + ": not a statement Kiln's TensorIR has");
  }

  Stmt ForAt(int64_t n, int depth) {
    Var loop_var = VarAt(g_.Ref(n, "loop_var"));
    Expr min = ExprAt(g_.Ref(n, "min"), depth + 1);
    Expr extent = ExprAt(g_.Ref(n, "extent"), depth + 1);
    int64_t kind = g_.Int(n, "kind");
    KILN_CHECK(kind >= 0 && kind < kNumForKinds, ErrorKind::kParse,
               g_.Where(n) + ", field \"kind\": " + std::to_string(kind) + " is no loop kind");
    KILN_CHECK(!g_.HasField(n, "step") || g_.IsNull(g_.Ref(n, "step")), ErrorKind::kUnsupported,
               g_.Where(n) + ": a loop with a step is not supported");
    std::string thread_tag;
    int64_t binding = g_.Ref(n, "thread_binding");
    if (!g_.IsNull(binding)) {
      Expect(binding, "tirx.IterVar");
      thread_tag = g_.StringValue(g_.Ref(binding, "thread_tag"));
    }
    KILN_CHECK((static_cast<ForKind>(kind) == ForKind::kThreadBinding) == !thread_tag.empty(),
               ErrorKind::kParse, g_.Where(n) + ": a thread-bound loop needs a thread tag");
    Annotations annotations = AnnotationsAt(g_.Ref(n, "annotations"));
    Stmt body = StmtAt(g_.Ref(n, "body"), depth + 1);
    return For(loop_var, min, extent, static_cast<ForKind>(kind), body, thread_tag,
               std::move(annotations));
  }

  Stmt RealizeAt(int64_t n, int depth) {
    std::vector<Expr> values = ExprsAt(g_.Ref(n, "iter_values"), depth);
    Expr predicate = ExprAt(g_.Ref(n, "predicate"), depth + 1);
    KILN_CHECK(predicate.dtype() == DataType::Bool(), ErrorKind::kParse,
               g_.Where(n) + ", field \"predicate\": not a bool");
    int64_t b = g_.Ref(n, "block");
    Expect(b, "s_tir.SBlock");
    auto block = std::make_shared<BlockNode>();
    block->name = g_.StringValue(g_.Ref(b, "name_hint"));
    for (int64_t iv : g_.Elements(g_.Ref(b, "iter_vars"))) {
      Expect(iv, "tirx.IterVar");
      IterVar v;
      v.var = VarAt(g_.Ref(iv, "var"));
      v.dom = RangeAt(g_.Ref(iv, "dom"), depth);
      int64_t kind = g_.Int(iv, "iter_type");
      KILN_CHECK(kind == kTvmDataPar || kind == kTvmCommReduce || kind == kTvmOpaque,
                 ErrorKind::kUnsupported,
                 g_.Where(iv) + ", field \"iter_type\": " + std::to_string(kind) +
                     " is not spatial (0), reduce (2) or opaque (4)");
      v.kind = kind == kTvmDataPar      ? IterKind::kSpatial
               : kind == kTvmCommReduce ? IterKind::kReduce
                                        : IterKind::kOpaque;
      block->iter_vars.push_back(std::move(v));
    }
    KILN_CHECK(values.size() == block->iter_vars.size(), ErrorKind::kParse,
               g_.Where(n) + ": " + std::to_string(values.size()) + " iter values for " +
                   std::to_string(block->iter_vars.size()) + " block iterators");
    block->reads = RegionsAt(g_.Ref(b, "reads"), depth);
    block->writes = RegionsAt(g_.Ref(b, "writes"), depth);
    for (int64_t a : g_.Elements(g_.Ref(b, "alloc_buffers"))) {
      block->alloc_buffers.push_back(BufferAt(a));
    }
    KILN_CHECK(g_.Elements(g_.Ref(b, "match_buffers")).empty(), ErrorKind::kUnsupported,
               g_.Where(b) + ": match_buffer is not supported");
    block->annotations = AnnotationsAt(g_.Ref(b, "annotations"));
    int64_t init = g_.Ref(b, "init");
    if (!g_.IsNull(init)) block->init = StmtAt(init, depth + 1);
    block->body = StmtAt(g_.Ref(b, "body"), depth + 1);
    return BlockRealize(std::move(values), predicate, Block(std::move(block)));
  }

  std::vector<BufferRegion> RegionsAt(int64_t array, int depth) {
    std::vector<BufferRegion> out;
    for (int64_t r : g_.Elements(array)) {
      Expect(r, "ir.TensorRegion");
      BufferRegion region{BufferAt(g_.Ref(r, g_.HasField(r, "source") ? "source" : "buffer")), {}};
      for (int64_t range : g_.Elements(g_.Ref(r, "region"))) {
        region.region.push_back(RangeAt(range, depth));
      }
      KILN_CHECK(region.region.size() == region.buffer.ndim(), ErrorKind::kParse,
                 g_.Where(r) + ": a region of " + std::to_string(region.region.size()) +
                     " ranges for a buffer of " + std::to_string(region.buffer.ndim()) +
                     " dimensions");
      out.push_back(std::move(region));
    }
    return out;
  }

  static constexpr int64_t kTvmDefaultAlign = 64;

  const Graph& g_;
  std::unordered_map<int64_t, Expr> exprs_;
  std::unordered_map<int64_t, Buffer> buffers_;
  std::unordered_set<int64_t> in_progress_;
};

}  // namespace

PrimFunc ReadPrimFunc(const Graph& graph) {
  int64_t root = graph.root();
  const std::string& type = graph.node(root).type_key;
  FuncReader reader(graph);
  if (type == "tirx.PrimFunc") return reader.Read(root, "main");
  KILN_CHECK(graph.format() == GraphFormat::kFfi, ErrorKind::kUnsupported,
             graph.Where(root) +
                 ": the graph is in the shape of TVM 0.23 or older (type keys "
                 "\"tir.*\"); Kiln reads TensorIR graphs of TVM 0.24 and later");
  KILN_CHECK(type == "ir.IRModule", ErrorKind::kParse,
             graph.Where(root) + ": expected an ir.IRModule or a tirx.PrimFunc at the root");
  // The module's function "main", else its only PrimFunc.
  int64_t chosen = -1;
  std::string name;
  int count = 0;
  for (auto [global_var, func] : graph.Entries(graph.Ref(root, "functions"))) {
    if (graph.node(func).type_key != "tirx.PrimFunc") continue;
    std::string hint = graph.StringValue(graph.Ref(global_var, "name_hint"));
    ++count;
    if (chosen < 0 || hint == "main") {
      chosen = func;
      name = hint;
    }
  }
  KILN_CHECK(chosen >= 0, ErrorKind::kParse, graph.Where(root) + ": the module has no PrimFunc");
  KILN_CHECK(count == 1 || name == "main", ErrorKind::kUnsupported,
             graph.Where(root) + ": the module has " + std::to_string(count) +
                 " PrimFuncs and none is named main");
  return reader.Read(chosen, name);
}

PrimFunc ReadPrimFuncJson(std::string_view json_text, std::string_view source) {
  return ReadPrimFunc(Graph::Parse(json_text, source));
}

}  // namespace kiln::ir::tvm_json
