// Skeleton printing and numeric comparison for the schedule tests.
#include <sstream>

#include "ir/functor.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "tests/search/test_funcs.h"

namespace kiln::search::testing {

using namespace ir;

std::string ExprText(const Expr& e) {
  if (!e.defined()) return "?";
  if (const auto* v = e.as<VarNode>()) return v->name;
  if (const auto* i = e.as<IntImmNode>()) {
    if (e.dtype().is_bool()) return i->value ? "True" : "False";
    return std::to_string(i->value);
  }
  auto bin = [&](const char* op, const Expr& a, const Expr& b) {
    return "(" + ExprText(a) + " " + op + " " + ExprText(b) + ")";
  };
  switch (e.kind()) {
#define KILN_BIN(name, op)              \
  case NodeKind::k##name: {             \
    const auto* n = e.as<name##Node>(); \
    return bin(op, n->a, n->b);         \
  }
    KILN_BIN(Add, "+")
    KILN_BIN(Sub, "-")
    KILN_BIN(Mul, "*")
    KILN_BIN(FloorDiv, "//")
    KILN_BIN(FloorMod, "%")
    KILN_BIN(LT, "<")
    KILN_BIN(LE, "<=")
    KILN_BIN(And, "and")
    KILN_BIN(Min, "min")
    KILN_BIN(Max, "max")
#undef KILN_BIN
    case NodeKind::kBufferLoad: {
      const auto* n = e.as<BufferLoadNode>();
      std::string out = n->buffer->name + "[";
      for (size_t i = 0; i < n->indices.size(); ++i) {
        out += (i ? ", " : "") + ExprText(n->indices[i]);
      }
      return out + "]";
    }
    default:
      return std::string("<") + NodeKindName(e.kind()) + ">";
  }
}

namespace {

class SkeletonPrinter : public IRVisitor {
 public:
  std::ostringstream out;
  int depth = 0;
  void VisitExpr(const Expr&) override {}
  void VisitStmt_(const ForNode* op) override {
    Indent();
    out << "for " << op->loop_var.name() << " in ";
    if (!IsConstInt(op->min, 0)) out << ExprText(op->min) << ":";
    out << ExprText(op->extent);
    if (op->for_kind != ForKind::kSerial) out << " " << ForKindName(op->for_kind);
    if (!op->thread_tag.empty()) out << " " << op->thread_tag;
    for (const auto& [key, value] : op->annotations) out << " @" << key;
    out << "\n";
    ++depth;
    VisitStmt(op->body);
    --depth;
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    const BlockNode* block = op->block_node();
    Indent();
    out << "block " << block->name;
    if (!op->iter_values.empty()) {
      out << " [";
      for (size_t i = 0; i < op->iter_values.size(); ++i) {
        out << (i ? ", " : "") << ExprText(op->iter_values[i]);
      }
      out << "]";
    }
    if (!IsConstInt(op->predicate, 1)) out << " if " << ExprText(op->predicate);
    for (const auto& [key, value] : block->annotations) out << " @" << key;
    for (const Buffer& b : block->alloc_buffers) out << " alloc " << b->name << ":" << b->scope;
    if (block->init.defined()) out << " init";
    out << "\n";
    ++depth;
    if (block->init.defined()) VisitStmt(block->init);
    VisitStmt(block->body);
    --depth;
  }

 private:
  void Indent() {
    for (int i = 0; i < depth; ++i) out << "  ";
  }
};

}  // namespace

std::string Skeleton(const PrimFunc& f) {
  SkeletonPrinter printer;
  printer.VisitStmt(f->body);
  return printer.out.str();
}

std::string CompareNumerics(const PrimFunc& original, const PrimFunc& scheduled, uint64_t seed) {
  std::vector<ArgValue> args_a, args_b;
  std::vector<HostTensor> outs_a, outs_b;
  for (size_t i = 0; i < original->params.size(); ++i) {
    auto buffer = original->BufferOf(original->params[i]);
    std::vector<int64_t> shape;
    for (const Expr& d : (*buffer)->shape) shape.push_back(*AsConstInt(d));
    HostTensor input = HostTensor::Random((*buffer)->dtype, shape, seed + i);
    HostTensor copy = input.Clone();
    args_a.push_back(input);
    args_b.push_back(copy);
    outs_a.push_back(input);
    outs_b.push_back(copy);
  }
  Interpret(original, args_a);
  Interpret(scheduled, args_b);
  for (size_t i = 0; i < outs_a.size(); ++i) {
    TensorComparison cmp = CompareTensors(outs_a[i], outs_b[i], 1e-4, 1e-4);
    if (!cmp.ok) return "parameter " + std::to_string(i) + ": " + cmp.message;
  }
  return "";
}

}  // namespace kiln::search::testing
