// Statement, buffer and function builders.
#include "ir/stmt.h"

#include "ir/function.h"

namespace kiln::ir {

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "?";
}

const char* IterKindName(IterKind kind) {
  switch (kind) {
    case IterKind::kSpatial:
      return "spatial";
    case IterKind::kReduce:
      return "reduce";
    case IterKind::kOpaque:
      return "opaque";
  }
  return "?";
}

Buffer DeclBuffer(std::string name, DataType dtype, std::vector<Expr> shape, std::string scope) {
  auto node = std::make_shared<BufferNode>();
  node->data = Var(name, DataType::Handle());
  node->name = std::move(name);
  node->dtype = dtype;
  node->shape = std::move(shape);
  node->elem_offset = IntImm(DataType::Int(32), 0);
  node->scope = std::move(scope);
  return Buffer(std::move(node));
}

Buffer WithShape(const Buffer& buffer, std::vector<Expr> shape) {
  auto node = std::make_shared<BufferNode>(*buffer.get());
  node->shape = std::move(shape);
  node->data = Var(node->name, DataType::Handle());
  return Buffer(std::move(node));
}

Buffer WithScope(const Buffer& buffer, std::string scope) {
  auto node = std::make_shared<BufferNode>(*buffer.get());
  node->scope = std::move(scope);
  node->data = Var(node->name, DataType::Handle());
  return Buffer(std::move(node));
}

Range RangeFromMinExtent(Expr min, Expr extent) { return Range{std::move(min), std::move(extent)}; }

BufferRegion FullRegion(const Buffer& buffer) {
  BufferRegion region{buffer, {}};
  for (const Expr& extent : buffer->shape) {
    region.region.push_back(Range{IntImm(extent.dtype(), 0), extent});
  }
  return region;
}

namespace {
void CheckIndices(const char* what, const Buffer& buffer, const std::vector<Expr>& indices) {
  KILN_CHECK(buffer.defined(), ErrorKind::kInvalidIR, std::string(what) + ": undefined buffer");
  KILN_CHECK(indices.size() == buffer.ndim(), ErrorKind::kInvalidIR,
             std::string(what) + " of " + buffer->name + ": " + std::to_string(indices.size()) +
                 " indices for a buffer of " + std::to_string(buffer.ndim()) + " dimensions");
  for (const Expr& index : indices) {
    KILN_CHECK(index.defined() && index.dtype().is_integral(), ErrorKind::kType,
               std::string(what) + " of " + buffer->name + ": indices must be integers");
  }
}
int IndexLanes(const std::vector<Expr>& indices) {
  int lanes = 1;
  for (const Expr& index : indices) lanes = std::max(lanes, index.dtype().lanes());
  return lanes;
}
}  // namespace

Expr BufferLoad(Buffer buffer, std::vector<Expr> indices) {
  CheckIndices("BufferLoad", buffer, indices);
  DataType t = buffer->dtype.WithLanes(IndexLanes(indices) * buffer->dtype.lanes());
  return Expr(std::make_shared<const BufferLoadNode>(t, std::move(buffer), std::move(indices)));
}

Stmt BufferStore(Buffer buffer, Expr value, std::vector<Expr> indices) {
  CheckIndices("BufferStore", buffer, indices);
  KILN_CHECK(value.defined() && value.dtype().element_of() == buffer->dtype.element_of(),
             ErrorKind::kType,
             "BufferStore to " + buffer->name + ": value is " +
                 (value.defined() ? value.dtype().ToString() : std::string("undefined")) +
                 " but the buffer holds " + buffer->dtype.ToString());
  return Stmt(std::make_shared<const BufferStoreNode>(std::move(buffer), std::move(value),
                                                      std::move(indices)));
}

Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag,
         Annotations annotations) {
  KILN_CHECK(body.defined(), ErrorKind::kInvalidIR, "For " + loop_var.name() + ": undefined body");
  auto node = std::make_shared<ForNode>();
  node->loop_var = std::move(loop_var);
  node->min = std::move(min);
  node->extent = std::move(extent);
  node->for_kind = kind;
  node->thread_tag = std::move(thread_tag);
  node->body = std::move(body);
  node->annotations = std::move(annotations);
  return Stmt(std::move(node));
}

Stmt SeqStmt(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const auto* inner = s.as<SeqStmtNode>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<const SeqStmtNode>(std::move(flat)));
}

Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case) {
  KILN_CHECK(condition.defined() && condition.dtype().is_bool(), ErrorKind::kType,
             "IfThenElse: condition must be bool");
  return Stmt(std::make_shared<const IfThenElseNode>(std::move(condition), std::move(then_case),
                                                     std::move(else_case)));
}

Stmt LetStmt(Var var, Expr value, Stmt body) {
  KILN_CHECK(var.dtype() == value.dtype(), ErrorKind::kType,
             "LetStmt: " + var.name() + " is " + var.dtype().ToString() + " but its value is " +
                 value.dtype().ToString());
  return Stmt(
      std::make_shared<const LetStmtNode>(std::move(var), std::move(value), std::move(body)));
}

Stmt Allocate(Buffer buffer, Stmt body) {
  return Stmt(std::make_shared<const AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt DeclBufferStmt(Buffer buffer, Stmt body) {
  return Stmt(std::make_shared<const DeclBufferNode>(std::move(buffer), std::move(body)));
}

Stmt Evaluate(Expr value) { return Stmt(std::make_shared<const EvaluateNode>(std::move(value))); }

Stmt Block(std::shared_ptr<BlockNode> node) {
  KILN_CHECK(node->body.defined(), ErrorKind::kInvalidIR,
             "block " + node->name + ": undefined body");
  return Stmt(std::move(node));
}

Stmt BlockRealize(std::vector<Expr> iter_values, Expr predicate, Stmt block) {
  const auto* b = block.as<BlockNode>();
  KILN_CHECK(b != nullptr, ErrorKind::kInvalidIR,
             "BlockRealize: the realized statement is not a block");
  KILN_CHECK(iter_values.size() == b->iter_vars.size(), ErrorKind::kInvalidIR,
             "block " + b->name + ": " + std::to_string(b->iter_vars.size()) + " iter vars but " +
                 std::to_string(iter_values.size()) + " bound values");
  auto node = std::make_shared<BlockRealizeNode>();
  node->iter_values = std::move(iter_values);
  node->predicate = predicate.defined() ? std::move(predicate) : BoolImm(true);
  node->block = std::move(block);
  return Stmt(std::move(node));
}

std::optional<Buffer> PrimFuncNode::BufferOf(const Var& param) const {
  for (const auto& [var, buffer] : buffer_map) {
    if (var.same_as(param)) return buffer;
  }
  return std::nullopt;
}

PrimFunc PrimFunc::WithBody(Stmt body) const {
  auto node = std::make_shared<PrimFuncNode>(*ptr_);
  node->body = std::move(body);
  return PrimFunc(std::move(node));
}

PrimFunc MakePrimFunc(std::string name, std::vector<Var> params,
                      std::vector<std::pair<Var, Buffer>> buffer_map, Stmt body,
                      Annotations attrs) {
  auto node = std::make_shared<PrimFuncNode>();
  node->name = std::move(name);
  node->params = std::move(params);
  node->buffer_map = std::move(buffer_map);
  node->body = std::move(body);
  node->attrs = std::move(attrs);
  return PrimFunc(std::move(node));
}

}  // namespace kiln::ir
