// SparseTIR's spelling in the TVMScript parser: axis declarations (T.dense_fixed,
// T.dense_variable, T.sparse_fixed, T.sparse_variable), sparse buffers (T.match_sparse_buffer,
// T.alloc_sparse_buffer) and sparse iterations (T.sp_iter, the older T.iter), as SparseTIR's
// own scripts write them. An axis's indptr and indices are handle parameters (each gets a 1-D
// buffer of the axis's idtype) or buffers the function matched with T.match_buffer.
#include <algorithm>
#include <tuple>

#include "ir/arith/expr_compare.h"
#include "ir/text/parser_impl.h"

namespace kiln::ir {

const Axis* TirParser::LookupAxis(const std::string& name) const {
  if (Lookup(name)) return nullptr;  // a variable or buffer of that name shadows the axis
  auto it = axes_.find(name);
  return it == axes_.end() ? nullptr : &it->second;
}

Axis TirParser::AsAxis(const Value& v, const std::string& what) const {
  if (v.kind != Value::kAxis) {
    std::string got = v.kind == Value::kExpr && v.expr.e.as<VarNode>()
                          ? "'" + v.expr.e.as<VarNode>()->name + "', which is not an axis"
                          : "something else";
    Fail(v.at, "expected " + what + " (an axis declared by T.dense_fixed, T.dense_variable, " +
                   "T.sparse_fixed or T.sparse_variable), got " + got);
  }
  return v.axis;
}

Buffer TirParser::AxisBuffer(const Value& v, DataType idtype, const Expr& extent,
                             const std::string& what) {
  Buffer buffer;
  if (v.kind == Value::kBuffer) {
    buffer = v.buffer;
  } else {
    Expr e = v.kind == Value::kExpr ? v.expr.e : Expr();
    const auto* var = e.defined() ? e.as<VarNode>() : nullptr;
    bool is_param = var && var->dtype.is_handle() &&
                    std::any_of(func_->params.begin(), func_->params.end(),
                                [&](const Var& p) { return p.get() == var; });
    if (!is_param) Fail(v.at, "expected " + what + ": a T.handle parameter or a buffer");
    Var param(e.ptr());
    for (const auto& [p, b] : func_->buffer_map) {
      if (p.same_as(param)) buffer = b;
    }
    if (!buffer.defined()) {
      buffer = DeclBuffer(param->name, idtype, {extent});
      func_->buffer_map.emplace_back(param, buffer);
      // From here on the name is the buffer: lowered bodies load indptr[i] by it.
      Bind(param->name, Symbol{{}, buffer});
    }
  }
  for (const SparseBuffer& sb : func_->sp_buffers) {
    if (sb.buffer.same_as(buffer)) {
      Fail(v.at,
           what + " must be an ordinary buffer, not the sparse buffer '" + buffer->name + "'");
    }
  }
  if (buffer->dtype != idtype || buffer.ndim() != 1) {
    Fail(v.at, what + " '" + buffer->name + "' must be a 1-D " + idtype.ToString() +
                   " buffer, got " + std::to_string(buffer.ndim()) + "-D " +
                   buffer->dtype.ToString());
  }
  return buffer;
}

void TirParser::ParseSparseDecl(Scope scope, const Token& name) {
  Next();  // T
  Next();  // .
  Token call = Next();
  const std::string fn = call.text;
  if (!Peek().IsOp("(")) Expected("'('");
  Args args = ParseArgs();
  ExpectNewline();
  if (scope != Scope::kFunction) Fail(call, "T." + fn + " must be in the function body");
  if (Lookup(name.text) || axes_.count(name.text)) {
    Fail(name, "T." + fn + ": the name '" + name.text + "' is already defined");
  }
  // Positional parameters in SparseTIR's order; each may also be given by keyword.
  auto arg = [&](const std::vector<std::string>& order, size_t i) -> const Value* {
    if (args.positional.size() > order.size()) {
      Fail(args.positional[order.size()].at,
           "T." + fn + " takes at most " + std::to_string(order.size()) + " arguments");
    }
    for (const auto& [key, value] : args.keywords) {
      if (std::find(order.begin(), order.end(), key.text) == order.end()) {
        Fail(key, "unknown argument '" + key.text + "' of T." + fn);
      }
    }
    if (i < args.positional.size()) return &args.positional[i];
    return args.Keyword(order[i]);
  };
  auto required = [&](const std::vector<std::string>& order, size_t i) -> const Value& {
    const Value* v = arg(order, i);
    if (!v) Fail(args.at, "T." + fn + " of '" + name.text + "' needs its " + order[i]);
    return *v;
  };
  auto integer = [&](const Value& v, const std::string& what) {
    Expr e = AsExpr(v, what);
    if (!e.dtype().is_scalar() || !(e.dtype().is_int() || e.dtype().is_uint())) {
      Fail(v.at, "T." + fn + " of '" + name.text + "': " + what + " must be an integer");
    }
    return e;
  };
  // (length, nnz) of the variable and sparse kinds.
  auto pair = [&](const Value& v, const std::string& what) {
    if (v.kind != Value::kTuple || v.items.size() != 2) {
      Fail(v.at, "T." + fn + " of '" + name.text + "' needs " + what);
    }
    return std::make_pair(integer(v.items[0], "the length"), integer(v.items[1], "the nnz"));
  };

  if (fn == "match_sparse_buffer" || fn == "alloc_sparse_buffer") {
    bool match = fn == "match_sparse_buffer";
    std::vector<std::string> order =
        match ? std::vector<std::string>{"param", "axes", "dtype", "extra_storage"}
              : std::vector<std::string>{"axes", "dtype", "scope"};
    SparseBuffer sb;
    size_t first = 0;
    if (match) {
      first = 1;
      Expr param = AsExpr(required(order, 0), "a handle parameter");
      const auto* var = param.as<VarNode>();
      bool is_param = var && var->dtype.is_handle() &&
                      std::any_of(func_->params.begin(), func_->params.end(),
                                  [&](const Var& p) { return p.get() == var; });
      if (!is_param) {
        Fail(required(order, 0).at, "T.match_sparse_buffer of '" + name.text +
                                        "' needs a T.handle parameter of the function");
      }
      sb.param = Var(param.ptr());
      for (const auto& [p, b] : func_->buffer_map) {
        if (p.same_as(sb.param)) {
          Fail(required(order, 0).at, "parameter '" + var->name + "' already has a buffer");
        }
      }
    }
    const Value& axes = required(order, first);
    if (axes.kind != Value::kList && axes.kind != Value::kTuple) {
      Fail(axes.at, "T." + fn + " of '" + name.text + "' needs a list of axes");
    }
    auto node = std::make_shared<BufferNode>();
    node->name = name.text;
    node->dtype = DataType::Float(32);
    node->elem_offset = IntImm(DataType::Int(32), 0);
    node->data = Var(name.text, DataType::Handle());
    for (const Value& item : axes.items) {
      sb.axes.push_back(AsAxis(item, "an axis of sparse buffer '" + name.text + "'"));
      node->shape.push_back(sb.axes.back()->length);
    }
    if (const Value* dtype = arg(order, first + 1)) node->dtype = AsDType(*dtype);
    if (match) {
      if (const Value* extra = arg(order, 3)) sb.extra_storage = integer(*extra, "extra_storage");
    } else if (const Value* scope_arg = arg(order, 2)) {
      node->scope = AsString(*scope_arg, "a storage scope");
    }
    sb.buffer = Buffer(std::move(node));
    if (match) func_->buffer_map.emplace_back(sb.param, sb.buffer);
    func_->sp_buffers.push_back(sb);
    Bind(name.text, Symbol{{}, sb.buffer});
    return;
  }

  auto node = std::make_shared<AxisNode>();
  node->name = name.text;
  std::vector<std::string> order;
  if (fn == "dense_fixed") {
    order = {"length", "idtype"};
    node->kind = AxisKind::kDenseFixed;
  } else if (fn == "dense_variable") {
    order = {"parent", "shape", "indptr", "idtype"};
    node->kind = AxisKind::kDenseVariable;
  } else if (fn == "sparse_fixed") {
    order = {"parent", "shape", "indices", "idtype", "sorted"};
    node->kind = AxisKind::kSparseFixed;
  } else {
    order = {"parent", "shape", "data", "idtype", "sorted"};
    node->kind = AxisKind::kSparseVariable;
  }
  size_t idtype_at = fn == "dense_fixed" ? 1 : 3;
  if (const Value* idtype = arg(order, idtype_at)) {
    node->idtype = AsDType(*idtype);
    if (!node->idtype.is_scalar() || !node->idtype.is_int()) {
      Fail(idtype->at, "the idtype of axis '" + name.text + "' must be int32 or int64");
    }
  }
  if (fn.rfind("sparse", 0) == 0) {
    if (const Value* sorted = arg(order, 4)) {
      Expr flag = AsExpr(*sorted, "True or False");
      if (!flag.dtype().is_bool() || !AsConstInt(flag)) Fail(sorted->at, "expected True or False");
      node->sorted = *AsConstInt(flag) != 0;
    }
  }
  if (fn == "dense_fixed") {
    node->length = integer(required(order, 0), "the length");
  } else {
    Axis parent = AsAxis(required(order, 0), "the parent axis of '" + name.text + "'");
    node->parent = parent.ptr();
    const char* shape_what =
        fn == "sparse_fixed" ? "(length, nnz_cols) as its shape" : "(length, nnz) as its shape";
    std::tie(node->length, node->nnz) = pair(required(order, 1), shape_what);
    const Expr nnz = node->nnz;
    Expr rows = Build(call, [&] { return NumPositions(parent); });
    const Value& data = required(order, 2);
    if (fn == "dense_variable") {
      node->indptr = AxisBuffer(data, node->idtype, Build(call, [&] { return rows + 1; }),
                                "the indptr of '" + name.text + "'");
    } else if (fn == "sparse_fixed") {
      node->indices = AxisBuffer(data, node->idtype, Build(call, [&] { return rows * nnz; }),
                                 "the indices of '" + name.text + "'");
    } else {
      if (data.kind != Value::kTuple || data.items.size() != 2) {
        Fail(data.at, "T.sparse_variable of '" + name.text + "' needs (indptr, indices)");
      }
      node->indptr = AxisBuffer(data.items[0], node->idtype, Build(call, [&] { return rows + 1; }),
                                "the indptr of '" + name.text + "'");
      node->indices =
          AxisBuffer(data.items[1], node->idtype, nnz, "the indices of '" + name.text + "'");
    }
  }
  Axis axis(std::move(node));
  func_->sp_axes.push_back(axis);
  axes_[name.text] = axis;
}

Stmt TirParser::ParseSpIter(const Token& at) {
  NestingGuard guard(*this, at);
  const std::string fn = "T." + at.text;
  Token open = ExpectOp("(");
  // The axes: names, or T.fuse(names) for axes iterated as one loop.
  std::vector<std::pair<Token, Axis>> axes;
  std::vector<int64_t> groups;
  std::vector<Axis> attached;  // T.attach(axis, attach): attach, else undefined
  int64_t next_group = 0;
  auto axis_name = [&](int64_t group) {
    Token tok = ExpectName("an axis");
    const Axis* axis = LookupAxis(tok.text);
    if (!axis) {
      Fail(tok, fn + ": '" + tok.text + "' is not an axis (declare it with T.dense_fixed, " +
                    "T.dense_variable, T.sparse_fixed or T.sparse_variable)");
    }
    axes.emplace_back(tok, *axis);
    groups.push_back(group);
    attached.emplace_back();
  };
  ExpectOp("[");
  while (!Peek().IsOp("]")) {
    if (Peek().IsName("T") && Peek(1).IsOp(".") && Peek(2).IsName("fuse")) {
      Next();
      Next();
      Next();
      ExpectOp("(");
      int64_t group = next_group++;
      while (!Peek().IsOp(")")) {
        axis_name(group);
        if (!AcceptOp(",")) break;
      }
      ExpectOp(")");
    } else if (Peek().IsName("T") && Peek(1).IsOp(".") && Peek(2).IsName("attach")) {
      Next();
      Next();
      Next();
      ExpectOp("(");
      axis_name(-1);
      ExpectOp(",");
      Token to = ExpectName("the axis to attach to");
      const Axis* target = LookupAxis(to.text);
      if (!target) Fail(to, fn + ": T.attach needs an axis, got '" + to.text + "'");
      attached.back() = *target;
      AcceptOp(",");
      ExpectOp(")");
    } else {
      axis_name(-1);
    }
    if (!AcceptOp(",")) break;
  }
  ExpectOp("]");
  ExpectOp(",");
  Value kinds_value = ParseValue();
  std::string kinds = AsString(kinds_value, "iteration kinds such as \"SSR\"");
  ExpectOp(",");
  Value name_value = ParseValue();
  std::string name = AsString(name_value, "the name of the sparse iteration");
  AcceptOp(",");
  ExpectOp(")");
  if (kinds.size() != axes.size()) {
    Fail(kinds_value.at, fn + " '" + name + "' iterates " + std::to_string(axes.size()) +
                             " axes but has " + std::to_string(kinds.size()) + " kinds");
  }
  for (char c : kinds) {
    if (c != 'S' && c != 'R')
      Fail(kinds_value.at, fn + " kinds are 'S' or 'R', got '" + kinds + "'");
  }
  ExpectKeyword("as");
  std::vector<Token> names;
  bool bracket = AcceptOp("[");
  do {
    if (bracket && Peek().IsOp("]")) break;
    names.push_back(ExpectName("an iterator name"));
  } while (AcceptOp(","));
  if (bracket) ExpectOp("]");
  if (names.size() != axes.size()) {
    Fail(open, fn + " '" + name + "' iterates " + std::to_string(axes.size()) + " axes but binds " +
                   std::to_string(names.size()) + " names");
  }
  ExpectOp(":");
  auto node = std::make_shared<SparseIterationNode>();
  node->name = name;
  PushScope();
  for (size_t i = 0; i < axes.size(); ++i) {
    SpIterVar iv;
    iv.var = Var(names[i].text, axes[i].second->idtype);
    iv.axis = axes[i].second;
    iv.is_reduction = kinds[i] == 'R';
    iv.fuse_group = groups[i];
    iv.attach = attached[i];
    node->iter_vars.push_back(iv);
    Bind(names[i].text, Symbol{iv.var, {}});
  }
  BlockFrame frame;
  Stmt body = ParseBody(Scope::kBlock, &frame, at);
  PopScope();
  if (!frame.iter_vars.empty() || frame.reads || frame.writes || frame.predicate.defined() ||
      !frame.alloc_buffers.empty() || !frame.annotations.empty()) {
    Fail(at, fn + " '" + name + "' takes only T.init() and statements in its body");
  }
  if (!body.defined()) Fail(at, fn + " '" + name + "' has no body");
  node->init = frame.init;
  node->body = body;
  return SparseIteration(std::move(node));
}

}  // namespace kiln::ir
