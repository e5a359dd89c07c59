// The OpenCL emitter: GpuEmitter's hooks spelled in OpenCL C 1.2.
#include "codegen/opencl/opencl_emitter.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "codegen/gpu/gpu_emitter.h"
#include "codegen/passes/ir_utils.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

bool IsHalf(DataType t) { return t.code() == DataType::Code::kFloat && t.bits() == 16; }
bool IsBFloat(DataType t) { return t.code() == DataType::Code::kBFloat; }

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

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string Lane(int i) {
  const char* digits = "0123456789abcdef";
  return std::string(".s") + digits[i];
}

const char kHalfRound[] =
    "static inline float kiln_round_f16(float x) {\n"
    "  ushort h;\n"
    "  vstore_half_rte(x, 0, (__private half*)&h);\n"
    "  return vload_half(0, (__private half*)&h);\n"
    "}\n";

// bfloat16 is stored as ushort and computed in float, rounded to nearest even as the
// interpreter does.
const char kBFloatHelpers[] =
    "static inline float kiln_bf16_to_f32(ushort b) { return as_float((uint)b << 16); }\n"
    "static inline ushort kiln_f32_to_bf16(float f) {\n"
    "  uint bits = as_uint(f);\n"
    "  if ((bits & 0x7fffffffu) > 0x7f800000u) return (ushort)((bits >> 16) | 0x40u);\n"
    "  bits += 0x7fffu + ((bits >> 16) & 1u);\n"
    "  return (ushort)(bits >> 16);\n"
    "}\n"
    "static inline float kiln_round_bf16(float f) { return "
    "kiln_bf16_to_f32(kiln_f32_to_bf16(f)); }\n";

class OpenCLEmitter : public gpu::GpuEmitter {
 public:
  explicit OpenCLEmitter(const OpenCLEmitOptions& options) : options_(options) {}

  EmittedSource Run(const PrimFunc& f, const std::string& symbol) {
    function_name_ = f->name;
    KILN_CHECK(IsIdentifier(symbol), ErrorKind::kInvalidIR,
               "function " + f->name + ": kernel symbol '" + symbol + "' is not an identifier");
    gpu::GpuProgram program = gpu::LowerToKernels(f, symbol, options_.limits);
    EmittedSource result;
    result.language = "opencl";
    result.signature = SignatureOf(f, symbol);
    result.launch = program.plan;
    bool noalias = false;
    if (auto it = f->attrs.find("tir.noalias"); it != f->attrs.end()) {
      noalias = !IsConstInt(it->second, 0);
    }
    for (const gpu::GpuKernel& kernel : program.kernels) {
      ReserveName(kernel.launch.symbol);
    }

    std::ostringstream kernels;
    for (const gpu::GpuKernel& kernel : program.kernels) {
      // Each kernel declares the parameters afresh (under new names after the first).
      out_.str("");
      indent_ = 1;
      std::vector<std::string> params;
      for (const ArgSlot& slot : result.signature.slots) {
        const Var& param = f->params[slot.param_index];
        switch (slot.kind) {
          case SlotKind::kBufferData: {
            Buffer buffer = *f->BufferOf(param);
            std::string name = DeclareVar(buffer->data);
            params.push_back("__global " + StorageTypeName(buffer->dtype) + "* " +
                             (noalias ? "restrict " : "") + name);
            break;
          }
          case SlotKind::kScalarInt:
          case SlotKind::kScalarFloat: {
            std::string name = DeclareVar(param);
            params.push_back("const " + ArgTypeName(slot.dtype) + " " + name);
            break;
          }
          case SlotKind::kShapeVar: {
            Buffer buffer = *f->BufferOf(param);
            const Var shape_var = Var(buffer->shape[slot.dim].ptr());
            std::string name = DeclareVar(shape_var);
            AssumeNonNegative(shape_var);
            params.push_back("const " + ArgTypeName(slot.dtype) + " " + name);
            break;
          }
        }
      }
      for (const Buffer& b : program.workspace) {
        params.push_back("__global " + StorageTypeName(b->dtype) + "* " + DeclareVar(b->data));
      }
      EmitKernelBody(kernel);
      const ConcreteBlock block = ConstantBlock(kernel);
      kernels << "__kernel ";
      if (block.known) {
        kernels << "__attribute__((reqd_work_group_size(" << block.x << ", " << block.y << ", "
                << block.z << ")))\n";
      }
      kernels << "void " << kernel.launch.symbol << "(";
      for (size_t i = 0; i < params.size(); ++i) {
        kernels << (i ? ",\n    " : "") << params[i];
      }
      kernels << ") {\n" << out_.str() << "}\n\n";
    }

    std::ostringstream code;
    code << "// Kernels " << symbol << " generated by Kiln from function " << f->name << ".\n";
    if (uses_double_) code << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    code << "\n";
    for (const std::string& helper : helpers_) code << helper;
    if (!helpers_.empty()) code << "\n";
    code << kernels.str();
    result.code = code.str();
    return result;
  }

 protected:
  std::string TypeName(DataType t) override {
    std::string elem;
    switch (t.code()) {
      case DataType::Code::kBool:
        elem = "char";
        break;
      case DataType::Code::kInt:
        elem = t.bits() == 8 ? "char" : t.bits() == 16 ? "short" : t.bits() == 32 ? "int" : "long";
        if (t.bits() != 8 && t.bits() != 16 && t.bits() != 32 && t.bits() != 64) elem.clear();
        break;
      case DataType::Code::kUInt:
        elem = t.bits() == 8    ? "uchar"
               : t.bits() == 16 ? "ushort"
               : t.bits() == 32 ? "uint"
               : t.bits() == 64 ? "ulong"
                                : "";
        break;
      case DataType::Code::kFloat:
        if (t.bits() == 64) {
          uses_double_ = true;
          elem = "double";
        } else if (t.bits() == 32 || t.bits() == 16) {
          elem = "float";
        }
        break;
      case DataType::Code::kBFloat:
        elem = "float";
        break;
      case DataType::Code::kHandle:
        if (t.is_void()) return "void";
        break;
    }
    KILN_CHECK(!elem.empty(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": no OpenCL type for " + t.ToString());
    if (t.is_scalar()) return elem;
    KILN_CHECK(
        t.lanes() == 2 || t.lanes() == 3 || t.lanes() == 4 || t.lanes() == 8 || t.lanes() == 16,
        ErrorKind::kUnsupported,
        "function " + function_name_ + ": no OpenCL vector type for " + t.ToString());
    KILN_CHECK(!IsHalf(t) && !IsBFloat(t) && !t.is_bool(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": no OpenCL vector type for " + t.ToString());
    return elem + std::to_string(t.lanes());
  }

  std::string StorageTypeName(DataType t) override {
    if (IsHalf(t) && t.is_scalar()) return "half";
    if (IsBFloat(t) && t.is_scalar()) return "ushort";
    return TypeName(t);
  }

  std::string PrintIntImm(DataType t, int64_t value) override {
    if (t.bits() == 64) {
      // OpenCL C has no long long: 64-bit literals take the L suffix.
      if (value == std::numeric_limits<int64_t>::min()) {
        return "((long)(-9223372036854775807L - 1))";
      }
      return "((" + TypeName(t) + ")" + std::to_string(value) + (t.is_uint() ? "UL" : "L") + ")";
    }
    return CLikeEmitter::PrintIntImm(t, value);
  }

  std::string PrintFloatImm(DataType t, double value) override {
    if (IsBFloat(t)) {
      value = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
    } else if (t.bits() == 16) {
      value = HalfToFloat(FloatToHalf(static_cast<float>(value)));
    }
    if (t.bits() == 64) uses_double_ = true;
    return FloatLiteral(value, t.bits() == 64);
  }

  std::string FinishArith(DataType t, std::string expr) override {
    if (t.is_vector()) return expr;
    if (IsHalf(t)) {
      NeedHelper("kiln_round_f16", kHalfRound);
      return "kiln_round_f16(" + expr + ")";
    }
    if (IsBFloat(t)) {
      NeedHelper("kiln_bf16", kBFloatHelpers);
      return "kiln_round_bf16(" + expr + ")";
    }
    if ((t.is_int() || t.is_uint()) && t.bits() < 32) return "((" + TypeName(t) + ")" + expr + ")";
    return expr;
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    DataType t = op->dtype;
    DataType at = op->args[0].dtype();
    const std::string& name = op->op;
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": " + name + " on vectors");
      return "((char)(" + name + "(" + args[0] + ") != 0))";
    }
    if ((name == "abs" || name == "fabs") && at.is_integral()) {
      if (at.is_uint() || at.is_bool()) return args[0];
      // OpenCL's integer abs returns the unsigned type.
      return "((" + TypeName(t) + ")abs(" + args[0] + "))";
    }
    KILN_CHECK(at.is_float() && t.is_float(), ErrorKind::kType,
               "function " + function_name_ + ": " + name + " of " + at.ToString());
    std::string one = "((" + TypeName(t) + ")1)";
    std::string r;
    if (name == "sigmoid") {
      r = "(" + one + " / (" + one + " + exp(-(" + args[0] + "))))";
    } else {
      std::string fn = name == "abs" ? "fabs" : name == "nearbyint" ? "rint" : name;
      r = fn + "(";
      for (size_t i = 0; i < args.size(); ++i) r += (i ? ", " : "") + args[i];
      r += ")";
    }
    return FinishArith(t, r);
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    DataType from = value.dtype();
    std::string v = PrintExpr(value);
    if (to.is_vector()) return "convert_" + TypeName(to) + "(" + v + ")";
    if (to == from) return v;
    if (to.is_bool()) return "((char)((" + v + ") != 0))";
    if (IsHalf(to) || IsBFloat(to)) return FinishArith(to, "((float)" + v + ")");
    return "((" + TypeName(to) + ")" + v + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool() || t.is_vector()) return "(" + a + " / " + b + ")";
    std::string type = TypeName(t);
    std::string fn = "kiln_floordiv_" + type;
    NeedHelper(
        fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " + type +
                " q = a / b;\n  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool() || t.is_vector()) return "(" + a + " % " + b + ")";
    std::string type = TypeName(t);
    std::string fn = "kiln_floormod_" + type;
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " +
                       type +
                       " r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    if (t.is_vector()) {
      if (t.is_float()) return std::string(is_min ? "fmin(" : "fmax(") + a + ", " + b + ")";
      return std::string(is_min ? "min(" : "max(") + a + ", " + b + ")";
    }
    std::string type = TypeName(t);
    std::string fn = std::string(is_min ? "kiln_min_" : "kiln_max_") + t.ToString();
    const char* cmp = is_min ? "<" : ">";
    std::string choose = std::string("a ") + cmp + " b ? a : b";
    // Floats propagate NaN, as the interpreter does.
    if (t.is_float()) choose = "a != a ? a : b != b ? b : " + choose;
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type +
                       " b) { return " + choose + "; }\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintSelect(DataType t, const std::string& cond, const std::string& a,
                          const std::string& b) override {
    if (t.is_vector()) return "select(" + b + ", " + a + ", " + cond + ")";
    return CLikeEmitter::PrintSelect(t, cond, a, b);
  }

  std::string PrintRamp(const RampNode* op) override {
    DataType t = op->dtype;
    std::string lanes;
    for (int i = 0; i < t.lanes(); ++i) lanes += (i ? ", " : "") + std::to_string(i);
    return "((" + TypeName(t) + ")(" + PrintExpr(op->base) + ") + (" + TypeName(t) + ")(" +
           PrintExpr(op->stride) + ") * (" + TypeName(t) + ")(" + lanes + "))";
  }

  std::string PrintBroadcast(const BroadcastNode* op) override {
    return "((" + TypeName(op->dtype) + ")(" + PrintExpr(op->value) + "))";
  }

  std::string PrintLoad(const BufferLoadNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": load of " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    DataType elem = op->buffer->dtype;
    if (op->dtype.is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && elem.is_scalar() && !IsHalf(elem) && !IsBFloat(elem) &&
                     !elem.is_bool(),
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector load of " + op->buffer->name +
                     " that is not a contiguous or strided " + elem.ToString() + " access");
      std::string base = PrintExpr(ramp->base);
      int lanes = op->dtype.lanes();
      if (IsConstInt(ramp->stride, 1)) {
        return "vload" + std::to_string(lanes) + "(0, " + name + " + " + base + ")";
      }
      std::string stride = PrintExpr(ramp->stride);
      std::string v = "((" + TypeName(op->dtype) + ")(";
      for (int i = 0; i < lanes; ++i) {
        v += (i ? ", " : "") + name + "[" + base + " + " + std::to_string(i) + " * " + stride + "]";
      }
      return v + "))";
    }
    std::string index = PrintExpr(op->indices[0]);
    if (IsHalf(elem)) return "vload_half(" + index + ", " + name + ")";
    if (IsBFloat(elem)) {
      NeedHelper("kiln_bf16", kBFloatHelpers);
      return "kiln_bf16_to_f32(" + name + "[" + index + "])";
    }
    return name + "[" + index + "]";
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
      KILN_CHECK(ramp != nullptr && elem.is_scalar() && !IsHalf(elem) && !IsBFloat(elem) &&
                     !elem.is_bool(),
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector store to " + op->buffer->name +
                     " that is not a contiguous or strided " + elem.ToString() + " access");
      std::string base = PrintExpr(ramp->base);
      int lanes = op->value.dtype().lanes();
      if (IsConstInt(ramp->stride, 1)) {
        Line() << "vstore" << lanes << "(" << value << ", 0, " << name << " + " << base << ");\n";
        return;
      }
      std::string stride = PrintExpr(ramp->stride);
      std::string tmp = DeclareName("v");
      Line() << "{\n";
      Line() << "  const " << TypeName(op->value.dtype()) << " " << tmp << " = " << value << ";\n";
      for (int i = 0; i < lanes; ++i) {
        Line() << "  " << name << "[" << base << " + " << i << " * " << stride << "] = " << tmp
               << Lane(i) << ";\n";
      }
      Line() << "}\n";
      return;
    }
    std::string index = PrintExpr(op->indices[0]);
    if (IsHalf(elem)) {
      Line() << "vstore_half_rte(" << value << ", " << index << ", " << name << ");\n";
      return;
    }
    if (IsBFloat(elem)) {
      NeedHelper("kiln_bf16", kBFloatHelpers);
      value = "kiln_f32_to_bf16(" + value + ")";
    }
    Line() << name << "[" << index << "] = " << value << ";\n";
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    int64_t count = ConstantElements(buffer);
    std::string type = IsHalf(buffer->dtype) ? "ushort" : StorageTypeName(buffer->dtype);
    KILN_CHECK(!IsHalf(buffer->dtype), ErrorKind::kUnsupported,
               "function " + function_name_ + ": float16 buffer " + buffer->name + " in scope " +
                   buffer->scope + " (OpenCL keeps half only in global memory here)");
    std::string name = DeclareVar(buffer->data);
    Line() << type << " " << name << "[" << std::max<int64_t>(count, 1) << "];\n";
    EmitStmt(op->body);
  }

  void EmitRegisterDecl(DataType t, const std::string& name) override {
    Line() << TypeName(t) << " " << name << " = (" << TypeName(t) << ")(0);\n";
  }

  std::string PrintLane(const std::string& vector, int lane) override {
    return vector + Lane(lane);
  }

  std::string ThreadIndex(bool is_block, int axis) override {
    return std::string(is_block ? "((int)get_group_id(" : "((int)get_local_id(") +
           std::to_string(axis) + "))";
  }

  void EmitBarrier() override {
    Line() << "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n";
  }

  void EmitSharedDecl(const Buffer& buffer, const std::string& name) override {
    KILN_CHECK(!IsHalf(buffer->dtype), ErrorKind::kUnsupported,
               "function " + function_name_ + ": float16 shared buffer " + buffer->name);
    Line() << "__local " << StorageTypeName(buffer->dtype) << " " << name << "["
           << std::max<int64_t>(ConstantElements(buffer), 1) << "];\n";
  }

 private:
  struct ConcreteBlock {
    bool known = false;
    int64_t x = 1, y = 1, z = 1;
  };
  static ConcreteBlock ConstantBlock(const gpu::GpuKernel& kernel) {
    ConcreteBlock b;
    auto x = AsConstInt(kernel.launch.extents.block[0]);
    auto y = AsConstInt(kernel.launch.extents.block[1]);
    auto z = AsConstInt(kernel.launch.extents.block[2]);
    if (!x || !y || !z) return b;
    return {true, *x, *y, *z};
  }

  // Scalars travel in their own type; bool as char (OpenCL kernels take no bool).
  std::string ArgTypeName(DataType t) { return TypeName(t); }

  void NeedHelper(const std::string& name, const std::string& definition) {
    if (helper_names_.insert(name).second) helpers_.push_back(definition);
  }

  const OpenCLEmitOptions& options_;
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
  bool uses_double_ = false;
};

}  // namespace

LowerOptions OpenCLTarget::DefaultLowerOptions() const { return gpu::GpuLowerOptions(); }

EmittedSource EmitOpenCL(const PrimFunc& lowered, const std::string& symbol,
                         const OpenCLEmitOptions& options) {
  return OpenCLEmitter(options).Run(lowered, symbol);
}

}  // namespace kiln::codegen
