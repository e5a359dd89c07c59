// The MSL emitter: GpuEmitter's hooks spelled in the Metal Shading Language.
#include "codegen/metal/msl_emitter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "codegen/gpu/barriers.h"
#include "codegen/gpu/gpu_emitter.h"
#include "codegen/gpu/lower_gpu.h"
#include "codegen/passes/ir_utils.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// MSL's keywords, types and the metal_stdlib names generated code calls, which a generated
// name must not shadow (C's keywords are reserved by CLikeEmitter already).
constexpr char kMslReserved[] =
    "metal kernel vertex fragment device constant thread threadgroup threadgroup_imageblock "
    "ray_data object_data namespace using template typename class this operator new delete "
    "private public protected friend virtual explicit mutable static_cast reinterpret_cast "
    "const_cast dynamic_cast nullptr decltype constexpr noexcept alignas alignof char uchar "
    "short ushort uint ulong half bfloat size_t ptrdiff_t vec packed_float4 simd select "
    "as_type min max fmin fmax clamp abs fabs exp exp2 exp10 log log2 log10 sqrt rsqrt pow "
    "powr sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh floor ceil round "
    "rint trunc fmod copysign isnan isinf isfinite mem_flags threadgroup_barrier "
    "simdgroup_barrier KilnArgs INFINITY NAN MAXFLOAT";

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsHalf(DataType t) { return t.code() == DataType::Code::kFloat && t.bits() == 16; }

// A float32 literal; NaN and infinity as bit patterns (MSL's NAN and INFINITY macros are not
// guaranteed outside fast math's reach).
std::string Float32Literal(double v) {
  if (std::isnan(v)) return "as_type<float>(0x7fc00000u)";
  if (std::isinf(v)) return v > 0 ? "as_type<float>(0x7f800000u)" : "as_type<float>(0xff800000u)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "f";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

// erf to float precision: Taylor series near 0, Abramowitz and Stegun 7.1.26 beyond (as the
// GLSL target). metal_stdlib has no erf.
constexpr char kErf[] =
    "static inline float kiln_erf(float x) {\n"
    "  float a = fabs(x);\n"
    "  if (a < 0.5f) {\n"
    "    float x2 = x * x;\n"
    "    return x * (1.1283791671f + x2 * (-0.3761263890f + x2 * (0.1128379167f + x2 * "
    "(-0.0268661706f + x2 * (0.0052239776f + x2 * -0.0008548327f)))));\n"
    "  }\n"
    "  float t = 1.0f / (1.0f + 0.3275911f * a);\n"
    "  float y = 1.0f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * "
    "(-1.453152027f + t * 1.061405429f)))) * exp(-a * a);\n"
    "  return x < 0.0f ? -y : y;\n"
    "}\n";

// log(1 + x) without losing the digits of a small x; metal_stdlib has no log1p.
constexpr char kLog1p[] =
    "static inline float kiln_log1p(float x) {\n"
    "  float u = 1.0f + x;\n"
    "  return u == 1.0f ? x : log(u) * (x / (u - 1.0f));\n"
    "}\n";

// C's pow: a negative base with an integral exponent is defined.
constexpr char kPow[] =
    "static inline float kiln_pow(float a, float b) {\n"
    "  if (a >= 0.0f) return (a == 0.0f && b == 0.0f) ? 1.0f : pow(a, b);\n"
    "  if (b != trunc(b)) return as_type<float>(0x7fc00000u);\n"
    "  float r = pow(-a, b);\n"
    "  return fmod(b, 2.0f) != 0.0f ? -r : r;\n"
    "}\n";

class MslEmitter : public gpu::GpuEmitter {
 public:
  explicit MslEmitter(const MslEmitOptions& options) : options_(options) {
    std::istringstream names(kMslReserved);
    for (std::string n; names >> n;) ReserveName(n);
  }

  EmittedSource Run(const PrimFunc& f, const std::string& symbol) {
    function_name_ = f->name;
    where_ = "function " + f->name;
    KILN_CHECK(IsIdentifier(symbol), ErrorKind::kInvalidIR,
               "function " + f->name + ": kernel symbol '" + symbol + "' is not an identifier");
    // Threads and threadgroup memory per threadgroup are checked below, per kernel, so that
    // the refusal names the kernel and Metal's limit.
    gpu::GpuLimits relaxed = options_.limits;
    relaxed.max_threads_per_block = std::numeric_limits<int64_t>::max();
    relaxed.max_shared_bytes = std::numeric_limits<int64_t>::max();
    gpu::GpuProgram program = gpu::LowerToKernels(f, symbol, relaxed);
    for (const gpu::GpuKernel& kernel : program.kernels) CheckLimits(kernel);

    EmittedSource result;
    result.language = "msl";
    result.signature = SignatureOf(f, symbol);
    result.launch = program.plan;
    for (const gpu::GpuKernel& kernel : program.kernels) ReserveName(kernel.launch.symbol);

    // Arguments (codegen/metal/metal_abi.h): device buffers, then KilnArgs.
    std::vector<bool> is_buffer;
    for (const ArgSlot& slot : result.signature.slots) {
      is_buffer.push_back(slot.kind == SlotKind::kBufferData);
    }
    for (size_t w = 0; w < program.workspace.size(); ++w) is_buffer.push_back(true);
    metal::MetalArgLayout layout = metal::LayoutOf(is_buffer);
    std::string kernel_names;
    for (const gpu::GpuKernel& k : program.kernels) {
      kernel_names += (kernel_names.empty() ? "" : ", ") + k.launch.symbol;
    }
    // The device's table, never past Metal's own.
    const int64_t table =
        std::min<int64_t>(options_.limits.max_buffer_arguments, metal::kMaxBufferArguments);
    KILN_CHECK(layout.table_entries() <= table, ErrorKind::kUnsupported,
               "function " + f->name + ", kernel " + kernel_names + ": " +
                   std::to_string(layout.table_entries()) + " buffer arguments (" +
                   std::to_string(layout.num_buffers - program.workspace.size()) + " tensors, " +
                   std::to_string(program.workspace.size()) + " workspace" +
                   (layout.args_bytes > 0 ? ", KilnArgs" : "") + ") exceed Metal's limit of " +
                   std::to_string(table) + " entries in a kernel's buffer argument table");
    KILN_CHECK(layout.args_bytes <= metal::kMaxArgsBytes, ErrorKind::kUnsupported,
               "function " + f->name + ", kernel " + kernel_names + ": " +
                   std::to_string(layout.args_bytes) + " bytes of scalar arguments exceed the " +
                   std::to_string(metal::kMaxArgsBytes) + " bytes setBytes passes");

    // The arguments are every kernel's: a type they cannot have names them all.
    where_ = "function " + f->name + ", kernel " + kernel_names;
    std::vector<std::string> params;
    std::ostringstream args_struct, prologue;
    for (size_t i = 0; i < result.signature.slots.size(); ++i) {
      const ArgSlot& slot = result.signature.slots[i];
      const Var& param = f->params[slot.param_index];
      if (slot.kind == SlotKind::kBufferData) {
        const Buffer buffer = *f->BufferOf(param);
        params.push_back(DeviceParam(buffer, layout.buffer_index[i]));
        continue;
      }
      Var var = param;
      if (slot.kind == SlotKind::kShapeVar) {
        var = Var((*f->BufferOf(param))->shape[slot.dim].ptr());
        AssumeNonNegative(var);
      }
      DataType t = slot.dtype;
      KILN_CHECK(!(t.is_float() && t.bits() == 64), ErrorKind::kUnsupported,
                 "function " + f->name + ": scalar " + slot.name +
                     " is float64, which Metal has not (no double)");
      std::string type = TypeName(t);
      std::string name = DeclareVar(var);
      bool wide = metal::IsWideArgSlot(t);
      std::string member = "p" + std::to_string(i);
      std::string member_type = t.is_float()  ? "float"
                                : wide        ? (t.is_uint() ? "ulong" : "long")
                                : t.is_uint() ? "uint"
                                              : "int";
      args_struct << "  " << member_type << " " << member << ";  // offset "
                  << layout.args_offset[i] << ": " << slot.name << " (" << t.ToString() << ")\n";
      if (!wide) args_struct << "  uint kiln_pad" << i << ";\n";
      std::string value = "kiln_args." + member;
      if (t.is_bool()) {
        value = "(" + value + " != 0)";
      } else if (member_type != type) {
        value = "static_cast<" + type + ">(" + value + ")";
      }
      prologue << "  const " << type << " " << name << " = " << value << ";\n";
    }
    for (size_t w = 0; w < program.workspace.size(); ++w) {
      size_t arg = result.signature.slots.size() + w;
      params.push_back(DeviceParam(program.workspace[w], layout.buffer_index[arg]));
    }
    if (layout.args_bytes > 0) {
      params.push_back("constant KilnArgs& kiln_args [[buffer(" +
                       std::to_string(layout.args_index) + ")]]");
    }
    params.push_back("uint3 kiln_group [[threadgroup_position_in_grid]]");
    params.push_back("uint3 kiln_local [[thread_position_in_threadgroup]]");

    std::ostringstream kernels;
    for (const gpu::GpuKernel& kernel : program.kernels) {
      out_.str("");
      indent_ = 1;
      where_ = "function " + f->name + ", kernel " + kernel.launch.symbol;
      EmitKernelBody(kernel);
      kernels << "kernel void " << kernel.launch.symbol << "(";
      for (size_t i = 0; i < params.size(); ++i) kernels << (i ? ",\n    " : "") << params[i];
      kernels << ") {\n" << prologue.str() << out_.str() << "}\n\n";
    }

    std::ostringstream code;
    code << "// Metal kernels " << symbol << " generated by Kiln from function " << f->name
         << ".\n";
    code << "#include <metal_stdlib>\nusing namespace metal;\n\n";
    if (layout.args_bytes > 0) {
      code << "// The scalar arguments, " << layout.args_bytes << " bytes at [[buffer("
           << layout.args_index << ")]].\nstruct KilnArgs {\n"
           << args_struct.str() << "};\n\n";
    }
    for (const std::string& helper : helpers_) code << helper;
    if (!helpers_.empty()) code << "\n";
    code << kernels.str();
    result.code = code.str();
    return result;
  }

 protected:
  std::string TypeName(DataType t) override {
    std::string scalar;
    switch (t.code()) {
      case DataType::Code::kBool:
        scalar = "bool";
        break;
      case DataType::Code::kInt:
      case DataType::Code::kUInt: {
        bool u = t.is_uint();
        if (t.bits() == 64) {
          KILN_CHECK(options_.limits.int64, ErrorKind::kUnsupported,
                     where_ + ": " + t.ToString() +
                         " (a 64-bit index or value) on a Metal device without 64-bit "
                         "integers; the limit is 32-bit integers");
        }
        scalar = t.bits() == 8    ? (u ? "uchar" : "char")
                 : t.bits() == 16 ? (u ? "ushort" : "short")
                 : t.bits() == 32 ? (u ? "uint" : "int")
                 : t.bits() == 64 ? (u ? "ulong" : "long")
                                  : "";
        break;
      }
      case DataType::Code::kFloat:
        KILN_CHECK(t.bits() != 64, ErrorKind::kUnsupported,
                   where_ +
                       ": float64, which Metal has not (no double; the widest float is "
                       "32 bits)");
        if (t.bits() == 16) {
          KILN_CHECK(options_.limits.fp16, ErrorKind::kUnsupported,
                     where_ + ": float16 on a Metal device without half arithmetic");
          scalar = "half";
        } else if (t.bits() == 32) {
          scalar = "float";
        }
        break;
      case DataType::Code::kBFloat:
        throw Error(ErrorKind::kUnsupported,
                    where_ +
                        ": bfloat16, which the Metal target does not emit (MSL's bfloat "
                        "needs Metal 3.1 and Apple GPU family 9)");
      case DataType::Code::kHandle:
        if (t.is_void()) return "void";
        break;
    }
    KILN_CHECK(!scalar.empty(), ErrorKind::kUnsupported,
               where_ + ": no Metal type for " + t.ToString());
    if (t.is_scalar()) return scalar;
    KILN_CHECK(t.lanes() >= 2 && t.lanes() <= 4, ErrorKind::kUnsupported,
               where_ + ": no Metal vector type for " + t.ToString() + " (2 to 4 lanes)");
    return scalar + std::to_string(t.lanes());
  }

  // bool is stored as uchar in memory (device, threadgroup and thread arrays): a host bool is
  // one byte, and MSL leaves bool's memory representation to the implementation.
  std::string StorageTypeName(DataType t) override {
    if (t.is_bool()) return TypeName(DataType::UInt(8).WithLanes(t.lanes()));
    return TypeName(t);
  }

  std::string PrintIntImm(DataType t, int64_t value) override {
    if (t.is_bool()) return value ? "true" : "false";
    if (t.is_vector()) return TypeName(t) + "(" + PrintIntImm(t.element_of(), value) + ")";
    if (t.bits() == 64) {
      TypeName(t);  // refuses int64 on a device without it
      if (t.is_uint()) return std::to_string(static_cast<uint64_t>(value)) + "ul";
      if (value == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807l - 1l)";
      return value < 0 ? "(" + std::to_string(value) + "l)" : std::to_string(value) + "l";
    }
    if (t.bits() == 32) {
      if (t.is_uint()) return std::to_string(static_cast<uint32_t>(value)) + "u";
      if (value == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
      return value < 0 ? "(" + std::to_string(value) + ")" : std::to_string(value);
    }
    return TypeName(t) + "(" + std::to_string(value) + ")";
  }

  std::string PrintFloatImm(DataType t, double value) override {
    TypeName(t);  // refuses float64 and bfloat16
    if (IsHalf(t)) {
      float h = HalfToFloat(FloatToHalf(static_cast<float>(value)));
      return "static_cast<half>(" + Float32Literal(h) + ")";
    }
    return Float32Literal(static_cast<float>(value));
  }

  std::string FinishArith(DataType t, std::string expr) override {
    // Narrow integers wrap, as the interpreter's; MSL computes them in int, as C++.
    if (t.is_scalar() && (t.is_int() || t.is_uint()) && t.bits() < 32) {
      return "static_cast<" + TypeName(t) + ">(" + expr + ")";
    }
    return expr;
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    DataType t = op->dtype;
    DataType at = op->args[0].dtype();
    const std::string& name = op->op;
    KILN_CHECK(t.is_scalar() && at.is_scalar(), ErrorKind::kUnsupported,
               where_ + ": " + name + " on vectors");
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      KILN_CHECK(at.is_float(), ErrorKind::kUnsupported,
                 where_ + ": " + name + " of " + at.ToString());
      TypeName(at);
      std::string x = IsHalf(at) ? "static_cast<float>(" + args[0] + ")" : args[0];
      return name + "(" + x + ")";
    }
    if ((name == "abs" || name == "fabs") && at.is_integral()) {
      if (at.is_uint() || at.is_bool()) return args[0];
      std::string type = TypeName(at);
      std::string fn = "kiln_abs_" + type;
      NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " x) { return x < " + type +
                         "(0) ? static_cast<" + type + ">(-x) : x; }\n");
      return fn + "(" + args[0] + ")";
    }
    KILN_CHECK(at.is_float() && t.is_float(), ErrorKind::kType,
               where_ + ": " + name + " of " + at.ToString());
    TypeName(t);  // refuses float64 and bfloat16
    // float16 is computed in float and rounded once, as the interpreter does.
    std::vector<std::string> fargs;
    for (size_t i = 0; i < args.size(); ++i) {
      fargs.push_back(IsHalf(op->args[i].dtype()) ? "static_cast<float>(" + args[i] + ")"
                                                  : args[i]);
    }
    auto call = [&](const std::string& fn) {
      std::string s = fn + "(";
      for (size_t i = 0; i < fargs.size(); ++i) s += (i ? ", " : "") + fargs[i];
      return s + ")";
    };
    std::string r;
    if (name == "exp" || name == "exp2" || name == "exp10" || name == "log" || name == "log2" ||
        name == "log10" || name == "sqrt" || name == "rsqrt" || name == "sin" || name == "cos" ||
        name == "tan" || name == "asin" || name == "acos" || name == "atan" || name == "sinh" ||
        name == "cosh" || name == "tanh" || name == "asinh" || name == "acosh" || name == "atanh" ||
        name == "floor" || name == "ceil" || name == "trunc" || name == "round" || name == "fmod" ||
        name == "atan2" || name == "copysign") {
      // MSL's round, like C's, takes halves away from zero; its fmod is C's.
      r = call(name);
    } else if (name == "abs" || name == "fabs") {
      r = call("fabs");
    } else if (name == "nearbyint") {
      r = call("rint");
    } else if (name == "sigmoid") {
      r = "(1.0f / (1.0f + exp(-" + fargs[0] + ")))";
    } else if (name == "erf") {
      NeedHelper("kiln_erf", kErf);
      r = call("kiln_erf");
    } else if (name == "log1p") {
      NeedHelper("kiln_log1p", kLog1p);
      r = call("kiln_log1p");
    } else if (name == "pow") {
      NeedHelper("kiln_pow", kPow);
      r = call("kiln_pow");
    } else {
      throw Error(ErrorKind::kUnsupported, where_ + ": intrinsic " + name + " on Metal");
    }
    return IsHalf(t) ? "static_cast<half>(" + r + ")" : r;
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    DataType from = value.dtype();
    std::string v = PrintExpr(value);
    if (to == from) return v;
    if (to.is_vector()) {
      // Vector constructors convert between vector types of one length; bool lanes compare.
      if (to.is_bool()) return "(" + v + " != " + TypeName(from) + "(0))";
      return TypeName(to) + "(" + v + ")";
    }
    if (to.is_bool()) return "(" + v + " != 0)";
    return "static_cast<" + TypeName(to) + ">(" + v + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " / " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               where_ + ": floor division of " + t.ToString());
    std::string type = TypeName(t);
    std::string fn = "kiln_floordiv_" + type;
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " +
                       type + " q = static_cast<" + type +
                       ">(a / b);\n  return (q * b != a && ((a < 0) != (b < 0))) ? "
                       "static_cast<" +
                       type + ">(q - 1) : q;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " % " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               where_ + ": floor modulo of " + t.ToString());
    std::string type = TypeName(t);
    std::string fn = "kiln_floormod_" + type;
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type + " b) {\n  " +
                       type + " r = static_cast<" + type +
                       ">(a % b);\n  return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<" +
                       type + ">(r + b) : r;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    std::string type = TypeName(t);
    std::string fn = std::string(is_min ? "kiln_min_" : "kiln_max_") + type;
    const char* cmp = is_min ? "<" : ">";
    std::string body;
    if (t.is_vector()) {
      // Lane by lane; float lanes propagate NaN, as the interpreter does.
      body = std::string("select(b, a, a ") + cmp + " b)";
      if (t.is_float()) body = "select(select(" + body + ", b, isnan(b)), a, isnan(a))";
    } else {
      body = std::string("a ") + cmp + " b ? a : b";
      if (t.is_float()) body = "isnan(a) ? a : isnan(b) ? b : " + body;
    }
    NeedHelper(fn, "static inline " + type + " " + fn + "(" + type + " a, " + type +
                       " b) { return " + body + "; }\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintSelect(DataType t, const std::string& cond, const std::string& a,
                          const std::string& b) override {
    if (!t.is_vector()) return "(" + cond + " ? " + a + " : " + b + ")";
    // The condition may be one bool or a bool per lane: an overload for each.
    std::string type = TypeName(t);
    std::string mask = TypeName(DataType::Bool().WithLanes(t.lanes()));
    NeedHelper("kiln_select_" + type,
               "static inline " + type + " kiln_select(" + mask + " c, " + type + " a, " + type +
                   " b) { return select(b, a, c); }\n" + "static inline " + type +
                   " kiln_select(bool c, " + type + " a, " + type + " b) { return c ? a : b; }\n");
    return "kiln_select(" + cond + ", " + a + ", " + b + ")";
  }

  std::string PrintRamp(const RampNode* op) override {
    DataType t = op->dtype;
    std::string type = TypeName(t), lanes;
    for (int i = 0; i < t.lanes(); ++i) lanes += (i ? ", " : "") + std::to_string(i);
    return "(" + type + "(" + PrintExpr(op->base) + ") + " + type + "(" + PrintExpr(op->stride) +
           ") * " + type + "(" + lanes + "))";
  }

  std::string PrintBroadcast(const BroadcastNode* op) override {
    return TypeName(op->dtype) + "(" + PrintExpr(op->value) + ")";
  }

  std::string PrintLoad(const BufferLoadNode* op) override {
    KILN_CHECK(op->indices.size() == 1, ErrorKind::kInvalidIR,
               where_ + ": load of " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    bool stored_bool = op->buffer->dtype.is_bool();
    if (op->dtype.is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar() && !stored_bool,
                 ErrorKind::kUnsupported,
                 where_ + ": vector load of " + op->buffer->name +
                     " that is not a contiguous or strided access");
      std::string v = TypeName(op->dtype) + "(";
      for (int i = 0; i < op->dtype.lanes(); ++i) {
        v += (i ? ", " : "") + name + "[" + LaneIndex(ramp, i) + "]";
      }
      return v + ")";
    }
    std::string load = name + "[" + Index(op->indices[0]) + "]";
    if (stored_bool) return "(" + load + " != 0)";
    return load;
  }

  void EmitStore(const BufferStoreNode* op) override {
    KILN_CHECK(op->indices.size() == 1, ErrorKind::kInvalidIR,
               where_ + ": store to " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    std::string value = PrintExpr(op->value);
    bool stored_bool = op->buffer->dtype.is_bool();
    if (op->value.dtype().is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar() && !stored_bool,
                 ErrorKind::kUnsupported,
                 where_ + ": vector store to " + op->buffer->name +
                     " that is not a contiguous or strided access");
      std::string tmp = DeclareName("v");
      Line() << "{\n";
      Line() << "  const " << TypeName(op->value.dtype()) << " " << tmp << " = " << value << ";\n";
      for (int i = 0; i < op->value.dtype().lanes(); ++i) {
        Line() << "  " << name << "[" << LaneIndex(ramp, i) << "] = " << tmp << "[" << i << "];\n";
      }
      Line() << "}\n";
      return;
    }
    if (stored_bool) value = "(" + value + " ? uchar(1) : uchar(0))";
    Line() << name << "[" << Index(op->indices[0]) << "] = " << value << ";\n";
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    KILN_CHECK(
        buffer->scope.rfind("shared", 0) != 0, ErrorKind::kInternal,
        where_ + ": shared buffer " + buffer->name + " was not hoisted to the kernel's scope");
    int64_t count = ConstantElements(buffer);
    std::string type = StorageTypeName(buffer->dtype);
    std::string name = DeclareVar(buffer->data);
    Line() << type << " " << name << "[" << std::max<int64_t>(count, 1) << "];\n";
    EmitStmt(op->body);
  }

  void EmitRegisterDecl(DataType t, const std::string& name) override {
    Line() << TypeName(t) << " " << name << " = " << PrintZero(t) << ";\n";
  }

  void EmitLoopPrefix(const ForNode* op) override {
    if (op->for_kind == ForKind::kUnrolled) Line() << "#pragma unroll\n";
  }

  std::string ThreadIndex(bool is_block, int axis) override {
    const char* lane[] = {"x", "y", "z"};
    return std::string(is_block ? "static_cast<int>(kiln_group." : "static_cast<int>(kiln_local.") +
           lane[axis] + ")";
  }

  void EmitBarrier() override {
    Line() << "threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);\n";
  }

  void EmitSharedDecl(const Buffer& buffer, const std::string& name) override {
    Line() << "threadgroup " << StorageTypeName(buffer->dtype) << " " << name << "["
           << std::max<int64_t>(ConstantElements(buffer), 1) << "];\n";
  }

 private:
  void CheckLimits(const gpu::GpuKernel& kernel) {
    const std::string where = "function " + function_name_ + ", kernel " + kernel.launch.symbol;
    int64_t threads = 1;
    std::string extents;
    for (int axis = 0; axis < 3; ++axis) {
      auto extent = AsConstInt(kernel.launch.extents.block[axis]);
      if (!extent) return CheckShared(kernel, where);  // a symbolic block: checked at launch
      threads *= *extent;
      extents += (axis ? " x " : "") + std::to_string(*extent);
    }
    KILN_CHECK(threads <= options_.limits.max_threads_per_block, ErrorKind::kUnsupported,
               where + ": " + std::to_string(threads) + " threads per threadgroup (" + extents +
                   ") exceed Metal's limit of " +
                   std::to_string(options_.limits.max_threads_per_block) +
                   " threads per threadgroup");
    CheckShared(kernel, where);
  }

  void CheckShared(const gpu::GpuKernel& kernel, const std::string& where) {
    std::string list;
    for (const Buffer& b : kernel.shared) {
      list += (list.empty() ? "" : ", ") + b->name + " " + b->dtype.ToString() + "[" +
              std::to_string(ConstantElementsOf(b)) + "]";
    }
    KILN_CHECK(kernel.launch.shared_bytes <= options_.limits.max_shared_bytes,
               ErrorKind::kUnsupported,
               where + ": " + std::to_string(kernel.launch.shared_bytes) +
                   " bytes of threadgroup memory (" + list + ") exceed Metal's limit of " +
                   std::to_string(options_.limits.max_shared_bytes) +
                   " bytes of threadgroup memory per threadgroup");
  }

  static int64_t ConstantElementsOf(const Buffer& b) {
    int64_t n = 1;
    for (const Expr& e : b->shape) n *= AsConstInt(e).value_or(0);
    return n;
  }

  std::string DeviceParam(const Buffer& buffer, int index) {
    std::string name = DeclareVar(buffer->data);
    return "device " + StorageTypeName(buffer->dtype) + "* " + name + " [[buffer(" +
           std::to_string(index) + ")]]";
  }

  std::string PrintZero(DataType t) {
    if (t.is_bool()) return t.is_vector() ? TypeName(t) + "(false)" : "false";
    return TypeName(t) + "(0)";
  }

  // A 64-bit index whose every part provably fits 32 bits is computed in 32-bit arithmetic:
  // Apple GPUs compute 64-bit integers in several instructions (TVM narrows GPU indices too).
  std::string Index(const Expr& index) {
    DataType t = index.dtype();
    if (t.bits() == 32) return PrintExpr(index);
    if (std::optional<Expr> narrow = NarrowTo32(index)) return PrintExpr(*narrow);
    return PrintExpr(index);
  }

  std::string LaneIndex(const RampNode* ramp, int lane) {
    Expr e =
        lane == 0 ? ramp->base : ramp->base + ramp->stride * MakeConst(ramp->base.dtype(), lane);
    return Index(e);
  }

  void NeedHelper(const std::string& name, const std::string& definition) {
    if (helper_names_.insert(name).second) helpers_.push_back(definition);
  }

  const MslEmitOptions& options_;
  std::string where_;  // "function F, kernel K" for messages
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
};

}  // namespace

LowerOptions MetalTarget::DefaultLowerOptions() const { return gpu::GpuLowerOptions(); }

EmittedSource EmitMsl(const PrimFunc& lowered, const std::string& symbol,
                      const MslEmitOptions& options) {
  return MslEmitter(options).Run(lowered, symbol);
}

}  // namespace kiln::codegen
