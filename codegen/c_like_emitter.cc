// Shared C-syntax printing of lowered TensorIR.
#include "codegen/c_like_emitter.h"

#include <cctype>
#include <limits>

#include "codegen/passes/ir_utils.h"
#include "ir/op.h"

namespace kiln::codegen {

using namespace ir;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Keywords of C and the C-like shading languages, and names the generated code uses.
const char* const kReservedNames[] = {
    "auto",     "break",    "case",   "char",     "const",    "continue", "default",  "do",
    "double",   "else",     "enum",   "extern",   "float",    "for",      "goto",     "if",
    "inline",   "int",      "long",   "register", "restrict", "return",   "short",    "signed",
    "sizeof",   "static",   "struct", "switch",   "typedef",  "union",    "unsigned", "void",
    "volatile", "while",    "bool",   "true",     "false",    "half",     "vec2",     "vec3",
    "vec4",     "uint",     "var",    "let",      "fn",       "kernel",   "device",   "constant",
    "shared",   "local",    "global", "private",  "uniform",  "in",       "out",      "inout",
    "args",     "num_args", "main",   "abs",      "min",      "max",      "exp",      "log",
    "pow",      "sqrt"};

using Bounds = CLikeEmitter::Bounds;
Bounds Full() { return {kMin, kMax}; }

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return (b > 0) ? kMax : kMin;
  return r;
}

// `s` without one pair of enclosing parentheses, when they enclose all of it.
std::string StripParens(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0) return s;  // the first parenthesis closes before the end
  }
  return s.substr(1, s.size() - 2);
}

}  // namespace

// ---- Names ---------------------------------------------------------------------------------

CLikeEmitter::CLikeEmitter() {
  for (const char* n : kReservedNames) used_names_.insert(n);
}

std::string CLikeEmitter::DeclareName(const std::string& hint) {
  std::string base;
  for (char c : hint) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  if (base.rfind("kiln_", 0) == 0) base = "v_" + base;
  // WGSL takes no identifier of a lone underscore or a leading double one.
  if (base[0] == '_') base = "v" + base;
  std::string name = base;
  for (int i = 1; used_names_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_names_.insert(name);
  return name;
}

std::string CLikeEmitter::DeclareVar(const Var& var) {
  std::string name = DeclareName(var.name());
  names_[var.get()] = name;
  return name;
}

std::string CLikeEmitter::NameOf(const VarNode* var) const {
  auto it = names_.find(var);
  KILN_CHECK(it != names_.end(), ErrorKind::kInvalidIR,
             "function " + function_name_ + ": variable " + var->name + " is used but not defined");
  return it->second;
}

std::string CLikeEmitter::NameOf(const Var& var) const { return NameOf(var.get()); }

std::ostream& CLikeEmitter::Line() {
  for (int i = 0; i < indent_; ++i) out_ << "  ";
  return out_;
}

// ---- Bounds --------------------------------------------------------------------------------

CLikeEmitter::Bounds CLikeEmitter::BoundsOf(const Expr& e) const {
  if (!e.dtype().is_integral() || !e.dtype().is_scalar()) return Full();
  switch (e.kind()) {
    case NodeKind::kIntImm: {
      int64_t v = e.as<IntImmNode>()->value;
      return {v, v};
    }
    case NodeKind::kVar: {
      auto it = bounds_.find(e.as<VarNode>());
      if (it != bounds_.end()) return it->second;
      return e.dtype().is_uint() || e.dtype().is_bool() ? Bounds{0, kMax} : Full();
    }
    case NodeKind::kAdd: {
      Bounds a = BoundsOf(e.as<AddNode>()->a), b = BoundsOf(e.as<AddNode>()->b);
      if (a.min == kMin || b.min == kMin) return {kMin, SatAdd(a.max, b.max)};
      return {SatAdd(a.min, b.min), SatAdd(a.max, b.max)};
    }
    case NodeKind::kSub: {
      Bounds a = BoundsOf(e.as<SubNode>()->a), b = BoundsOf(e.as<SubNode>()->b);
      if (a.min == kMin || b.max == kMax || a.max == kMax || b.min == kMin) return Full();
      return {SatAdd(a.min, -b.max), SatAdd(a.max, -b.min)};
    }
    case NodeKind::kMul: {
      Bounds a = BoundsOf(e.as<MulNode>()->a), b = BoundsOf(e.as<MulNode>()->b);
      if (a.min < 0 || b.min < 0) return Full();
      int64_t hi;
      if (__builtin_mul_overflow(a.max, b.max, &hi)) hi = kMax;
      return {a.min * b.min, hi};
    }
    case NodeKind::kDiv:
    case NodeKind::kFloorDiv: {
      bool trunc = e.kind() == NodeKind::kDiv;
      const Expr& a_expr = trunc ? e.as<DivNode>()->a : e.as<FloorDivNode>()->a;
      const Expr& b_expr = trunc ? e.as<DivNode>()->b : e.as<FloorDivNode>()->b;
      Bounds a = BoundsOf(a_expr), b = BoundsOf(b_expr);
      if (a.min < 0 || b.min <= 0) return Full();
      return {a.min / b.max, a.max / b.min};
    }
    case NodeKind::kFloorMod: {
      Bounds b = BoundsOf(e.as<FloorModNode>()->b);
      if (b.min <= 0) return Full();
      return {0, b.max - 1};
    }
    case NodeKind::kMod: {
      Bounds a = BoundsOf(e.as<ModNode>()->a), b = BoundsOf(e.as<ModNode>()->b);
      if (a.min < 0 || b.min <= 0) return Full();
      return {0, std::min(a.max, b.max - 1)};
    }
    case NodeKind::kMin: {
      Bounds a = BoundsOf(e.as<MinNode>()->a), b = BoundsOf(e.as<MinNode>()->b);
      return {std::min(a.min, b.min), std::min(a.max, b.max)};
    }
    case NodeKind::kMax: {
      Bounds a = BoundsOf(e.as<MaxNode>()->a), b = BoundsOf(e.as<MaxNode>()->b);
      return {std::max(a.min, b.min), std::max(a.max, b.max)};
    }
    case NodeKind::kCast: {
      const auto* c = e.as<CastNode>();
      if (!c->value.dtype().is_integral()) return Full();
      if (c->value.dtype().bits() <= e.dtype().bits()) return BoundsOf(c->value);
      // A narrowing cast to a signed type keeps every value that fits it.
      if (e.dtype().is_int() && e.dtype().bits() < 64) {
        Bounds v = BoundsOf(c->value);
        int64_t hi = (int64_t{1} << (e.dtype().bits() - 1)) - 1;
        if (v.min >= -hi - 1 && v.max <= hi) return v;
      }
      return Full();
    }
    default:
      return e.dtype().is_bool() ? Bounds{0, 1} : Full();
  }
}

void CLikeEmitter::AssumeNonNegative(const Var& var) {
  SetBounds(var.get(), {0, kMax});
  int64_t limit = var.dtype().bits() >= 64 ? (int64_t{1} << 62) : (int64_t{1} << 31) - 1;
  try {
    analyzer_.Bind(var, Range{IntImm(var.dtype(), 0), IntImm(var.dtype(), limit)});
  } catch (const Error&) {
    // The constant bounds above still hold.
  }
}

bool CLikeEmitter::ProvablyNonNegative(const Expr& e) {
  if (BoundsOf(e).min >= 0) return true;
  try {
    return analyzer_.CanProve(e >= MakeConst(e.dtype(), 0));
  } catch (const Error&) {
    return false;
  }
}

bool CLikeEmitter::ProvablyPositive(const Expr& e) {
  if (BoundsOf(e).min > 0) return true;
  try {
    return analyzer_.CanProve(e > MakeConst(e.dtype(), 0));
  } catch (const Error&) {
    return false;
  }
}

// ---- Expressions ---------------------------------------------------------------------------

std::string CLikeEmitter::PrintIntImm(DataType t, int64_t value) {
  if (t.bits() == 64) {
    if (value == kMin) return "(" + TypeName(t) + ")(-9223372036854775807LL - 1)";
    return "(" + TypeName(t) + ")" + std::to_string(value) + (t.is_uint() ? "ULL" : "LL");
  }
  if (t.bits() == 32 && t.is_uint()) return std::to_string(value) + "U";
  if (t.bits() == 32 && value == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  return std::to_string(value);
}

std::string CLikeEmitter::PrintCast(DataType to, const Expr& value) {
  return "((" + TypeName(to) + ")" + PrintExpr(value) + ")";
}

std::string CLikeEmitter::PrintCompare(const char* op, const Expr& e, const Expr& a,
                                       const Expr& b) {
  return PrintBinary(op, e, a, b, false);
}

std::string CLikeEmitter::PrintMinMax(bool is_min, DataType t, const std::string& a,
                                      const std::string& b) {
  (void)t;
  return "((" + a + (is_min ? " < " : " > ") + b + ") ? " + a + " : " + b + ")";
}

std::string CLikeEmitter::PrintSelect(DataType t, const std::string& cond, const std::string& a,
                                      const std::string& b) {
  (void)t;
  return "(" + cond + " ? " + a + " : " + b + ")";
}

std::string CLikeEmitter::PrintRamp(const RampNode* op) {
  (void)op;
  throw Error(ErrorKind::kUnsupported, "function " + function_name_ + ": vector ramp");
}

std::string CLikeEmitter::PrintBroadcast(const BroadcastNode* op) {
  (void)op;
  throw Error(ErrorKind::kUnsupported, "function " + function_name_ + ": vector broadcast");
}

std::string CLikeEmitter::PrintLoad(const BufferLoadNode* op) {
  KILN_CHECK(op->indices.size() == 1, ErrorKind::kInvalidIR,
             "function " + function_name_ + ": load of " + op->buffer->name + " is not flattened");
  return NameOf(op->buffer->data) + "[" + PrintExpr(op->indices[0]) + "]";
}

void CLikeEmitter::EmitStore(const BufferStoreNode* op) {
  KILN_CHECK(op->indices.size() == 1, ErrorKind::kInvalidIR,
             "function " + function_name_ + ": store to " + op->buffer->name + " is not flattened");
  Line() << NameOf(op->buffer->data) << "[" << PrintExpr(op->indices[0])
         << "] = " << PrintExpr(op->value) << ";\n";
}

std::string CLikeEmitter::PrintBinary(const char* op, const Expr& e, const Expr& a, const Expr& b,
                                      bool arith) {
  std::string s = "(" + PrintExpr(a) + " " + op + " " + PrintExpr(b) + ")";
  return arith ? FinishArith(e.dtype(), std::move(s)) : s;
}

std::string CLikeEmitter::PrintExpr(const Expr& e) {
  KILN_CHECK(e.defined(), ErrorKind::kInvalidIR,
             "function " + function_name_ + ": undefined expression");
  switch (e.kind()) {
    case NodeKind::kVar:
      return NameOf(e.as<VarNode>());
    case NodeKind::kIntImm:
      return PrintIntImm(e.dtype(), e.as<IntImmNode>()->value);
    case NodeKind::kFloatImm:
      return PrintFloatImm(e.dtype(), e.as<FloatImmNode>()->value);
    case NodeKind::kAdd:
      return PrintBinary("+", e, e.as<AddNode>()->a, e.as<AddNode>()->b, true);
    case NodeKind::kSub:
      return PrintBinary("-", e, e.as<SubNode>()->a, e.as<SubNode>()->b, true);
    case NodeKind::kMul:
      return PrintBinary("*", e, e.as<MulNode>()->a, e.as<MulNode>()->b, true);
    case NodeKind::kDiv:
      return PrintBinary("/", e, e.as<DivNode>()->a, e.as<DivNode>()->b, true);
    case NodeKind::kMod: {
      const auto* op = e.as<ModNode>();
      if (e.dtype().is_float()) return PrintExpr(Call(e.dtype(), "fmod", {op->a, op->b}));
      return PrintBinary("%", e, op->a, op->b, true);
    }
    case NodeKind::kFloorDiv: {
      const auto* op = e.as<FloorDivNode>();
      if (e.dtype().is_float()) return PrintExpr(Call(e.dtype(), "floor", {Div(op->a, op->b)}));
      if (ProvablyNonNegative(op->a) && ProvablyPositive(op->b)) {
        return PrintBinary("/", e, op->a, op->b, true);
      }
      return FinishArith(e.dtype(),
                         PrintFloorDivSigned(e.dtype(), PrintExpr(op->a), PrintExpr(op->b)));
    }
    case NodeKind::kFloorMod: {
      const auto* op = e.as<FloorModNode>();
      if (e.dtype().is_float()) {
        return PrintExpr(op->a - Call(e.dtype(), "floor", {Div(op->a, op->b)}) * op->b);
      }
      if (ProvablyNonNegative(op->a) && ProvablyPositive(op->b)) {
        return PrintBinary("%", e, op->a, op->b, true);
      }
      return FinishArith(e.dtype(),
                         PrintFloorModSigned(e.dtype(), PrintExpr(op->a), PrintExpr(op->b)));
    }
    case NodeKind::kMin:
      return PrintMinMax(true, e.dtype(), PrintExpr(e.as<MinNode>()->a),
                         PrintExpr(e.as<MinNode>()->b));
    case NodeKind::kMax:
      return PrintMinMax(false, e.dtype(), PrintExpr(e.as<MaxNode>()->a),
                         PrintExpr(e.as<MaxNode>()->b));
    case NodeKind::kEQ:
      return PrintCompare("==", e, e.as<EQNode>()->a, e.as<EQNode>()->b);
    case NodeKind::kNE:
      return PrintCompare("!=", e, e.as<NENode>()->a, e.as<NENode>()->b);
    case NodeKind::kLT:
      return PrintCompare("<", e, e.as<LTNode>()->a, e.as<LTNode>()->b);
    case NodeKind::kLE:
      return PrintCompare("<=", e, e.as<LENode>()->a, e.as<LENode>()->b);
    case NodeKind::kGT:
      return PrintCompare(">", e, e.as<GTNode>()->a, e.as<GTNode>()->b);
    case NodeKind::kGE:
      return PrintCompare(">=", e, e.as<GENode>()->a, e.as<GENode>()->b);
    case NodeKind::kAnd:
      return PrintBinary("&&", e, e.as<AndNode>()->a, e.as<AndNode>()->b, false);
    case NodeKind::kOr:
      return PrintBinary("||", e, e.as<OrNode>()->a, e.as<OrNode>()->b, false);
    case NodeKind::kNot:
      return "(!" + PrintExpr(e.as<NotNode>()->a) + ")";
    case NodeKind::kSelect: {
      const auto* op = e.as<SelectNode>();
      return PrintSelect(e.dtype(), PrintExpr(op->condition), PrintExpr(op->true_value),
                         PrintExpr(op->false_value));
    }
    case NodeKind::kCast:
      return PrintCast(e.dtype(), e.as<CastNode>()->value);
    case NodeKind::kCall: {
      const auto* op = e.as<CallNode>();
      if (op->op == kIfThenElse && op->args.size() == 3) {
        // ?: evaluates only the chosen branch, as if_then_else requires (Select's may be eager).
        return PrintSelect(e.dtype(), PrintExpr(op->args[0]), PrintExpr(op->args[1]),
                           PrintExpr(op->args[2]));
      }
      auto info = LookupIntrinsic(op->op);
      KILN_CHECK(info.has_value(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": unknown intrinsic " + op->op);
      KILN_CHECK(static_cast<int>(op->args.size()) == info->num_args, ErrorKind::kInvalidIR,
                 "function " + function_name_ + ": " + op->op + " takes " +
                     std::to_string(info->num_args) + " arguments, got " +
                     std::to_string(op->args.size()));
      std::vector<std::string> args;
      for (const Expr& a : op->args) args.push_back(PrintExpr(a));
      return PrintIntrinsic(op, args);
    }
    case NodeKind::kBufferLoad: {
      const auto* op = e.as<BufferLoadNode>();
      if (registers_.count(op->buffer->data.get())) {
        return RegisterAccess(op->buffer->data.get(), op->indices.at(0));
      }
      return PrintLoad(op);
    }
    case NodeKind::kRamp:
      return PrintRamp(e.as<RampNode>());
    case NodeKind::kBroadcast:
      return PrintBroadcast(e.as<BroadcastNode>());
    case NodeKind::kLet: {
      // Pure expressions: the value can stand in for the variable.
      const auto* op = e.as<LetNode>();
      return PrintExpr(Substitute(op->body, {{op->var.get(), op->value}}));
    }
    default:
      throw Error(ErrorKind::kUnsupported, "function " + function_name_ + ": cannot print a " +
                                               NodeKindName(e.kind()) + " expression");
  }
}

// ---- Register promotion -------------------------------------------------------------------

namespace {
// Slots of at most this many bytes in all: a register tile, not a table.
constexpr int64_t kMaxRegisterBytes = 4096;
}  // namespace

bool CLikeEmitter::MayPromoteToRegisters(const AllocateNode* op) {
  const Buffer& b = op->buffer;
  return (b->scope == "local" || b->scope == "stack") &&
         StorageTypeName(b->dtype) == TypeName(b->dtype);
}

std::string CLikeEmitter::PrintLane(const std::string& vector, int lane) {
  return vector + "[" + std::to_string(lane) + "]";
}

void CLikeEmitter::EmitRegisterDecl(DataType t, const std::string& name) {
  Line() << TypeName(t) << " " << name << (t.is_vector() ? " = {0};\n" : " = 0;\n");
}

bool CLikeEmitter::EmitPromoted(const AllocateNode* op) {
  if (!MayPromoteToRegisters(op)) return false;
  auto slots = PlanRegisterSlots(op, kMaxRegisterBytes);
  if (!slots) return false;
  std::vector<PromotedSlot> promoted;
  for (const RegisterSlot& slot : *slots) {
    std::string name = DeclareName(op->buffer->name + "_" + std::to_string(slot.offset));
    EmitRegisterDecl(op->buffer->dtype.WithLanes(slot.lanes), name);
    promoted.push_back({slot, name});
  }
  const VarNode* data = op->buffer->data.get();
  registers_[data] = std::move(promoted);
  EmitStmt(op->body);
  registers_.erase(data);
  return true;
}

std::string CLikeEmitter::RegisterAccess(const VarNode* data, const Expr& index) {
  const std::vector<PromotedSlot>& slots = registers_.at(data);
  int64_t offset = 0;
  int lanes = 1;
  if (const auto* ramp = index.as<RampNode>()) {
    offset = AsConstInt(ramp->base).value_or(-1);
    lanes = ramp->lanes;
  } else {
    offset = AsConstInt(index).value_or(-1);
  }
  for (const PromotedSlot& p : slots) {
    if (p.slot.offset == offset && p.slot.lanes == lanes) return p.name;
    if (lanes == 1 && offset >= p.slot.offset && offset < p.slot.offset + p.slot.lanes) {
      return PrintLane(p.name, static_cast<int>(offset - p.slot.offset));
    }
  }
  throw Error(ErrorKind::kInvalidIR, "function " + function_name_ + ": access of " + data->name +
                                         " at an index its register slots do not cover");
}

// ---- Statements ----------------------------------------------------------------------------

void CLikeEmitter::EmitThreadBinding(const ForNode* op) {
  throw Error(ErrorKind::kUnsupported, "function " + function_name_ + ": loop " +
                                           op->loop_var.name() + " is bound to " + op->thread_tag +
                                           ", which this target has not");
}

void CLikeEmitter::EmitEvaluate(const EvaluateNode* op) {
  if (op->value.as<IntImmNode>() != nullptr) return;
  Line() << "(void)" << PrintExpr(op->value) << ";\n";
}

void CLikeEmitter::EmitConstDecl(DataType t, const std::string& name, const std::string& value) {
  Line() << "const " << TypeName(t) << " " << name << " = " << value << ";\n";
}

void CLikeEmitter::EmitForHeader(DataType t, const std::string& name, const std::string& begin,
                                 const std::string& end) {
  Line() << "for (" << TypeName(t) << " " << name << " = " << begin << "; " << name << " < " << end
         << "; ++" << name << ") {\n";
}

void CLikeEmitter::EmitFor(const ForNode* op) {
  if (op->for_kind == ForKind::kThreadBinding) return EmitThreadBinding(op);
  EmitLoopPrefix(op);
  std::string begin = PrintExpr(op->min);
  Expr end_expr =
      FoldAdd(CastTo(op->loop_var.dtype(), op->min), CastTo(op->loop_var.dtype(), op->extent));
  std::string end = PrintExpr(end_expr);
  std::string name = DeclareVar(op->loop_var);
  Bounds lo = BoundsOf(op->min);
  Bounds hi = BoundsOf(end_expr);
  SetBounds(op->loop_var.get(), {lo.min, hi.max == kMax ? kMax : hi.max - 1});
  try {
    analyzer_.Bind(op->loop_var, Range{CastTo(op->loop_var.dtype(), op->min),
                                       CastTo(op->loop_var.dtype(), op->extent)});
  } catch (const Error&) {
    // A variable the analyzer already knows (a loop copied by unrolling): bounds suffice.
  }
  EmitForHeader(op->loop_var.dtype(), name, begin, end);
  ++indent_;
  EmitStmt(op->body);
  --indent_;
  Line() << "}\n";
}

void CLikeEmitter::EmitStmt(const Stmt& s) {
  switch (s.kind()) {
    case NodeKind::kBufferStore: {
      const auto* op = s.as<BufferStoreNode>();
      if (registers_.count(op->buffer->data.get())) {
        Line() << RegisterAccess(op->buffer->data.get(), op->indices.at(0)) << " = "
               << StripParens(PrintExpr(op->value)) << ";\n";
        return;
      }
      return EmitStore(op);
    }
    case NodeKind::kFor:
      return EmitFor(s.as<ForNode>());
    case NodeKind::kSeqStmt:
      for (const Stmt& x : s.as<SeqStmtNode>()->seq) EmitStmt(x);
      return;
    case NodeKind::kIfThenElse: {
      const auto* op = s.as<IfThenElseNode>();
      Line() << "if (" << StripParens(PrintExpr(op->condition)) << ") {\n";
      ++indent_;
      EmitStmt(op->then_case);
      --indent_;
      if (op->else_case.defined()) {
        Line() << "} else {\n";
        ++indent_;
        EmitStmt(op->else_case);
        --indent_;
      }
      Line() << "}\n";
      return;
    }
    case NodeKind::kLetStmt: {
      const auto* op = s.as<LetStmtNode>();
      std::string value = PrintExpr(op->value);
      std::string name = DeclareVar(op->var);
      SetBounds(op->var.get(), BoundsOf(op->value));
      if (op->var.dtype().is_integral() && op->var.dtype().is_scalar()) {
        try {
          analyzer_.Bind(op->var, op->value);
        } catch (const Error&) {
          // Constant bounds suffice.
        }
      }
      EmitConstDecl(op->var.dtype(), name, value);
      return EmitStmt(op->body);
    }
    case NodeKind::kAllocate: {
      const auto* op = s.as<AllocateNode>();
      if (EmitPromoted(op)) return;
      return EmitAllocate(op);
    }
    case NodeKind::kDeclBuffer:
      return EmitStmt(s.as<DeclBufferNode>()->body);
    case NodeKind::kEvaluate:
      return EmitEvaluate(s.as<EvaluateNode>());
    default:
      throw Error(ErrorKind::kInvalidIR, "function " + function_name_ + ": a " +
                                             NodeKindName(s.kind()) +
                                             " statement remains after lowering");
  }
}

}  // namespace kiln::codegen
