// The golden-test IR dump.
#include "tests/codegen/ir_dump.h"

#include <cstdio>
#include <sstream>

namespace kiln::codegen::testing {

using namespace ir;

namespace {

std::string Join(const std::vector<Expr>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + DumpExpr(v[i]);
  return s;
}

template <typename NodeT>
std::string Infix(const Expr& e, const char* op) {
  const auto* n = e.as<NodeT>();
  return "(" + DumpExpr(n->a) + " " + op + " " + DumpExpr(n->b) + ")";
}

template <typename NodeT>
std::string Prefix(const Expr& e, const char* op) {
  const auto* n = e.as<NodeT>();
  return std::string(op) + "(" + DumpExpr(n->a) + ", " + DumpExpr(n->b) + ")";
}

void Dump(const Stmt& s, int indent, std::ostringstream& out) {
  std::string pad(indent * 2, ' ');
  switch (s.kind()) {
    case NodeKind::kBufferStore: {
      const auto* op = s.as<BufferStoreNode>();
      out << pad << op->buffer->name << "[" << Join(op->indices) << "] = " << DumpExpr(op->value)
          << "\n";
      return;
    }
    case NodeKind::kFor: {
      const auto* op = s.as<ForNode>();
      out << pad << "for " << op->loop_var.name() << " in " << ForKindName(op->for_kind) << "("
          << DumpExpr(op->min) << ", " << DumpExpr(op->extent) << ")";
      for (const auto& [key, value] : op->annotations) out << " " << key << "=" << DumpExpr(value);
      out << ":\n";
      Dump(op->body, indent + 1, out);
      return;
    }
    case NodeKind::kSeqStmt:
      for (const Stmt& x : s.as<SeqStmtNode>()->seq) Dump(x, indent, out);
      return;
    case NodeKind::kIfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      out << pad << "if " << DumpExpr(op->condition) << ":\n";
      Dump(op->then_case, indent + 1, out);
      if (op->else_case.defined()) {
        out << pad << "else:\n";
        Dump(op->else_case, indent + 1, out);
      }
      return;
    }
    case NodeKind::kLetStmt: {
      const auto* op = s.as<LetStmtNode>();
      out << pad << "let " << op->var.name() << " = " << DumpExpr(op->value) << "\n";
      Dump(op->body, indent, out);
      return;
    }
    case NodeKind::kAllocate: {
      const auto* op = s.as<AllocateNode>();
      const Buffer& b = op->buffer;
      out << pad << "alloc " << b->name << ": " << b->dtype.ToString() << "[" << Join(b->shape)
          << "] " << b->scope;
      if (b->align) out << " align=" << b->align;
      out << "\n";
      Dump(op->body, indent + 1, out);
      return;
    }
    case NodeKind::kDeclBuffer:
      out << pad << "decl " << s.as<DeclBufferNode>()->buffer->name << "\n";
      Dump(s.as<DeclBufferNode>()->body, indent, out);
      return;
    case NodeKind::kEvaluate:
      out << pad << "evaluate " << DumpExpr(s.as<EvaluateNode>()->value) << "\n";
      return;
    case NodeKind::kBlockRealize: {
      const auto* op = s.as<BlockRealizeNode>();
      const BlockNode* b = op->block_node();
      out << pad << "block " << b->name << "(";
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        out << (i ? ", " : "") << b->iter_vars[i].var.name() << "=" << DumpExpr(op->iter_values[i]);
      }
      out << ") where " << DumpExpr(op->predicate) << ":\n";
      for (const Buffer& a : b->alloc_buffers) {
        out << pad << "  alloc_buffer " << a->name << ": " << a->dtype.ToString() << "["
            << Join(a->shape) << "]\n";
      }
      if (b->init.defined()) {
        out << pad << "  init:\n";
        Dump(b->init, indent + 2, out);
      }
      Dump(b->body, indent + 1, out);
      return;
    }
    default:
      out << pad << NodeKindName(s.kind()) << "\n";
  }
}

}  // namespace

std::string DumpExpr(const Expr& e) {
  if (!e.defined()) return "<undefined>";
  switch (e.kind()) {
    case NodeKind::kVar:
      return e.as<VarNode>()->name;
    case NodeKind::kIntImm: {
      int64_t v = e.as<IntImmNode>()->value;
      if (e.dtype().is_bool()) return v ? "True" : "False";
      return std::to_string(v) + (e.dtype().bits() == 64 ? "i64" : "");
    }
    case NodeKind::kFloatImm: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", e.as<FloatImmNode>()->value);
      return std::string(buf) + "f" + std::to_string(e.dtype().bits());
    }
    case NodeKind::kStringImm:
      return "\"" + e.as<StringImmNode>()->value + "\"";
    case NodeKind::kAdd:
      return Infix<AddNode>(e, "+");
    case NodeKind::kSub:
      return Infix<SubNode>(e, "-");
    case NodeKind::kMul:
      return Infix<MulNode>(e, "*");
    case NodeKind::kDiv:
      return Infix<DivNode>(e, "/");
    case NodeKind::kMod:
      return Prefix<ModNode>(e, "truncmod");
    case NodeKind::kFloorDiv:
      return Infix<FloorDivNode>(e, "//");
    case NodeKind::kFloorMod:
      return Infix<FloorModNode>(e, "%");
    case NodeKind::kMin:
      return Prefix<MinNode>(e, "min");
    case NodeKind::kMax:
      return Prefix<MaxNode>(e, "max");
    case NodeKind::kEQ:
      return Infix<EQNode>(e, "==");
    case NodeKind::kNE:
      return Infix<NENode>(e, "!=");
    case NodeKind::kLT:
      return Infix<LTNode>(e, "<");
    case NodeKind::kLE:
      return Infix<LENode>(e, "<=");
    case NodeKind::kGT:
      return Infix<GTNode>(e, ">");
    case NodeKind::kGE:
      return Infix<GENode>(e, ">=");
    case NodeKind::kAnd:
      return Infix<AndNode>(e, "and");
    case NodeKind::kOr:
      return Infix<OrNode>(e, "or");
    case NodeKind::kNot:
      return "not(" + DumpExpr(e.as<NotNode>()->a) + ")";
    case NodeKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      return "select(" + DumpExpr(op->condition) + ", " + DumpExpr(op->true_value) + ", " +
             DumpExpr(op->false_value) + ")";
    }
    case NodeKind::kCast:
      return e.dtype().ToString() + "(" + DumpExpr(e.as<CastNode>()->value) + ")";
    case NodeKind::kCall:
      return e.as<CallNode>()->op + "(" + Join(e.as<CallNode>()->args) + ")";
    case NodeKind::kBufferLoad:
      return e.as<BufferLoadNode>()->buffer->name + "[" + Join(e.as<BufferLoadNode>()->indices) +
             "]";
    case NodeKind::kRamp: {
      const auto* op = e.as<RampNode>();
      return "ramp(" + DumpExpr(op->base) + ", " + DumpExpr(op->stride) + ", " +
             std::to_string(op->lanes) + ")";
    }
    case NodeKind::kBroadcast: {
      const auto* op = e.as<BroadcastNode>();
      return "broadcast(" + DumpExpr(op->value) + ", " + std::to_string(op->lanes) + ")";
    }
    case NodeKind::kLet: {
      const auto* op = e.as<LetNode>();
      return "let(" + op->var.name() + ", " + DumpExpr(op->value) + ", " + DumpExpr(op->body) + ")";
    }
    default:
      return NodeKindName(e.kind());
  }
}

std::string DumpStmt(const Stmt& s) {
  std::ostringstream out;
  Dump(s, 0, out);
  return out.str();
}

}  // namespace kiln::codegen::testing
