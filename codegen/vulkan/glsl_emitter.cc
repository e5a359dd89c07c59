// The GLSL emitter: GpuEmitter's hooks spelled in GLSL 4.50 for Vulkan compute shaders.
#include "codegen/vulkan/glsl_emitter.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <unordered_set>

#include "codegen/gpu/barriers.h"
#include "codegen/gpu/gpu_emitter.h"
#include "codegen/passes/ir_utils.h"
#include "codegen/vulkan/vulkan_abi.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// GLSL keywords and built-in functions a generated name must not shadow (C's keywords are
// reserved by CLikeEmitter already).
constexpr const char* kGlslReserved[] = {
    "input",       "output",   "buffer",    "shared",    "filter",   "sample",    "texture",
    "active",      "common",   "partition", "in",        "out",      "inout",     "uniform",
    "layout",      "precise",  "coherent",  "volatile",  "restrict", "readonly",  "writeonly",
    "resource",    "smooth",   "flat",      "patch",     "centroid", "invariant", "discard",
    "attribute",   "varying",  "packed",    "noinline",  "public",   "external",  "interface",
    "half",        "fixed",    "superp",    "namespace", "using",    "cast",      "class",
    "template",    "this",     "asm",       "lowp",      "mediump",  "highp",     "precision",
    "subroutine",  "main",     "exp",       "exp2",      "log",      "log2",      "sqrt",
    "inversesqrt", "abs",      "min",       "max",       "mod",      "pow",       "sin",
    "cos",         "tan",      "asin",      "acos",      "atan",     "sinh",      "cosh",
    "tanh",        "asinh",    "acosh",     "atanh",     "floor",    "ceil",      "round",
    "roundEven",   "trunc",    "sign",      "clamp",     "mix",      "step",      "dot",
    "length",      "distance", "normalize", "fract",     "any",      "all",       "not",
    "equal",       "isnan",    "isinf",     "barrier",   "float",    "int",       "uint",
    "bool",        "double",   "vec2",      "vec3",      "vec4",     "ivec2",     "ivec3",
    "ivec4",       "uvec2",    "uvec3",     "uvec4",     "bvec2",    "bvec3",     "bvec4",
    "dvec2",       "dvec3",    "dvec4",     "mat2",      "mat3",     "mat4",      "true",
    "false",       "int8_t",   "int16_t",   "int64_t",   "uint8_t",  "uint16_t",  "uint64_t",
    "float16_t",   "float64_t"};

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A float32 literal: GLSL has none for NaN and infinity, so those are bit patterns.
std::string Float32Literal(double v) {
  if (std::isnan(v)) return "uintBitsToFloat(0x7fc00000u)";
  if (std::isinf(v)) return v > 0 ? "uintBitsToFloat(0x7f800000u)" : "uintBitsToFloat(0xff800000u)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

std::string Float64Literal(double v) {
  if (std::isnan(v) || std::isinf(v)) return "double(" + Float32Literal(v) + ")";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "lf";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

// erf to float precision: Taylor series near 0 (relative error below 1e-6), Abramowitz and
// Stegun 7.1.26 beyond (absolute error below 1.5e-7 where |erf| > 0.5). GLSL has no erf.
constexpr char kErf[] =
    "float kiln_erf(float x) {\n"
    "  float a = abs(x);\n"
    "  if (a < 0.5) {\n"
    "    float x2 = x * x;\n"
    "    return x * (1.1283791671 + x2 * (-0.3761263890 + x2 * (0.1128379167 + x2 * "
    "(-0.0268661706 + x2 * (0.0052239776 + x2 * -0.0008548327)))));\n"
    "  }\n"
    "  float t = 1.0 / (1.0 + 0.3275911 * a);\n"
    "  float y = 1.0 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * "
    "(-1.453152027 + t * 1.061405429)))) * exp(-a * a);\n"
    "  return x < 0.0 ? -y : y;\n"
    "}\n";

// C's round: halves away from zero (GLSL's round may pick either way).
constexpr char kRound[] =
    "float kiln_round(float x) {\n"
    "  float t = trunc(x);\n"
    "  return abs(x - t) >= 0.5 ? t + sign(x) : t;\n"
    "}\n";

// log(1 + x) without losing the digits of a small x.
constexpr char kLog1p[] =
    "float kiln_log1p(float x) {\n"
    "  float u = 1.0 + x;\n"
    "  return u == 1.0 ? x : log(u) * (x / (u - 1.0));\n"
    "}\n";

// C's pow: a negative base with an integral exponent is defined (GLSL's pow is not).
constexpr char kPow[] =
    "float kiln_pow(float a, float b) {\n"
    "  if (a >= 0.0) return (a == 0.0 && b == 0.0) ? 1.0 : pow(a, b);\n"
    "  if (b != trunc(b)) return uintBitsToFloat(0x7fc00000u);\n"
    "  float r = pow(-a, b);\n"
    "  return mod(b, 2.0) == 1.0 ? -r : r;\n"
    "}\n";

// C's fmod: the remainder of truncated division (GLSL's mod floors).
constexpr char kFmod[] = "float kiln_fmod(float a, float b) { return a - b * trunc(a / b); }\n";

// tanh that stays finite for large |x| (exp overflows in some implementations' formula).
constexpr char kTanh[] = "float kiln_tanh(float x) { return tanh(clamp(x, -15.0, 15.0)); }\n";

constexpr char kCopysign[] =
    "float kiln_copysign(float a, float b) {\n"
    "  return uintBitsToFloat((floatBitsToUint(a) & 0x7fffffffu) | (floatBitsToUint(b) & "
    "0x80000000u));\n"
    "}\n";

class GlslEmitter : public gpu::GpuEmitter {
 public:
  explicit GlslEmitter(const GlslEmitOptions& options) : options_(options) {
    for (const char* n : kGlslReserved) ReserveName(n);
  }

  EmittedSource Run(const PrimFunc& f, const std::string& symbol) {
    function_name_ = f->name;
    KILN_CHECK(IsIdentifier(symbol), ErrorKind::kInvalidIR,
               "function " + f->name + ": kernel symbol '" + symbol + "' is not an identifier");
    gpu::GpuProgram program = gpu::LowerToKernels(f, symbol, options_.limits);
    EmittedSource result;
    result.language = "glsl";
    result.signature = SignatureOf(f, symbol);
    result.launch = program.plan;
    bool noalias = false;
    if (auto it = f->attrs.find("tir.noalias"); it != f->attrs.end()) {
      noalias = !IsConstInt(it->second, 0);
    }
    for (const gpu::GpuKernel& kernel : program.kernels) ReserveName(kernel.launch.symbol);

    // Arguments: storage buffers and push constants (codegen/vulkan/vulkan_abi.h).
    std::vector<bool> is_buffer;
    for (const ArgSlot& slot : result.signature.slots) {
      is_buffer.push_back(slot.kind == SlotKind::kBufferData);
    }
    for (size_t w = 0; w < program.workspace.size(); ++w) is_buffer.push_back(true);
    vulkan::VulkanArgLayout layout = vulkan::LayoutOf(is_buffer);
    KILN_CHECK(layout.push_bytes <= vulkan::kMaxPushConstantBytes, ErrorKind::kUnsupported,
               "function " + f->name + ": " + std::to_string(layout.push_bytes / 8) +
                   " scalar arguments and shape variables need " +
                   std::to_string(layout.push_bytes) + " bytes of push constants; Vulkan " +
                   "guarantees " + std::to_string(vulkan::kMaxPushConstantBytes));
    std::ostringstream decls, push, prologue;
    auto declare_buffer = [&](const Buffer& buffer, int binding) {
      std::string name = DeclareVar(buffer->data);
      storage_buffers_.insert(buffer->data.get());
      decls << "layout(std430, set = 0, binding = " << binding << ") "
            << (noalias ? "restrict " : "") << "buffer KilnBuffer" << binding << " { "
            << StorageTypeName(buffer->dtype) << " " << name << "[]; };\n";
    };
    for (size_t i = 0; i < result.signature.slots.size(); ++i) {
      const ArgSlot& slot = result.signature.slots[i];
      const Var& param = f->params[slot.param_index];
      if (slot.kind == SlotKind::kBufferData) {
        declare_buffer(*f->BufferOf(param), layout.binding[i]);
        continue;
      }
      Var var = param;
      if (slot.kind == SlotKind::kShapeVar) {
        var = Var((*f->BufferOf(param))->shape[slot.dim].ptr());
        AssumeNonNegative(var);
      }
      std::string name = DeclareVar(var);
      DataType t = slot.dtype;
      bool wide = vulkan::IsWidePushSlot(t);
      std::string member = "p" + std::to_string(i);
      std::string member_type = t.is_float()  ? (wide ? TypeName(t) : "float")
                                : wide        ? TypeName(t)
                                : t.is_uint() ? "uint"
                                              : "int";
      push << "  layout(offset = " << layout.push_offset[i] << ") " << member_type << " " << member
           << ";\n";
      std::string value = "kiln_args." + member;
      if (t.is_bool()) {
        value = "(" + value + " != 0)";
      } else if (member_type != TypeName(t)) {
        value = TypeName(t) + "(" + value + ")";
      }
      prologue << "  const " << TypeName(t) << " " << name << " = " << value << ";\n";
    }
    for (size_t w = 0; w < program.workspace.size(); ++w) {
      declare_buffer(program.workspace[w], layout.binding[result.signature.slots.size() + w]);
    }

    std::ostringstream kernels;
    for (const gpu::GpuKernel& kernel : program.kernels) {
      out_.str("");
      shared_.str("");
      indent_ = 1;
      EmitKernelBody(kernel);
      kernels << "#if defined(" << vulkan::EntryMacro(kernel.launch.symbol) << ")\n"
              << shared_.str() << "void main() {\n"
              << prologue.str() << out_.str() << "}\n#endif\n\n";
    }

    std::ostringstream code;
    code << "#version 450\n";
    code << "// Kernels " << symbol << " generated by Kiln from function " << f->name << ".\n";
    if (uses_explicit_types_) {
      code << "#extension GL_EXT_shader_explicit_arithmetic_types : require\n";
    }
    if (uses_storage16_) code << "#extension GL_EXT_shader_16bit_storage : require\n";
    if (uses_storage8_) code << "#extension GL_EXT_shader_8bit_storage : require\n";
    code << "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n\n";
    code << decls.str();
    if (!push.str().empty()) {
      code << "layout(push_constant) uniform KilnArgs {\n" << push.str() << "} kiln_args;\n";
    }
    code << "\n";
    for (const std::string& helper : helpers_) code << helper;
    if (!helpers_.empty()) code << "\n";
    code << kernels.str();
    result.code = code.str();
    return result;
  }

 protected:
  std::string TypeName(DataType t) override {
    std::string scalar, prefix;
    switch (t.code()) {
      case DataType::Code::kBool:
        scalar = "bool";
        prefix = "b";
        break;
      case DataType::Code::kInt:
        if (t.bits() == 32) {
          scalar = "int";
          prefix = "i";
        } else if (t.bits() == 8 || t.bits() == 16 || t.bits() == 64) {
          NeedInteger(t);
          scalar = "int" + std::to_string(t.bits()) + "_t";
          prefix = "i" + std::to_string(t.bits());
        }
        break;
      case DataType::Code::kUInt:
        if (t.bits() == 32) {
          scalar = "uint";
          prefix = "u";
        } else if (t.bits() == 8 || t.bits() == 16 || t.bits() == 64) {
          NeedInteger(t);
          scalar = "uint" + std::to_string(t.bits()) + "_t";
          prefix = "u" + std::to_string(t.bits());
        }
        break;
      case DataType::Code::kFloat:
        if (t.bits() == 32) {
          scalar = "float";
          prefix = "";
        } else if (t.bits() == 64) {
          KILN_CHECK(options_.limits.fp64, ErrorKind::kUnsupported,
                     "function " + function_name_ + ": float64 on a device without shaderFloat64");
          scalar = "double";
          prefix = "d";
        } else if (t.bits() == 16) {
          KILN_CHECK(options_.limits.fp16, ErrorKind::kUnsupported,
                     "function " + function_name_ +
                         ": float16 on a device without shaderFloat16 and 16-bit storage");
          uses_explicit_types_ = true;
          scalar = "float16_t";
          prefix = "f16";
        }
        break;
      case DataType::Code::kBFloat:
        break;
      case DataType::Code::kHandle:
        if (t.is_void()) return "void";
        break;
    }
    KILN_CHECK(!scalar.empty(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": no GLSL type for " + t.ToString());
    if (t.is_scalar()) return scalar;
    KILN_CHECK(t.lanes() >= 2 && t.lanes() <= 4, ErrorKind::kUnsupported,
               "function " + function_name_ + ": no GLSL vector type for " + t.ToString() +
                   " (2 to 4 lanes)");
    return prefix + "vec" + std::to_string(t.lanes());
  }

  // Elements of storage buffers: bool as uint8_t (a host bool is one byte).
  std::string StorageTypeName(DataType t) override {
    if (t.is_bool()) {
      uses_storage8_ = true;
      return TypeName(DataType::UInt(8));
    }
    if (t.bits() == 8) uses_storage8_ = true;
    if (t.bits() == 16) uses_storage16_ = true;
    return TypeName(t);
  }

  std::string PrintIntImm(DataType t, int64_t value) override {
    if (t.is_bool()) return value ? "true" : "false";
    if (t.bits() == 64) {
      NeedInteger(t);
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
    KILN_CHECK(t.code() != DataType::Code::kBFloat, ErrorKind::kUnsupported,
               "function " + function_name_ + ": bfloat16 on Vulkan");
    if (t.bits() == 64) {
      TypeName(t);  // refuses float64 on a device without it
      return Float64Literal(value);
    }
    if (t.bits() == 16) {
      float h = HalfToFloat(FloatToHalf(static_cast<float>(value)));
      return TypeName(t) + "(" + Float32Literal(h) + ")";
    }
    return Float32Literal(static_cast<float>(value));
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    std::string v = PrintExpr(value);
    if (to == value.dtype()) return v;
    return TypeName(to) + "(" + v + ")";
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    DataType t = op->dtype;
    DataType at = op->args[0].dtype();
    const std::string& name = op->op;
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      KILN_CHECK(t.is_scalar() && at.is_float(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": " + name + " of " + at.ToString());
      if (name == "isfinite") return "(!isnan(" + args[0] + ") && !isinf(" + args[0] + "))";
      return name + "(" + args[0] + ")";
    }
    if ((name == "abs" || name == "fabs") && at.is_integral()) {
      if (at.is_uint() || at.is_bool()) return args[0];
      return "abs(" + args[0] + ")";
    }
    KILN_CHECK(at.is_float() && t.is_float(), ErrorKind::kType,
               "function " + function_name_ + ": " + name + " of " + at.ToString());
    if (name == "abs" || name == "fabs") return "abs(" + args[0] + ")";
    if (name == "floor" || name == "ceil" || name == "trunc" || name == "sqrt") {
      return name + "(" + args[0] + ")";
    }
    if (name == "nearbyint") return "roundEven(" + args[0] + ")";
    if (name == "rsqrt") return "inversesqrt(" + args[0] + ")";
    // The rest have float32 definitions only (GLSL has no double exp, and the float16
    // overloads vary): computed in float and converted back.
    KILN_CHECK(t.element_of().bits() != 64, ErrorKind::kUnsupported,
               "function " + function_name_ + ": " + name + " of float64 (GLSL has it for float)");
    DataType ftype = DataType::Float(32).WithLanes(t.lanes());
    std::string ft = TypeName(ftype);
    std::vector<std::string> fargs;
    for (size_t i = 0; i < args.size(); ++i) {
      fargs.push_back(op->args[i].dtype() == ftype ? args[i] : ft + "(" + args[i] + ")");
    }
    std::string r;
    auto call = [&](const std::string& fn) {
      std::string s = fn + "(";
      for (size_t i = 0; i < fargs.size(); ++i) s += (i ? ", " : "") + fargs[i];
      return s + ")";
    };
    auto helper = [&](const std::string& fn, const char* definition) {
      KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": " + name + " on vectors");
      NeedHelper(fn, definition);
      return call(fn);
    };
    if (name == "exp" || name == "exp2" || name == "log" || name == "log2" || name == "sin" ||
        name == "cos" || name == "tan" || name == "asin" || name == "acos" || name == "atan" ||
        name == "sinh" || name == "cosh" || name == "asinh" || name == "acosh" || name == "atanh") {
      r = call(name);
    } else if (name == "exp10") {
      r = "exp2(" + fargs[0] + " * 3.32192809488736235)";
    } else if (name == "log10") {
      r = "(log2(" + fargs[0] + ") * 0.301029995663981195)";
    } else if (name == "log1p") {
      r = helper("kiln_log1p", kLog1p);
    } else if (name == "tanh") {
      r = helper("kiln_tanh", kTanh);
    } else if (name == "sigmoid") {
      r = "(1.0 / (1.0 + exp(-" + fargs[0] + ")))";
    } else if (name == "erf") {
      r = helper("kiln_erf", kErf);
    } else if (name == "round") {
      r = helper("kiln_round", kRound);
    } else if (name == "pow") {
      r = helper("kiln_pow", kPow);
    } else if (name == "fmod") {
      r = helper("kiln_fmod", kFmod);
    } else if (name == "atan2") {
      r = call("atan");
    } else if (name == "copysign") {
      r = helper("kiln_copysign", kCopysign);
    } else {
      throw Error(ErrorKind::kUnsupported,
                  "function " + function_name_ + ": intrinsic " + name + " on Vulkan");
    }
    return t == ftype ? r : TypeName(t) + "(" + r + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " / " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": floor division of " + t.ToString());
    std::string type = TypeName(t);
    std::string fn = "kiln_floordiv_" + type;
    std::string zero = PrintIntImm(t, 0), one = PrintIntImm(t, 1);
    NeedHelper(fn, type + " " + fn + "(" + type + " a, " + type + " b) {\n  " + type +
                       " q = a / b;\n  return (q * b != a && ((a < " + zero + ") != (b < " + zero +
                       "))) ? q - " + one + " : q;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " % " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": floor modulo of " + t.ToString());
    std::string type = TypeName(t);
    std::string fn = "kiln_floormod_" + type;
    std::string zero = PrintIntImm(t, 0);
    // Through truncated division: GLSL leaves % of negative operands undefined.
    NeedHelper(fn, type + " " + fn + "(" + type + " a, " + type + " b) {\n  " + type +
                       " r = a - (a / b) * b;\n  return (r != " + zero + " && ((r < " + zero +
                       ") != (b < " + zero + "))) ? r + b : r;\n}\n");
    return fn + "(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    const char* fn = is_min ? "min" : "max";
    if (t.is_vector() || ((t.is_int() || t.is_uint()) && t.bits() >= 32)) {
      return std::string(fn) + "(" + a + ", " + b + ")";
    }
    std::string type = TypeName(t);
    std::string helper = std::string("kiln_") + fn + "_" + t.ToString();
    const char* cmp = is_min ? "<" : ">";
    std::string choose = std::string("a ") + cmp + " b ? a : b";
    // Floats propagate NaN, as the interpreter does.
    if (t.is_float()) choose = "isnan(a) ? a : isnan(b) ? b : " + choose;
    NeedHelper(helper, type + " " + helper + "(" + type + " a, " + type + " b) { return " + choose +
                           "; }\n");
    return helper + "(" + a + ", " + b + ")";
  }

  std::string PrintSelect(DataType t, const std::string& cond, const std::string& a,
                          const std::string& b) override {
    if (t.is_vector()) return "mix(" + b + ", " + a + ", " + cond + ")";
    return "(" + cond + " ? " + a + " : " + b + ")";
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
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": load of " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    bool stored_bool = op->buffer->dtype.is_bool() && IsStorage(op->buffer);
    if (op->dtype.is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar() && !stored_bool,
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector load of " + op->buffer->name +
                     " that is not a contiguous or strided access");
      std::string v = TypeName(op->dtype) + "(";
      for (int i = 0; i < op->dtype.lanes(); ++i) {
        v += (i ? ", " : "") + name + "[" + LaneIndex(ramp, i) + "]";
      }
      return v + ")";
    }
    std::string load = name + "[" + Index(op->indices[0]) + "]";
    if (stored_bool) return "(" + load + " != uint8_t(0))";
    return load;
  }

  void EmitStore(const BufferStoreNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": store to " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    std::string value = PrintExpr(op->value);
    bool stored_bool = op->buffer->dtype.is_bool() && IsStorage(op->buffer);
    if (op->value.dtype().is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar() && !stored_bool,
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector store to " + op->buffer->name +
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
    if (stored_bool) value = "(" + value + " ? uint8_t(1) : uint8_t(0))";
    Line() << name << "[" << Index(op->indices[0]) << "] = " << value << ";\n";
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    int64_t count = ConstantElements(buffer);
    std::string type = TypeName(buffer->dtype);
    std::string name = DeclareVar(buffer->data);
    Line() << type << " " << name << "[" << std::max<int64_t>(count, 1) << "];\n";
    EmitStmt(op->body);
  }

  void EmitRegisterDecl(DataType t, const std::string& name) override {
    Line() << TypeName(t) << " " << name << " = " << TypeName(t) << "(0);\n";
  }

  void EmitEvaluate(const EvaluateNode* op) override {
    if (gpu::IsBarrier(Evaluate(op->value))) return EmitBarrier();
    if (op->value.as<IntImmNode>() != nullptr) return;
    Line() << PrintExpr(op->value) << ";\n";
  }

  // GpuEmitter's thread binding, spelled in GLSL (no C casts, no `(void)`).
  std::string ConvertThreadIndex(DataType t, const std::string& index) override {
    return t == DataType::Int(32) ? index : TypeName(t) + "(" + index + ")";
  }
  void MarkUsed(const std::string& name) override { (void)name; }

  std::string ThreadIndex(bool is_block, int axis) override {
    const char* lane[] = {"x", "y", "z"};
    return std::string(is_block ? "int(gl_WorkGroupID." : "int(gl_LocalInvocationID.") +
           lane[axis] + ")";
  }

  void EmitBarrier() override {
    Line() << "memoryBarrierShared();\n";
    Line() << "memoryBarrierBuffer();\n";
    Line() << "barrier();\n";
  }

  // Shared variables live at global scope in GLSL: declared before the kernel's main.
  void EmitSharedDecl(const Buffer& buffer, const std::string& name) override {
    shared_ << "shared " << TypeName(buffer->dtype) << " " << name << "["
            << std::max<int64_t>(ConstantElements(buffer), 1) << "];\n";
  }

 private:
  void NeedInteger(DataType t) {
    (void)t;
    uses_explicit_types_ = true;
    KILN_CHECK(
        t.bits() != 64 || options_.limits.int64, ErrorKind::kUnsupported,
        "function " + function_name_ + ": " + t.ToString() + " on a device without shaderInt64");
  }

  bool IsStorage(const Buffer& buffer) const {
    return storage_buffers_.count(buffer->data.get()) > 0;
  }

  // GLSL indexes arrays with 32-bit integers only. A 64-bit index whose every part provably
  // fits 32 bits is computed in 32-bit arithmetic: lavapipe (Mesa 22.3) computed the int64
  // index arithmetic of a shared-memory matmul tile wrongly where the same shader in 32-bit
  // was right, and GPUs do 64-bit integer arithmetic slowly (TVM narrows GPU indices too).
  std::string Index(const Expr& index) {
    DataType t = index.dtype();
    if (t.bits() == 32) return PrintExpr(index);
    if (std::optional<Expr> narrow = NarrowTo32(index)) return PrintExpr(*narrow);
    return "int(" + PrintExpr(index) + ")";
  }

  // lavapipe (Mesa 22.3) also takes a branch on a 64-bit integer comparison wrongly (the
  // guard of a shared-memory copy inside a loop let the wrong threads through, found by the
  // search on a fused dense + GELU); a comparison whose operands fit 32 bits is made in 32.
  std::string PrintCompare(const char* op, const Expr& e, const Expr& a, const Expr& b) override {
    if (a.dtype().is_int() && a.dtype().bits() == 64 && a.dtype().is_scalar()) {
      std::optional<Expr> narrow_a = NarrowTo32(a), narrow_b = NarrowTo32(b);
      if (narrow_a && narrow_b) {
        return "(" + PrintExpr(*narrow_a) + " " + op + " " + PrintExpr(*narrow_b) + ")";
      }
    }
    return GpuEmitter::PrintCompare(op, e, a, b);
  }

  std::string LaneIndex(const RampNode* ramp, int lane) {
    Expr e =
        lane == 0 ? ramp->base : ramp->base + ramp->stride * MakeConst(ramp->base.dtype(), lane);
    return Index(e);
  }

  void NeedHelper(const std::string& name, const std::string& definition) {
    if (helper_names_.insert(name).second) helpers_.push_back(definition);
  }

  const GlslEmitOptions& options_;
  std::ostringstream shared_;
  std::unordered_set<const VarNode*> storage_buffers_;
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
  bool uses_explicit_types_ = false;
  bool uses_storage16_ = false;
  bool uses_storage8_ = false;
};

}  // namespace

LowerOptions VulkanTarget::DefaultLowerOptions() const { return gpu::GpuLowerOptions(); }

EmittedSource EmitGlsl(const PrimFunc& lowered, const std::string& symbol,
                       const GlslEmitOptions& options) {
  return GlslEmitter(options).Run(lowered, symbol);
}

}  // namespace kiln::codegen
