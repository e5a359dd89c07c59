// The C emitter: CLikeEmitter's hooks spelled in C11 with GCC vector extensions and OpenMP.
#include "codegen/c/c_emitter.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "codegen/c/c_math.h"
#include "codegen/c/c_workspace.h"
#include "codegen/c_like_emitter.h"
#include "codegen/passes/ir_utils.h"
#include "codegen/passes/plan_storage.h"
#include "codegen/passes/simd_fold.h"
#include "codegen/passes/vectorize_loops.h"
#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

constexpr int64_t kStackLimitBytes = 64 * 1024;

const char kHalfHelpers[] = R"(static inline float kiln_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline uint16_t kiln_f32_to_f16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (abs_bits > 0x7f800000u ? 0x200u : 0u));
  if (abs_bits >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (abs_bits < 0x38800000u) {
    if (abs_bits < 0x33000000u) return sign;
    uint32_t exp = abs_bits >> 23;
    uint32_t mant = (abs_bits & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exp;
    uint32_t result = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1u))) ++result;
    return (uint16_t)(sign | result);
  }
  uint32_t rounded = abs_bits + 0xfffu + ((abs_bits >> 13) & 1u);
  return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
}
static inline float kiln_round_f16(float f) { return kiln_f16_to_f32(kiln_f32_to_f16(f)); }
)";

const char kBFloatHelpers[] = R"(static inline float kiln_bf16_to_f32(uint16_t b) {
  uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline uint16_t kiln_f32_to_bf16(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}
static inline float kiln_round_bf16(float f) { return kiln_bf16_to_f32(kiln_f32_to_bf16(f)); }
)";

bool Is16BitFloat(DataType t) { return t.is_float() && t.bits() == 16; }

// Marks a loop the emitter rewrote into a SIMD reduction: its accumulator and operator.
inline constexpr char kSimdReduction[] = "kiln_simd_reduction";
// The most copies an unroll pragma asks for of a loop whose body calls an inline math helper.
constexpr int64_t kMaxUnrollWithInlineMath = 4;

// Whether `s` calls an intrinsic that the C target computes with an inline helper.
bool UsesInlineMath(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void VisitExpr_(const CallNode* op) override {
      DataType t = op->dtype;
      if (HasInlineMath(op->op) && t.is_float() && t.bits() <= 32) found = true;
      IRVisitor::VisitExpr_(op);
    }
  } finder;
  finder.VisitStmt(s);
  return finder.found;
}

std::string FloatLiteral(double v, bool is_double) {
  if (std::isnan(v)) return is_double ? "((double)NAN)" : "NAN";
  if (std::isinf(v)) {
    std::string inf = is_double ? "((double)INFINITY)" : "INFINITY";
    return v > 0 ? inf : "(-" + inf + ")";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (!is_double) s += "f";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

class CEmitter : public CLikeEmitter {
 public:
  explicit CEmitter(const CEmitOptions& options) : options_(options) {}

  EmittedSource Run(const PrimFunc& f, const std::string& symbol) {
    function_name_ = f->name;
    KILN_CHECK(IsCIdentifier(symbol), ErrorKind::kInvalidIR,
               "function " + f->name + ": kernel symbol '" + symbol + "' is not a C identifier");
    ReserveName(symbol);
    EmittedSource result;
    result.language = "c";
    result.signature = SignatureOf(f, symbol);
    bool noalias = false;
    if (auto it = f->attrs.find("tir.noalias"); it != f->attrs.end()) {
      noalias = !IsConstInt(it->second, 0);
    }
    indent_ = 1;
    const auto& slots = result.signature.slots;
    Line() << "if (num_args != " << slots.size() << ") return 1;\n";
    if (slots.empty()) {
      Line() << "(void)args;\n";
    } else {
      Line() << "if (args == NULL) return 2;\n";
    }
    std::vector<std::string> unpacked;
    for (size_t i = 0; i < slots.size(); ++i) {
      const ArgSlot& slot = slots[i];
      std::string arg = "args[" + std::to_string(i) + "]";
      const Var& param = f->params[slot.param_index];
      switch (slot.kind) {
        case SlotKind::kBufferData: {
          Buffer buffer = *f->BufferOf(param);
          std::string name = DeclareVar(buffer->data);
          std::string type = StorageTypeName(buffer->dtype);
          int64_t align = buffer->align ? buffer->align : options_.default_param_alignment;
          std::string ptr =
              align > 0 ? "__builtin_assume_aligned(" + arg + ".ptr, " + std::to_string(align) + ")"
                        : arg + ".ptr";
          Line() << type << "* " << (noalias ? "restrict " : "") << name << " = (" << type << "*)"
                 << ptr << ";\n";
          unpacked.push_back(name);
          break;
        }
        case SlotKind::kScalarInt:
        case SlotKind::kScalarFloat: {
          std::string name = DeclareVar(param);
          std::string value = slot.kind == SlotKind::kScalarInt ? arg + ".i" : arg + ".f";
          if (slot.dtype.is_bool()) {
            value = "(" + value + " != 0)";
          } else if (Is16BitFloat(slot.dtype)) {
            value = FinishArith(slot.dtype, "(float)" + value);
          }
          Line() << "const " << TypeName(slot.dtype) << " " << name << " = ("
                 << TypeName(slot.dtype) << ")" << value << ";\n";
          unpacked.push_back(name);
          break;
        }
        case SlotKind::kShapeVar: {
          Buffer buffer = *f->BufferOf(param);
          const Var shape_var = Var(buffer->shape[slot.dim].ptr());
          std::string name = DeclareVar(shape_var);
          AssumeNonNegative(shape_var);
          Line() << "const " << TypeName(slot.dtype) << " " << name << " = ("
                 << TypeName(slot.dtype) << ")" << arg << ".i;\n";
          unpacked.push_back(name);
          break;
        }
      }
    }
    for (const std::string& name : unpacked) Line() << "(void)" << name << ";\n";
    FindRowOffsets(f);
    EmitStmt(f->body);
    Line() << "return 0;\n";

    std::ostringstream code;
    code << "// Kernel " << symbol << " generated by Kiln from function " << f->name << ".\n";
    if (options_.fp_contract) {
      // -std=c11 turns off floating-point contraction; a kernel's a * b + c may become one fused
      // multiply-add (as TVM's LLVM backend allows), which GCC vector code needs to reach the
      // FMA units at all.
      code << "#pragma GCC optimize(\"fp-contract=fast\")\n";
    }
    code << "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n#include <stdlib.h>\n";
    if (uses_openmp_) code << "#include <omp.h>\n";
    code << "\ntypedef union {\n  void* ptr;\n  int64_t i;\n  double f;\n} kiln_value_t;\n\n";
    for (const std::string& helper : helpers_) code << helper;
    if (!helpers_.empty()) code << "\n";
    code << "int32_t " << symbol << "(const kiln_value_t* args, int32_t num_args);\n";
    code << "int32_t " << symbol << "(const kiln_value_t* args, int32_t num_args) {\n";
    code << out_.str() << "}\n";
    result.code = code.str();
    result.uses_openmp = uses_openmp_;
    return result;
  }

 protected:
  std::string TypeName(DataType t) override {
    if (t.is_vector()) return VectorType(t);
    switch (t.code()) {
      case DataType::Code::kBool:
        return "int8_t";
      case DataType::Code::kInt:
        return "int" + std::to_string(t.bits()) + "_t";
      case DataType::Code::kUInt:
        return "uint" + std::to_string(t.bits()) + "_t";
      case DataType::Code::kFloat:
        if (t.bits() == 64) return "double";
        if (t.bits() == 32 || t.bits() == 16) return "float";
        break;
      case DataType::Code::kBFloat:
        return "float";
      case DataType::Code::kHandle:
        if (t.is_void()) return "void";
        return "void*";
    }
    throw Error(ErrorKind::kUnsupported,
                "function " + function_name_ + ": no C type for " + t.ToString());
  }

  std::string StorageTypeName(DataType t) override {
    if (Is16BitFloat(t) && t.is_scalar()) return "uint16_t";
    return TypeName(t);
  }

  std::string PrintFloatImm(DataType t, double value) override {
    if (t.code() == DataType::Code::kBFloat) {
      value = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
    } else if (t.bits() == 16) {
      value = HalfToFloat(FloatToHalf(static_cast<float>(value)));
    }
    return FloatLiteral(value, t.bits() == 64);
  }

  std::string FinishArith(DataType t, std::string expr) override {
    if (t.is_vector()) return expr;
    if (t.is_float() && t.bits() == 16) {
      NeedFloat16(t);
      return (t.code() == DataType::Code::kBFloat ? "kiln_round_bf16(" : "kiln_round_f16(") + expr +
             ")";
    }
    if ((t.is_int() || t.is_uint()) && t.bits() < 32) return "((" + TypeName(t) + ")" + expr + ")";
    return expr;
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    DataType t = op->dtype;
    DataType at = op->args[0].dtype();
    const std::string& name = op->op;
    if (t.is_vector()) return PrintVectorIntrinsic(op, args);
    KILN_CHECK(at.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": " + name + " of a vector to a scalar");
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      return "(" + name + "(" + args[0] + ") != 0)";
    }
    if ((name == "abs" || name == "fabs") && at.is_integral()) {
      if (at.is_uint() || at.is_bool()) return args[0];
      if (at.bits() == 64) return "llabs(" + args[0] + ")";
      return FinishArith(t, "abs(" + args[0] + ")");
    }
    KILN_CHECK(at.is_float() && t.is_float(), ErrorKind::kType,
               "function " + function_name_ + ": " + name + " of " + at.ToString());
    bool dbl = t.bits() == 64;
    if (!dbl && options_.inline_math && HasInlineMath(name)) {
      return FinishArith(t, NeedInlineMath(name, t) + "(" + args[0] + ")");
    }
    std::string suffix = dbl ? "" : "f";
    std::string one = dbl ? "1.0" : "1.0f";
    std::string r;
    if (name == "rsqrt") {
      r = "(" + one + " / sqrt" + suffix + "(" + args[0] + "))";
    } else if (name == "sigmoid") {
      r = "(" + one + " / (" + one + " + exp" + suffix + "(-(" + args[0] + "))))";
    } else if (name == "exp10") {
      r = "pow" + suffix + "(" + (dbl ? "10.0" : "10.0f") + ", " + args[0] + ")";
    } else {
      std::string fn = name == "abs" ? "fabs" : name;
      r = fn + suffix + "(";
      for (size_t i = 0; i < args.size(); ++i) r += (i ? ", " : "") + args[i];
      r += ")";
    }
    return FinishArith(t, r);
  }

  // An intrinsic on vectors: the inline vector helper where there is one, else a helper that
  // applies the scalar form lane by lane (still correct, and GCC may vectorize its loop).
  std::string PrintVectorIntrinsic(const CallNode* op, const std::vector<std::string>& args) {
    DataType t = op->dtype;
    const std::string& name = op->op;
    for (const Expr& a : op->args) {
      KILN_CHECK(a.dtype().lanes() == t.lanes(), ErrorKind::kInvalidIR,
                 "function " + function_name_ + ": " + name + " of " + a.dtype().ToString() +
                     " to " + t.ToString());
    }
    std::string call_args;
    for (size_t i = 0; i < args.size(); ++i) call_args += (i ? ", " : "") + args[i];
    if (t == DataType::Float(32).WithLanes(t.lanes()) && op->args[0].dtype() == t &&
        options_.inline_math && HasInlineMath(name)) {
      return NeedInlineMath(name, t) + "(" + call_args + ")";
    }
    std::string fn = "kiln_vmap_" + name + "_";
    std::vector<Expr> lane_args;
    std::vector<std::string> lane_names;
    std::string params;
    for (size_t i = 0; i < op->args.size(); ++i) {
      DataType at = op->args[i].dtype();
      fn += (i ? "_" : "") + at.ToString();
      lane_args.push_back(Var("a" + std::to_string(i), at.element_of()));
      lane_names.push_back("a" + std::to_string(i) + "[i]");
      params += (i ? ", " : "") + TypeName(at) + " a" + std::to_string(i);
    }
    if (!helper_names_.count(fn)) {
      Expr lane_call = Call(t.element_of(), name, lane_args);
      std::string lane = PrintIntrinsic(lane_call.as<CallNode>(), lane_names);
      std::string type = TypeName(t);
      NeedHelper(fn, "static inline " + type + " " + fn + "(" + params + ") {\n  " + type +
                         " r;\n  for (int i = 0; i < " + std::to_string(t.lanes()) +
                         "; ++i) r[i] = " + lane + ";\n  return r;\n}\n");
    }
    return fn + "(" + call_args + ")";
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    DataType from = value.dtype();
    std::string v = PrintExpr(value);
    if (to.is_vector()) return "__builtin_convertvector(" + v + ", " + TypeName(to) + ")";
    if (to == from) return v;
    if (to.is_bool()) return "((int8_t)((" + v + ") != 0))";
    if (Is16BitFloat(to)) return FinishArith(to, "((float)" + v + ")");
    return "((" + TypeName(to) + ")" + v + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " / " + b + ")";
    bool wide = t.bits() == 64;
    std::string fn = wide ? "kiln_floordiv_i64" : "kiln_floordiv_i32";
    std::string type = wide ? "int64_t" : "int32_t";
    NeedHelper(
        fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " + type +
                " q = a / b;\n  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " % " + b + ")";
    bool wide = t.bits() == 64;
    std::string fn = wide ? "kiln_floormod_i64" : "kiln_floormod_i32";
    std::string type = wide ? "int64_t" : "int32_t";
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " +
                       type +
                       " r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    std::string fn = std::string(is_min ? "kiln_min_" : "kiln_max_") + t.ToString();
    std::string type = TypeName(t);
    const char* cmp = is_min ? "<" : ">";
    // Floats propagate NaN (x != x only for NaN), as the interpreter does.
    auto pick = [&](const std::string& x, const std::string& y) {
      std::string choose = x + " " + cmp + " " + y + " ? " + x + " : " + y;
      if (!t.is_float()) return choose;
      return x + " != " + x + " ? " + x + " : " + y + " != " + y + " ? " + y + " : " + choose;
    };
    if (t.is_vector()) {
      // A lane mask and a bitwise blend, which GCC compiles to one compare and one blend; a loop
      // over the lanes with ?: stays scalar. Floats take a where it is NaN, then b where b is.
      std::string mask_type = VectorType(DataType::Int(t.bits()).WithLanes(t.lanes()));
      std::string mask = std::string("(a ") + cmp + " b)" + (t.is_float() ? " | (a != a)" : "");
      NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " +
                         mask_type + " m = " + mask + ";\n  return (" + type + ")((m & (" +
                         mask_type + ")a) | (~m & (" + mask_type + ")b));\n}\n");
    } else {
      NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type +
                         " b) { return " + pick("a", "b") + "; }\n");
    }
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintRamp(const RampNode* op) override {
    DataType t = op->dtype;
    std::string type = TypeName(t);
    std::string elem = TypeName(t.element_of());
    std::string fn = "kiln_vramp_" + t.ToString();
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + elem + " base, " + elem +
                       " stride) {\n  " + type + " v = {0};\n  for (int i = 0; i < " +
                       std::to_string(t.lanes()) + "; ++i) v[i] = (" + elem +
                       ")(base + i * stride);\n  return v;\n}\n");
    return fn + "(" + PrintExpr(op->base) + ", " + PrintExpr(op->stride) + ")";
  }

  std::string PrintBroadcast(const BroadcastNode* op) override {
    DataType t = op->dtype;
    std::string type = TypeName(t);
    std::string fn = "kiln_vbroadcast_" + t.ToString();
    // An initializer of equal elements, which GCC recognizes as a splat (one vbroadcastss);
    // a loop of lane insertions is not always recognized.
    std::string splat;
    for (int i = 0; i < t.lanes(); ++i) splat += i ? ", x" : "x";
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + TypeName(t.element_of()) +
                       " x) { return (" + type + "){" + splat + "}; }\n");
    return fn + "(" + PrintExpr(op->value) + ")";
  }

  std::string PrintLoad(const BufferLoadNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": load of " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    DataType elem = op->buffer->dtype;
    if (op->dtype.is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && elem.is_scalar() && !Is16BitFloat(elem),
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector load of " + op->buffer->name +
                     " that is not a contiguous or strided " + elem.ToString() + " access");
      std::string ptr = "(" + name + " + " + PrintExpr(ramp->base) + ")";
      if (IsConstInt(ramp->stride, 1)) return VectorAccess("vload", op->dtype) + "(" + ptr + ")";
      return VectorAccess("vgather", op->dtype) + "(" + ptr + ", (int64_t)" +
             PrintExpr(ramp->stride) + ")";
    }
    std::string access = name + "[" + PrintExpr(op->indices[0]) + "]";
    if (Is16BitFloat(elem)) {
      NeedFloat16(elem);
      return (elem.code() == DataType::Code::kBFloat ? "kiln_bf16_to_f32(" : "kiln_f16_to_f32(") +
             access + ")";
    }
    return access;
  }

  void EmitStore(const BufferStoreNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": store to " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    DataType elem = op->buffer->dtype;
    std::string value = PrintExpr(op->value);
    if (op->value.dtype().is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && elem.is_scalar() && !Is16BitFloat(elem),
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector store to " + op->buffer->name +
                     " that is not a contiguous or strided " + elem.ToString() + " access");
      std::string ptr = "(" + name + " + " + PrintExpr(ramp->base) + ")";
      if (IsConstInt(ramp->stride, 1)) {
        Line() << VectorAccess("vstore", op->value.dtype()) << "(" << ptr << ", " << value
               << ");\n";
      } else {
        Line() << VectorAccess("vscatter", op->value.dtype()) << "(" << ptr << ", (int64_t)"
               << PrintExpr(ramp->stride) << ", " << value << ");\n";
      }
      return;
    }
    if (Is16BitFloat(elem)) {
      NeedFloat16(elem);
      value = (elem.code() == DataType::Code::kBFloat ? "kiln_f32_to_bf16(" : "kiln_f32_to_f16(") +
              value + ")";
    }
    Line() << name << "[" << PrintExpr(op->indices[0]) << "] = " << value << ";\n";
  }

  void EmitFor(const ForNode* op) override {
    if (EmitSimdReduction(op)) return;
    bool opens = op->for_kind == ForKind::kParallel && !in_parallel_;
    if (opens) {
      uses_openmp_ = true;
      in_parallel_ = true;
      opening_loop_ = op;
    }
    const bool balanced = opens && BalancedRows(op);
    if (balanced) balanced_loop_ = op;
    CLikeEmitter::EmitFor(op);
    if (balanced) {
      --indent_;
      Line() << "}\n";  // the parallel region EmitLoopPrefix opened
    }
    if (opens) in_parallel_ = false;
  }

  // A sparse kernel's parallel row loop annotated kiln.parallel_balance (a decision of the
  // "sparse-cpu" rules) over the function's row offsets (its kiln.sparse_row_offsets
  // attribute names the indptr parameter): each thread takes the rows of an equal share of
  // the nonzeros instead of an equal share of the rows.
  bool BalancedRows(const ForNode* op) const {
    if (!row_offsets_.defined()) return false;
    auto it = op->annotations.find("kiln.parallel_balance");
    if (it == op->annotations.end() || IsConstInt(it->second, 0)) return false;
    return IsConstInt(op->min, 0) && AsConstInt(op->extent) == row_count_;
  }

  void FindRowOffsets(const PrimFunc& f) {
    auto it = f->attrs.find("kiln.sparse_row_offsets");
    if (it == f->attrs.end()) return;
    const auto* name = it->second.as<StringImmNode>();
    if (name == nullptr) return;
    for (const auto& [param, buffer] : f->buffer_map) {
      if (buffer->name != name->value || buffer->shape.size() != 1 ||
          buffer->dtype != DataType::Int(32)) {
        continue;
      }
      if (auto length = AsConstInt(buffer->shape[0]); length && *length >= 2) {
        row_offsets_ = buffer;
        row_count_ = *length - 1;
      }
    }
  }

  void EmitForHeader(DataType t, const std::string& name, const std::string& begin,
                     const std::string& end) override {
    if (balanced_header_) {
      balanced_header_ = false;
      Line() << "for (" << TypeName(t) << " " << name << " = kiln_row_begin; " << name
             << " < kiln_row_end; ++" << name << ") {\n";
      return;
    }
    CLikeEmitter::EmitForHeader(t, name, begin, end);
  }

  void EmitLoopPrefix(const ForNode* op) override {
    if (auto it = simd_reductions_.find(op); it != simd_reductions_.end()) {
      // The accumulator is a promoted register: a plain variable the clause can name.
      Expr zero = MakeConst(DataType::Int(32), 0);
      std::string acc = PrintExpr(BufferLoad(it->second.acc, {zero}));
      std::string nan =
          it->second.nan.defined() ? PrintExpr(BufferLoad(it->second.nan, {zero})) : "";
      if (IsCIdentifier(acc) && (nan.empty() || IsCIdentifier(nan))) {
        Line() << "#pragma omp simd reduction(" << it->second.op << ":" << acc << ")"
               << (nan.empty() ? "" : " reduction(max:" + nan + ")") << "\n";
        uses_openmp_ = true;
      }
      return;
    }
    if (op == opening_loop_ && op == balanced_loop_) {
      // Each thread's rows [begin, end): the rows whose nonzeros start in its equal share of
      // them, found by a binary search over the offsets (the last thread ends at the last row,
      // so that trailing empty rows are still visited).
      balanced_loop_ = nullptr;
      opening_loop_ = nullptr;
      balanced_header_ = true;
      NeedHelper(
          "kiln_balanced_row",
          "static inline int64_t kiln_balanced_row(const int32_t* offsets, int64_t rows, "
          "int64_t nonzero) {\n  int64_t lo = 0, hi = rows;\n  while (lo < hi) {\n"
          "    int64_t mid = lo + (hi - lo) / 2;\n    if (offsets[mid] < nonzero) lo = mid + "
          "1; else hi = mid;\n  }\n  return lo;\n}\n");
      const std::string offsets = NameOf(row_offsets_->data.get());
      const std::string rows = std::to_string(row_count_);
      Line() << "#pragma omp parallel\n";
      Line() << "{\n";
      ++indent_;
      Line() << "const int64_t kiln_part = omp_get_thread_num(), kiln_parts = "
                "omp_get_num_threads();\n";
      Line() << "const int64_t kiln_nonzeros = (int64_t)" << offsets << "[" << rows << "] - "
             << offsets << "[0];\n";
      Line() << "const int64_t kiln_row_begin = kiln_part == 0 ? 0 : kiln_balanced_row(" << offsets
             << ", " << rows << ", " << offsets
             << "[0] + kiln_nonzeros * kiln_part / kiln_parts);\n";
      Line() << "const int64_t kiln_row_end = kiln_part + 1 == kiln_parts ? " << rows
             << " : kiln_balanced_row(" << offsets << ", " << rows << ", " << offsets
             << "[0] + kiln_nonzeros * (kiln_part + 1) / kiln_parts);\n";
    } else if (op == opening_loop_) {
      // Static: iterations of a scheduled parallel loop cost the same, so equal contiguous
      // chunks per thread, decided once, with no runtime work sharing.
      Line() << "#pragma omp parallel for schedule(static)\n";
      opening_loop_ = nullptr;
    } else if (op->for_kind == ForKind::kUnrolled) {
      auto extent = AsConstInt(op->extent);
      int64_t factor = extent && *extent > 0 && *extent < 65535 ? *extent : int64_t{8};
      // Each inline math call is some twenty instructions: a body with one, copied 128 times,
      // made GCC take seconds more per candidate for no speed (the vectorizer wants the loop).
      if (options_.inline_math && UsesInlineMath(op->body)) {
        factor = std::min<int64_t>(factor, kMaxUnrollWithInlineMath);
      }
      Line() << "#pragma GCC unroll " << factor << "\n";
    } else if (op->for_kind == ForKind::kVectorized || op->annotations.count(kPragmaIvdep)) {
      Line() << "#pragma GCC ivdep\n";
    }
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    DataType elem = buffer->dtype;
    std::string type = StorageTypeName(elem);
    Expr count = IntImm(DataType::Int(64), 1);
    for (const Expr& extent : buffer->shape) {
      count = FoldMul(count, CastTo(DataType::Int(64), extent));
    }
    int64_t align = std::max<int64_t>(buffer->align, 16);
    auto const_count = AsConstInt(count);
    int64_t bytes = const_count ? *const_count * elem.bytes() * elem.lanes() : -1;
    bool on_stack = buffer->scope == kStorageStack ||
                    (buffer->scope != kStorageHeap && const_count && bytes <= kStackLimitBytes);
    std::string name = DeclareVar(buffer->data);
    if (on_stack) {
      Line() << type << " " << name << "[" << std::max<int64_t>(*const_count, 1)
             << "] __attribute__((aligned(" << align << ")));\n";
      EmitStmt(op->body);
      return;
    }
    NeedHelper("kiln_alloc", kCWorkspaceHelpers);
    Line() << type << "* " << name << " = (" << type << "*)kiln_alloc(" << align << ", (size_t)"
           << PrintExpr(count) << " * sizeof(" << type << "));\n";
    EmitStmt(op->body);
    Line() << "kiln_free(" << name << ");\n";
  }

 private:
  // A SIMD fold (codegen/passes/simd_fold.h) becomes, in a local accumulator that register
  // promotion keeps in a variable,
  //   t = acc[i]; #pragma omp simd reduction(op:t) for (k ...) t = t op f(k); acc[i] = t;
  // Returns false, printing nothing, for any other loop.
  bool EmitSimdReduction(const ForNode* op) {
    if (!options_.simd_reductions || op->annotations.count(kSimdReduction) ||
        op->annotations.count(kPragmaIvdep)) {
      return false;
    }
    std::optional<SimdFold> fold =
        MatchSimdFold(op, [this](const Expr& e) { return ProvablyPositive(e); });
    if (!fold) return false;
    if (IsVectorTreeFold(op, *fold)) {
      EmitVectorTreeFold(op, *fold);
      return true;
    }
    const BufferStoreNode* store = fold->store;
    const BufferStoreNode* init = fold->init;
    const std::string& clause = fold->op;
    const Expr& b = fold->value;
    const Expr& a = fold->acc;
    DataType t = store->value.dtype();
    Buffer acc =
        DeclBuffer(store->buffer->name + "_acc", t, {MakeConst(DataType::Int(32), 1)}, "local");
    Expr zero = MakeConst(DataType::Int(32), 0);
    Expr acc_value = BufferLoad(acc, {zero});
    Annotations annotations = op->annotations;
    annotations[kSimdReduction] = IntImm(DataType::Int(32), 1);
    if (clause != "+") {
      // Max and min: a plain compare-and-pick (one vector max) under OpenMP's own max or min,
      // and whether a NaN was seen in an int flag reduced by max; the result is NaN where the
      // flag is set, as the interpreter's NaN-propagating fold gives. A reduction declared on
      // the NaN-propagating helper kept GCC from vectorizing the loop (softmax's row max
      // took 40% of the kernel).
      Buffer nan = DeclBuffer(store->buffer->name + "_nan", DataType::Int(32),
                              {MakeConst(DataType::Int(32), 1)}, "local");
      Expr nan_value = BufferLoad(nan, {zero});
      auto is_nan = [](const Expr& x) {
        return Select(NE(x, x), IntImm(DataType::Int(32), 1), IntImm(DataType::Int(32), 0));
      };
      Expr better = clause == "max" ? GT(b, acc_value) : LT(b, acc_value);
      Stmt loop = For(op->loop_var, op->min, op->extent, ForKind::kSerial,
                      SeqStmt({BufferStore(acc, Select(better, b, acc_value), {zero}),
                               BufferStore(nan, Max(nan_value, is_nan(b)), {zero})}),
                      op->thread_tag, annotations);
      Expr result = Select(NE(nan_value, IntImm(DataType::Int(32), 0)),
                           FloatImm(t, std::numeric_limits<double>::quiet_NaN()), acc_value);
      Stmt body = Allocate(
          acc, Allocate(nan, SeqStmt({BufferStore(acc, init ? init->value : a, {zero}),
                                      BufferStore(nan, is_nan(acc_value), {zero}), loop,
                                      BufferStore(store->buffer, result, store->indices)})));
      simd_reductions_[loop.as<ForNode>()] = {acc, clause, nan};
      EmitStmt(body);
      simd_reductions_.erase(loop.as<ForNode>());
      return true;
    }
    Stmt loop = For(op->loop_var, op->min, op->extent, ForKind::kSerial,
                    BufferStore(acc, Add(acc_value, b), {zero}), op->thread_tag, annotations);
    Stmt body = Allocate(acc, SeqStmt({BufferStore(acc, init ? init->value : a, {zero}), loop,
                                       BufferStore(store->buffer, acc_value, store->indices)}));
    simd_reductions_[loop.as<ForNode>()] = {acc, clause, Buffer()};
    EmitStmt(body);
    simd_reductions_.erase(loop.as<ForNode>());
    return true;
  }

  // acc[i] = start + sum(buf[base : base + lanes]): one vector load summed by halves. GCC
  // ends an OpenMP SIMD reduction by adding the lanes one at a time, a chain of `lanes` scalar
  // adds; the halves take log2(lanes) vector adds (layer_norm's row passes ran 1.8x faster).
  void EmitVectorTreeFold(const ForNode* op, const SimdFold& fold) {
    const auto* load = fold.value.as<BufferLoadNode>();
    DataType t = fold.store->value.dtype();
    int lanes = static_cast<int>(*AsConstInt(op->extent));
    Expr base = Substitute(load->indices[0], {{op->loop_var.get(), op->min}});
    Expr slice = BufferLoad(load->buffer, {Ramp(base, MakeConst(base.dtype(), 1), lanes)});
    Var total(fold.store->buffer->name + "_sum", t);
    std::string sum = NeedVectorSum(t.WithLanes(lanes));
    std::string name = DeclareVar(total);
    Line() << TypeName(t) << " " << name << " = " << sum << "(" << PrintExpr(slice) << ");\n";
    Expr start = fold.init ? fold.init->value : fold.acc;
    EmitStmt(BufferStore(fold.store->buffer, Add(start, total), fold.store->indices));
  }

  // The helper summing the lanes of a float vector of type `t` by halves; its name.
  std::string NeedVectorSum(DataType t) {
    std::string fn = "kiln_vsum_" + t.ToString();
    if (helper_names_.count(fn)) return fn;
    std::string type = VectorType(t);
    std::string body;
    if (t.lanes() == 2) {
      body = "v[0] + v[1]";
    } else {
      int half = t.lanes() / 2;
      std::string low, high;
      for (int i = 0; i < half; ++i) {
        low += ", " + std::to_string(i);
        high += ", " + std::to_string(half + i);
      }
      body = NeedVectorSum(t.WithLanes(half)) + "(__builtin_shufflevector(v, v" + low +
             ") + __builtin_shufflevector(v, v" + high + "))";
    }
    NeedHelper(fn, "static inline " + TypeName(t.element_of()) + " " + fn + "(" + type +
                       " v) { return " + body + "; }\n");
    return fn;
  }

  struct SimdReduction {
    Buffer acc;
    std::string op;  // the OpenMP reduction operator
    Buffer nan;      // max and min: the flag of a NaN seen, reduced by max
  };

  void NeedHelper(const std::string& name, const std::string& definition) {
    if (helper_names_.insert(name).second) helpers_.push_back(definition);
  }

  // Declares the inline math helper of intrinsic `name` on float32 values of `t`'s lanes (a
  // 16-bit float scalar is computed in float) and returns its name.
  std::string NeedInlineMath(const std::string& name, DataType t) {
    CMathType type;
    if (t.is_vector()) {
      type.lanes = t.lanes();
      type.float_type = VectorType(t);
      type.int_type = VectorType(DataType::Int(32).WithLanes(t.lanes()));
      type.suffix = t.ToString();
    }
    for (CHelper& helper : InlineMathHelpers(name, type)) {
      NeedHelper(helper.name, std::move(helper.definition));
    }
    return InlineMathFunction(name, type);
  }

  void NeedFloat16(DataType t) {
    if (t.code() == DataType::Code::kBFloat) {
      NeedHelper("kiln_bf16", kBFloatHelpers);
    } else {
      NeedHelper("kiln_f16", kHalfHelpers);
    }
  }

  std::string VectorType(DataType t) {
    KILN_CHECK(
        !t.is_bool() && !Is16BitFloat(t) && !t.is_handle() && (t.lanes() & (t.lanes() - 1)) == 0,
        ErrorKind::kUnsupported,
        "function " + function_name_ + ": no C vector type for " + t.ToString());
    std::string name = "kiln_" + t.ToString();
    NeedHelper(name, "typedef " + TypeName(t.element_of()) + " " + name +
                         " __attribute__((vector_size(" + std::to_string(t.bytes() * t.lanes()) +
                         ")));\n");
    return name;
  }

  // The helper that loads, stores, gathers or scatters a vector of type `t`.
  std::string VectorAccess(const std::string& kind, DataType t) {
    std::string type = VectorType(t);
    std::string elem = TypeName(t.element_of());
    std::string lanes = std::to_string(t.lanes());
    std::string fn = "kiln_" + kind + "_" + t.ToString();
    std::string def;
    if (kind == "vload") {
      def = "static inline " + type + " " + fn + "(const " + elem + "* p) {\n  " + type +
            " v;\n  memcpy(&v, p, sizeof v);\n  return v;\n}\n";
    } else if (kind == "vstore") {
      def = "static inline void " + fn + "(" + elem + "* p, " + type +
            " v) { memcpy(p, &v, sizeof v); }\n";
    } else if (kind == "vgather") {
      def = "static inline " + type + " " + fn + "(const " + elem + "* p, int64_t s) {\n  " + type +
            " v = {0};\n  for (int i = 0; i < " + lanes +
            "; ++i) v[i] = p[i * s];\n  return v;\n}\n";
    } else {
      def = "static inline void " + fn + "(" + elem + "* p, int64_t s, " + type +
            " v) {\n  for (int i = 0; i < " + lanes + "; ++i) p[i * s] = v[i];\n}\n";
    }
    NeedHelper(fn, def);
    return fn;
  }

  const CEmitOptions& options_;
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
  std::unordered_map<const ForNode*, SimdReduction> simd_reductions_;
  bool uses_openmp_ = false;
  bool in_parallel_ = false;
  const ForNode* opening_loop_ = nullptr;
  // Balanced rows (BalancedRows): the offsets buffer and row count, the loop, and whether the
  // next loop header is its.
  Buffer row_offsets_;
  int64_t row_count_ = 0;
  const ForNode* balanced_loop_ = nullptr;
  bool balanced_header_ = false;
};

}  // namespace

EmittedSource EmitC(const PrimFunc& lowered, const std::string& symbol,
                    const CEmitOptions& options) {
  return CEmitter(options).Run(lowered, symbol);
}

}  // namespace kiln::codegen
