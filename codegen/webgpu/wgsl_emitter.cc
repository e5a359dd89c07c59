// The WGSL emitter: GpuEmitter's hooks spelled in WGSL for WebGPU compute shaders.
#include "codegen/webgpu/wgsl_emitter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <unordered_set>

#include "codegen/gpu/barriers.h"
#include "codegen/gpu/gpu_emitter.h"
#include "codegen/passes/ir_utils.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// WGSL's keywords, reserved words and the built-in functions and types a generated name must
// not take (C's keywords are reserved by CLikeEmitter already).
// clang-format off
constexpr const char* kWgslReserved[] = {
    "alias", "array", "atomic", "bitcast", "break", "const_assert", "continuing", "diagnostic",
    "discard", "enable", "fallthrough", "fn", "function", "loop", "override", "ptr", "requires",
    "sampler", "storage", "struct", "texture", "workgroup", "read", "write", "read_write", "f16",
    "f32", "i32", "u32", "vec2", "vec3", "vec4", "mat2x2", "mat3x3", "mat4x4", "select", "NULL",
    "Self", "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async",
    "attribute", "auto", "await", "become", "binding_array", "cast", "catch", "class", "co_await",
    "co_return", "co_yield", "coherent", "column_major", "common", "compile", "compile_fragment",
    "concept", "const_cast", "consteval", "constexpr", "constinit", "crate", "debugger",
    "decltype", "delete", "demote", "demote_to_helper", "do", "dynamic_cast", "enum", "explicit",
    "export", "extends", "extern", "external", "filter", "final", "finally", "friend", "from",
    "fxgroup", "get", "goto", "groupshared", "highp", "impl", "implements", "import", "inline",
    "instanceof", "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump",
    "meta", "mod", "module", "move", "mut", "mutable", "namespace", "new", "nil", "noexcept",
    "noinline", "nointerpolation", "noperspective", "null", "nullptr", "of", "operator", "package",
    "packoffset", "partition", "pass", "patch", "pixelfragment", "precise", "precision",
    "premerge", "priv", "protected", "pub", "public", "readonly", "ref", "regardless", "register",
    "reinterpret_cast", "require", "resource", "restrict", "self", "set", "shared", "sizeof",
    "smooth", "snorm", "static", "static_assert", "static_cast", "std", "subroutine", "super",
    "target", "template", "this", "thread_local", "throw", "trait", "try", "type", "typedef",
    "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe", "unsized", "use",
    "using", "varying", "virtual", "volatile", "wgsl", "where", "with", "writeonly", "yield",
    "exp", "exp2", "log", "log2", "sqrt", "inverseSqrt", "abs", "min", "max", "pow", "sin", "cos",
    "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "floor", "ceil", "round", "trunc", "sign", "clamp", "mix", "step", "dot", "length", "fract",
    "any", "all", "workgroupBarrier", "storageBarrier"};
// clang-format on

// A float literal of `bits` bits; NaN and infinity are read from private variables (a constant
// expression that is not finite is an error in WGSL).
std::string FloatLiteral(double v, int bits, std::string* special) {
  if (std::isnan(v) || std::isinf(v)) {
    *special = std::isnan(v) ? "kiln_nan" : v > 0 ? "kiln_inf" : "kiln_ninf";
    std::string value = "bitcast<f32>(" + *special + "_bits)";
    return bits == 16 ? "f16(" + value + ")" : value;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, bits == 16 ? "%.5g" : "%.9g", v);
  // The shortest form may round past the largest finite value (3.40282347e+38 for f32), which
  // WGSL rejects; then the exact digits.
  double largest = bits == 16 ? 65504.0 : std::numeric_limits<float>::max();
  if (std::fabs(std::strtod(buf, nullptr)) > largest) std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += bits == 16 ? "h" : "f";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

// erf to float precision: Taylor series near 0, Abramowitz and Stegun 7.1.26 beyond (as the
// GLSL emitter's; WGSL has no erf).
constexpr char kErf[] =
    "fn kiln_erf(x: f32) -> f32 {\n"
    "  let a = abs(x);\n"
    "  if (a < 0.5f) {\n"
    "    let x2 = x * x;\n"
    "    return x * (1.1283791671f + x2 * (-0.3761263890f + x2 * (0.1128379167f + x2 * "
    "(-0.0268661706f + x2 * (0.0052239776f + x2 * -0.0008548327f)))));\n"
    "  }\n"
    "  let t = 1.0f / (1.0f + 0.3275911f * a);\n"
    "  let y = 1.0f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * "
    "(-1.453152027f + t * 1.061405429f)))) * exp(-a * a);\n"
    "  return select(y, -y, x < 0.0f);\n"
    "}\n";

// C's round: halves away from zero (WGSL's round takes the even one).
constexpr char kRound[] =
    "fn kiln_round(x: f32) -> f32 {\n"
    "  let t = trunc(x);\n"
    "  return select(t, t + sign(x), abs(x - t) >= 0.5f);\n"
    "}\n";

constexpr char kLog1p[] =
    "fn kiln_log1p(x: f32) -> f32 {\n"
    "  let u = 1.0f + x;\n"
    "  if (u == 1.0f) { return x; }\n"
    "  return log(u) * (x / (u - 1.0f));\n"
    "}\n";

// C's pow: a negative base with an integral exponent is defined (WGSL's pow is not).
constexpr char kPow[] =
    "fn kiln_pow(a: f32, b: f32) -> f32 {\n"
    "  if (a >= 0.0f) { return select(pow(a, b), 1.0f, a == 0.0f && b == 0.0f); }\n"
    "  if (b != trunc(b)) { return bitcast<f32>(kiln_nan_bits); }\n"
    "  let r = pow(-a, b);\n"
    "  return select(r, -r, abs(b - 2.0f * trunc(b / 2.0f)) == 1.0f);\n"
    "}\n";

constexpr char kFmod[] = "fn kiln_fmod(a: f32, b: f32) -> f32 { return a - b * trunc(a / b); }\n";

constexpr char kTanh[] = "fn kiln_tanh(x: f32) -> f32 { return tanh(clamp(x, -15.0f, 15.0f)); }\n";

constexpr char kCopysign[] =
    "fn kiln_copysign(a: f32, b: f32) -> f32 {\n"
    "  return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(b) & 0x80000000u));\n"
    "}\n";

// NaN and infinity tests on the bits: WGSL lets implementations assume floats are finite, so
// `x != x` may fold away.
constexpr char kIsNan[] =
    "fn kiln_isnan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n";
constexpr char kIsInf[] =
    "fn kiln_isinf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }\n";
constexpr char kIsFinite[] =
    "fn kiln_isfinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u; "
    "}\n";

class WgslEmitter : public gpu::GpuEmitter {
 public:
  explicit WgslEmitter(const WgslEmitOptions& options) : options_(options) {
    for (const char* n : kWgslReserved) ReserveName(n);
  }

  EmittedSource Run(const PrimFunc& f, const std::string& symbol) {
    function_name_ = f->name;
    KILN_CHECK(IsIdentifier(symbol), ErrorKind::kInvalidIR,
               "function " + f->name + ": kernel symbol '" + symbol + "' is not an identifier");
    gpu::GpuProgram program = gpu::LowerToKernels(f, symbol, options_.limits.gpu);
    EmittedSource result;
    result.language = "wgsl";
    result.signature = SignatureOf(f, symbol);
    result.launch = program.plan;
    for (const gpu::GpuKernel& kernel : program.kernels) ReserveName(kernel.launch.symbol);

    std::vector<bool> is_buffer;
    for (const ArgSlot& slot : result.signature.slots) {
      is_buffer.push_back(slot.kind == SlotKind::kBufferData);
    }
    for (size_t w = 0; w < program.workspace.size(); ++w) is_buffer.push_back(true);
    webgpu::WebGpuArgLayout layout = webgpu::LayoutOf(is_buffer);
    KILN_CHECK(layout.num_buffers <= options_.limits.gpu.max_buffer_arguments,
               ErrorKind::kUnsupported,
               "function " + f->name + ": kernel " + symbol + " binds " +
                   std::to_string(layout.num_buffers) + " storage buffers; the device allows " +
                   std::to_string(options_.limits.gpu.max_buffer_arguments) +
                   " per shader stage (maxStorageBuffersPerShaderStage)");

    std::ostringstream decls, members, prologue;
    auto declare_buffer = [&](const Buffer& buffer, int binding) {
      std::string name = DeclareVar(buffer->data);
      decls << "@group(0) @binding(" << binding << ") var<storage, read_write> " << name
            << ": array<" << StorageElementType(buffer) << ">;\n";
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
      DataType t = slot.dtype;
      KILN_CHECK(!(t.is_uint() && t.bits() > 32), ErrorKind::kUnsupported,
                 "function " + f->name + ": argument " + slot.name + " of " + t.ToString() +
                     ": WGSL has no 64-bit integers");
      std::string name = DeclareVar(var);
      std::string member = "p" + std::to_string(i);
      std::string member_type = webgpu::UniformMemberType(t);
      members << "  " << member << ": " << member_type << ",\n";
      std::string value = "kiln_args." + member;
      if (t.is_bool()) {
        value = "(" + value + " != 0u)";
      } else if (member_type != TypeName(t)) {
        value = TypeName(t) + "(" + value + ")";
      }
      prologue << "  let " << name << ": " << TypeName(t) << " = " << value << ";\n";
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
      kernels << shared_.str() << "@compute @workgroup_size(" << webgpu::kWorkgroupSizeConstants[0]
              << ", " << webgpu::kWorkgroupSizeConstants[1] << ", "
              << webgpu::kWorkgroupSizeConstants[2] << ")\n"
              << "fn " << kernel.launch.symbol
              << "(@builtin(workgroup_id) kiln_wid: vec3<u32>, @builtin(num_workgroups) "
                 "kiln_nwg: vec3<u32>, @builtin(local_invocation_id) kiln_lid: vec3<u32>) {\n"
              << GridPrologue() << prologue.str() << out_.str() << "}\n\n";
    }

    std::ostringstream code;
    code << "// Kernels " << symbol << " generated by Kiln from function " << f->name << ".\n";
    if (uses_f16_) code << "enable f16;\n";
    code << "\n";
    for (int axis = 0; axis < 3; ++axis) {
      code << "override " << webgpu::kWorkgroupSizeConstants[axis] << ": u32 = 1u;\n";
    }
    for (int axis = 0; axis < 3; ++axis) {
      code << "override " << webgpu::kGridConstants[axis] << ": u32 = 1u;\n";
    }
    code << decls.str();
    if (layout.uniform_binding >= 0) {
      code << "struct KilnArgs {\n"
           << members.str() << "}\n"
           << "@group(0) @binding(" << layout.uniform_binding
           << ") var<uniform> kiln_args: KilnArgs;\n";
    }
    for (const std::string& special : specials_) {
      uint32_t bits = special == "kiln_nan"   ? 0x7fc00000u
                      : special == "kiln_inf" ? 0x7f800000u
                                              : 0xff800000u;
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08xu", bits);
      code << "var<private> " << special << "_bits: u32 = " << hex << ";\n";
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
    std::string scalar;
    switch (t.code()) {
      case DataType::Code::kBool:
        scalar = "bool";
        break;
      case DataType::Code::kInt:
        // 64-bit integers are indices and shapes, computed in i32 (the header says why).
        if (t.bits() == 32 || t.bits() == 64) scalar = "i32";
        break;
      case DataType::Code::kUInt:
        if (t.bits() == 32) scalar = "u32";
        break;
      case DataType::Code::kFloat:
        if (t.bits() == 32) {
          scalar = "f32";
        } else if (t.bits() == 16) {
          KILN_CHECK(options_.limits.gpu.fp16, ErrorKind::kUnsupported,
                     "function " + function_name_ +
                         ": float16 on a WebGPU device without the shader-f16 feature");
          uses_f16_ = true;
          scalar = "f16";
        }
        break;
      case DataType::Code::kBFloat:
        break;
      case DataType::Code::kHandle:
        break;
    }
    KILN_CHECK(!scalar.empty(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": WGSL has no type for " + t.ToString() +
                   " (it has bool, i32, u32, f32 and, with shader-f16, f16)");
    if (t.is_scalar()) return scalar;
    KILN_CHECK(t.lanes() >= 2 && t.lanes() <= 4, ErrorKind::kUnsupported,
               "function " + function_name_ + ": no WGSL vector type for " + t.ToString() +
                   " (2 to 4 lanes)");
    return "vec" + std::to_string(t.lanes()) + "<" + scalar + ">";
  }

  std::string PrintIntImm(DataType t, int64_t value) override {
    if (t.is_bool()) return value ? "true" : "false";
    if (t.is_uint()) {
      KILN_CHECK(value >= 0 && value <= std::numeric_limits<uint32_t>::max(),
                 ErrorKind::kUnsupported,
                 "function " + function_name_ + ": the literal " + std::to_string(value) +
                     " does not fit WGSL's 32-bit integers");
      return std::to_string(value) + "u";
    }
    KILN_CHECK(value >= std::numeric_limits<int32_t>::min() &&
                   value <= std::numeric_limits<int32_t>::max(),
               ErrorKind::kUnsupported,
               "function " + function_name_ + ": the literal " + std::to_string(value) +
                   " does not fit WGSL's 32-bit integers");
    TypeName(t);  // refuses the types WGSL lacks
    if (value == std::numeric_limits<int32_t>::min()) return "(-2147483647i - 1i)";
    return value < 0 ? "(" + std::to_string(value) + "i)" : std::to_string(value) + "i";
  }

  std::string PrintFloatImm(DataType t, double value) override {
    std::string type = TypeName(t);  // refuses float64, bfloat16, float16 without shader-f16
    int bits = t.bits();
    if (bits == 16) value = HalfToFloat(FloatToHalf(static_cast<float>(value)));
    if (bits == 32) value = static_cast<float>(value);
    std::string special;
    std::string literal = FloatLiteral(value, bits, &special);
    if (!special.empty()) specials_.insert(special);
    return t.is_vector() ? type + "(" + literal + ")" : literal;
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    std::string v = PrintExpr(value);
    std::string type = TypeName(to);
    if (TypeName(value.dtype()) == type) return v;
    return type + "(" + v + ")";
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    DataType t = op->dtype;
    DataType at = op->args[0].dtype();
    const std::string& name = op->op;
    auto f32_of = [&](size_t i) {
      return op->args[i].dtype().bits() == 32 ? args[i] : "f32(" + args[i] + ")";
    };
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      KILN_CHECK(t.is_scalar() && at.is_float(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": " + name + " of " + at.ToString());
      const char* definition = name == "isnan" ? kIsNan : name == "isinf" ? kIsInf : kIsFinite;
      NeedHelper("kiln_" + name, definition);
      return "kiln_" + name + "(" + f32_of(0) + ")";
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
    if (name == "nearbyint") return "round(" + args[0] + ")";  // WGSL rounds halves to even
    if (name == "rsqrt") return "inverseSqrt(" + args[0] + ")";
    // The rest are computed in f32 (WGSL's f16 overloads vary in precision) and converted back.
    DataType ftype = DataType::Float(32).WithLanes(t.lanes());
    std::string ft = TypeName(ftype);
    std::vector<std::string> fargs;
    for (size_t i = 0; i < args.size(); ++i) {
      fargs.push_back(op->args[i].dtype() == ftype ? args[i] : ft + "(" + args[i] + ")");
    }
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
    std::string r;
    if (name == "exp" || name == "exp2" || name == "log" || name == "log2" || name == "sin" ||
        name == "cos" || name == "tan" || name == "asin" || name == "acos" || name == "atan" ||
        name == "sinh" || name == "cosh" || name == "asinh" || name == "acosh" || name == "atanh" ||
        name == "atan2") {
      r = call(name);
    } else if (name == "exp10") {
      r = "exp2(" + fargs[0] + " * 3.32192809488736235f)";
    } else if (name == "log10") {
      r = "(log2(" + fargs[0] + ") * 0.301029995663981195f)";
    } else if (name == "log1p") {
      r = helper("kiln_log1p", kLog1p);
    } else if (name == "tanh") {
      r = helper("kiln_tanh", kTanh);
    } else if (name == "sigmoid") {
      r = "(1.0f / (1.0f + exp(-" + fargs[0] + ")))";
    } else if (name == "erf") {
      r = helper("kiln_erf", kErf);
    } else if (name == "round") {
      r = helper("kiln_round", kRound);
    } else if (name == "pow") {
      specials_.insert("kiln_nan");
      r = helper("kiln_pow", kPow);
    } else if (name == "fmod") {
      r = helper("kiln_fmod", kFmod);
    } else if (name == "copysign") {
      r = helper("kiln_copysign", kCopysign);
    } else {
      throw Error(ErrorKind::kUnsupported,
                  "function " + function_name_ + ": intrinsic " + name + " on WebGPU");
    }
    return t == ftype ? r : TypeName(t) + "(" + r + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " / " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": floor division of " + t.ToString());
    NeedHelper("kiln_floordiv",
               "fn kiln_floordiv(a: i32, b: i32) -> i32 {\n"
               "  let q = a / b;\n"
               "  return select(q, q - 1i, q * b != a && ((a < 0i) != (b < 0i)));\n"
               "}\n");
    return "kiln_floordiv(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " % " + b + ")";
    KILN_CHECK(t.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": floor modulo of " + t.ToString());
    NeedHelper("kiln_floormod",
               "fn kiln_floormod(a: i32, b: i32) -> i32 {\n"
               "  let r = a % b;\n"
               "  return select(r, r + b, r != 0i && ((r < 0i) != (b < 0i)));\n"
               "}\n");
    return "kiln_floormod(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    const char* fn = is_min ? "min" : "max";
    if (t.is_vector() || t.is_int() || t.is_uint()) {
      return std::string(fn) + "(" + a + ", " + b + ")";
    }
    std::string type = TypeName(t);
    std::string helper = std::string("kiln_") + fn + "_" + type;
    const char* cmp = is_min ? "<" : ">";
    std::string choose = std::string("select(b, a, a ") + cmp + " b)";
    std::string body = "return " + choose + ";";
    if (t.is_float()) {
      // Floats propagate NaN, as the interpreter does.
      NeedHelper("kiln_isnan", kIsNan);
      std::string fa = t.bits() == 32 ? "a" : "f32(a)", fb = t.bits() == 32 ? "b" : "f32(b)";
      body = "if (kiln_isnan(" + fa + ")) { return a; }\n  if (kiln_isnan(" + fb +
             ")) { return b; }\n  " + body;
    }
    NeedHelper(helper, "fn " + helper + "(a: " + type + ", b: " + type + ") -> " + type + " {\n  " +
                           body + "\n}\n");
    return helper + "(" + a + ", " + b + ")";
  }

  std::string PrintSelect(DataType t, const std::string& cond, const std::string& a,
                          const std::string& b) override {
    (void)t;
    // Both operands are evaluated; WGSL's bounds-checked buffer access makes that safe where
    // if_then_else guards a load.
    return "select(" + b + ", " + a + ", " + cond + ")";
  }

  std::string PrintRamp(const RampNode* op) override {
    DataType t = op->dtype;
    std::string type = TypeName(t), lanes;
    for (int i = 0; i < t.lanes(); ++i) {
      lanes += (i ? ", " : "") + PrintIntImm(t.element_of(), i);
    }
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
    if (op->dtype.is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector load of " + op->buffer->name +
                     " that is not a contiguous or strided access");
      std::string v = TypeName(op->dtype) + "(";
      for (int i = 0; i < op->dtype.lanes(); ++i) {
        v += (i ? ", " : "") + name + "[" + LaneIndex(ramp, i) + "]";
      }
      return v + ")";
    }
    return name + "[" + PrintExpr(op->indices[0]) + "]";
  }

  void EmitStore(const BufferStoreNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": store to " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    std::string value = PrintExpr(op->value);
    if (op->value.dtype().is_vector()) {
      const auto* ramp = op->indices[0].as<RampNode>();
      KILN_CHECK(ramp != nullptr && op->buffer->dtype.is_scalar(), ErrorKind::kUnsupported,
                 "function " + function_name_ + ": vector store to " + op->buffer->name +
                     " that is not a contiguous or strided access");
      std::string tmp = DeclareName("v");
      Line() << "{\n";
      Line() << "  let " << tmp << ": " << TypeName(op->value.dtype()) << " = " << value << ";\n";
      for (int i = 0; i < op->value.dtype().lanes(); ++i) {
        Line() << "  " << name << "[" << LaneIndex(ramp, i) << "] = " << tmp << "[" << i << "];\n";
      }
      Line() << "}\n";
      return;
    }
    Line() << name << "[" << PrintExpr(op->indices[0]) << "] = " << value << ";\n";
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    int64_t count = ConstantElements(buffer);
    std::string type = TypeName(buffer->dtype);
    std::string name = DeclareVar(buffer->data);
    Line() << "var " << name << ": array<" << type << ", " << std::max<int64_t>(count, 1) << ">;\n";
    EmitStmt(op->body);
  }

  void EmitRegisterDecl(DataType t, const std::string& name) override {
    Line() << "var " << name << ": " << TypeName(t) << " = " << TypeName(t) << "();\n";
  }

  void EmitConstDecl(DataType t, const std::string& name, const std::string& value) override {
    Line() << "let " << name << ": " << TypeName(t) << " = " << value << ";\n";
  }

  void EmitForHeader(DataType t, const std::string& name, const std::string& begin,
                     const std::string& end) override {
    Line() << "for (var " << name << ": " << TypeName(t) << " = " << begin << "; " << name << " < "
           << end << "; " << name << "++) {\n";
  }

  void EmitEvaluate(const EvaluateNode* op) override {
    if (gpu::IsBarrier(Evaluate(op->value))) return EmitBarrier();
    if (op->value.as<IntImmNode>() != nullptr) return;
    Line() << "_ = " << PrintExpr(op->value) << ";\n";
  }

  // GpuEmitter's thread binding, spelled in WGSL.
  std::string ConvertThreadIndex(DataType t, const std::string& index) override {
    return TypeName(t) == "i32" ? index : TypeName(t) + "(" + index + ")";
  }
  void MarkUsed(const std::string& name) override { (void)name; }

  std::string ThreadIndex(bool is_block, int axis) override {
    const char* lane[] = {"x", "y", "z"};
    return std::string(is_block ? "kiln_block." : "kiln_thread.") + lane[axis];
  }

  void EmitBarrier() override {
    Line() << "storageBarrier();\n";
    Line() << "workgroupBarrier();\n";
  }

  // Workgroup variables live at module scope in WGSL: declared before the kernel's entry.
  void EmitSharedDecl(const Buffer& buffer, const std::string& name) override {
    shared_ << "var<workgroup> " << name << ": array<" << TypeName(buffer->dtype) << ", "
            << std::max<int64_t>(ConstantElements(buffer), 1) << ">;\n";
  }

 private:
  static bool IsIdentifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || s.rfind("__", 0) == 0) {
      return false;
    }
    for (char c : s) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
  }

  // The logical block of this workgroup, from the folded dispatch (codegen/webgpu/webgpu_abi.h),
  // and the thread within it; workgroups past the logical grid leave together.
  static std::string GridPrologue() {
    return "  let kiln_linear: u32 = kiln_wid.x + kiln_nwg.x * (kiln_wid.y + kiln_nwg.y * "
           "kiln_wid.z);\n"
           "  if (kiln_linear >= kiln_grid_x * kiln_grid_y * kiln_grid_z) { return; }\n"
           "  let kiln_block = vec3<i32>(vec3<u32>(kiln_linear % kiln_grid_x, (kiln_linear / "
           "kiln_grid_x) % kiln_grid_y, kiln_linear / (kiln_grid_x * kiln_grid_y)));\n"
           "  let kiln_thread = vec3<i32>(kiln_lid);\n";
  }

  // The element type of storage buffer `buffer`: WGSL storage holds 32-bit scalars and f16.
  std::string StorageElementType(const Buffer& buffer) {
    DataType t = buffer->dtype;
    bool storable = (t.is_int() && t.bits() == 32) || (t.is_uint() && t.bits() == 32) ||
                    (t.is_float() && (t.bits() == 32 || t.bits() == 16));
    KILN_CHECK(storable, ErrorKind::kUnsupported,
               "function " + function_name_ + ": buffer " + buffer->name + " holds " +
                   t.ToString() +
                   "; WebGPU storage buffers hold i32, u32, f32 and (with shader-f16) f16" +
                   (t.bits() == 64 && t.is_integral() ? " (WGSL has no 64-bit integers)" : ""));
    return TypeName(t);
  }

  std::string LaneIndex(const RampNode* ramp, int lane) {
    Expr e =
        lane == 0 ? ramp->base : ramp->base + ramp->stride * MakeConst(ramp->base.dtype(), lane);
    return PrintExpr(e);
  }

  void NeedHelper(const std::string& name, const std::string& definition) {
    if (helper_names_.insert(name).second) helpers_.push_back(definition);
  }

  const WgslEmitOptions& options_;
  std::ostringstream shared_;
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
  std::set<std::string> specials_;
  bool uses_f16_ = false;
};

}  // namespace

LowerOptions WebGpuTarget::DefaultLowerOptions() const { return gpu::GpuLowerOptions(); }

EmittedSource EmitWgsl(const PrimFunc& lowered, const std::string& symbol,
                       const WgslEmitOptions& options) {
  return WgslEmitter(options).Run(lowered, symbol);
}

}  // namespace kiln::codegen
