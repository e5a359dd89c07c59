// Infix printing of expressions for test messages.
#include "tests/ir/arith/expr_text.h"

#include <sstream>

namespace kiln::ir::arith::testing {
namespace {

const char* InfixSymbol(NodeKind kind) {
  switch (kind) {
    case NodeKind::kAdd:
      return " + ";
    case NodeKind::kSub:
      return " - ";
    case NodeKind::kMul:
      return " * ";
    case NodeKind::kDiv:
      return " / ";
    case NodeKind::kMod:
      return " % ";
    case NodeKind::kEQ:
      return " == ";
    case NodeKind::kNE:
      return " != ";
    case NodeKind::kLT:
      return " < ";
    case NodeKind::kLE:
      return " <= ";
    case NodeKind::kGT:
      return " > ";
    case NodeKind::kGE:
      return " >= ";
    case NodeKind::kAnd:
      return " && ";
    case NodeKind::kOr:
      return " || ";
    default:
      return nullptr;
  }
}

template <typename NodeT>
std::string Binary(const Expr& e) {
  const auto* op = static_cast<const NodeT*>(e.get());
  if (const char* sym = InfixSymbol(e.kind())) {
    return "(" + ToText(op->a) + sym + ToText(op->b) + ")";
  }
  std::string name = NodeKindName(e.kind());
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return name + "(" + ToText(op->a) + ", " + ToText(op->b) + ")";
}

}  // namespace

std::string ToText(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  switch (e.kind()) {
    case NodeKind::kVar:
      return static_cast<const VarNode*>(e.get())->name;
    case NodeKind::kIntImm: {
      const auto* op = e.as<IntImmNode>();
      if (op->dtype.is_bool()) return op->value ? "true" : "false";
      std::string s = std::to_string(op->value);
      return op->dtype == DataType::Int(32) ? s : s + "_" + op->dtype.ToString();
    }
    case NodeKind::kFloatImm: {
      std::ostringstream os;
      os << e.as<FloatImmNode>()->value << "_" << e.dtype().ToString();
      return os.str();
    }
#define KILN_TEXT_BINARY(name) \
  case NodeKind::k##name:      \
    return Binary<name##Node>(e);
      KILN_BINARY_NODES(KILN_TEXT_BINARY)
#undef KILN_TEXT_BINARY
    case NodeKind::kNot:
      return "!" + ToText(e.as<NotNode>()->a);
    case NodeKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      return "select(" + ToText(op->condition) + ", " + ToText(op->true_value) + ", " +
             ToText(op->false_value) + ")";
    }
    case NodeKind::kCast: {
      const auto* op = e.as<CastNode>();
      return op->dtype.ToString() + "(" + ToText(op->value) + ")";
    }
    case NodeKind::kBufferLoad: {
      const auto* op = e.as<BufferLoadNode>();
      std::string s = op->buffer->name + "[";
      for (size_t i = 0; i < op->indices.size(); ++i) {
        s += (i ? ", " : "") + ToText(op->indices[i]);
      }
      return s + "]";
    }
    case NodeKind::kLet: {
      const auto* op = e.as<LetNode>();
      return "let " + op->var.name() + " = " + ToText(op->value) + " in " + ToText(op->body);
    }
    default:
      return std::string("<") + NodeKindName(e.kind()) + ">";
  }
}

std::string ToText(const Range& r) {
  if (IsConstInt(r.extent, 1)) return ToText(r.min);
  return ToText(r.min) + ":" + ToText(r.min) + "+" + ToText(r.extent);
}

std::string ToText(const BufferRegion& r) {
  std::string s = r.buffer->name + "[";
  for (size_t i = 0; i < r.region.size(); ++i) s += (i ? ", " : "") + ToText(r.region[i]);
  return s + "]";
}

}  // namespace kiln::ir::arith::testing
