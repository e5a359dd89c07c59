// The CUDA emitter: codegen/gpu's kernels printed through CLikeEmitter's hooks in CUDA C++.
#include "codegen/cuda/cuda_emitter.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "codegen/gpu/gpu_emitter.h"
#include "codegen/gpu/lower_gpu.h"
#include "codegen/passes/ir_utils.h"
#include "ir/arith/analyzer.h"
#include "support/half.h"

namespace kiln::codegen {

using namespace ir;

namespace {

// Vectors are aligned structs rather than CUDA's float4 family: those have no arithmetic
// operators and no lane indexing, and lack 1-byte and 16-bit element types. A power-of-two
// vector is aligned to its size, so a load of an aligned address is one vector instruction
// (ld.global.v4.f32), as with float4.
const char kVectorPrelude[] = R"(template <typename T, int N>
struct alignas((N & (N - 1)) == 0 ? sizeof(T) * N : sizeof(T)) kiln_vec {
  T v[N];
  __device__ __forceinline__ T& operator[](int i) { return v[i]; }
  __device__ __forceinline__ const T& operator[](int i) const { return v[i]; }
};
#define KILN_VEC_BINARY(OP, R)                                                           \
  template <typename T, int N>                                                           \
  __device__ __forceinline__ kiln_vec<R, N> operator OP(const kiln_vec<T, N>& a,         \
                                                        const kiln_vec<T, N>& b) {       \
    kiln_vec<R, N> r;                                                                    \
    _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = a.v[i] OP b.v[i];             \
    return r;                                                                            \
  }
KILN_VEC_BINARY(+, T)
KILN_VEC_BINARY(-, T)
KILN_VEC_BINARY(*, T)
KILN_VEC_BINARY(/, T)
KILN_VEC_BINARY(%, T)
KILN_VEC_BINARY(<, bool)
KILN_VEC_BINARY(<=, bool)
KILN_VEC_BINARY(>, bool)
KILN_VEC_BINARY(>=, bool)
KILN_VEC_BINARY(==, bool)
KILN_VEC_BINARY(!=, bool)
KILN_VEC_BINARY(&&, bool)
KILN_VEC_BINARY(||, bool)
template <int N>
__device__ __forceinline__ kiln_vec<bool, N> operator!(const kiln_vec<bool, N>& a) {
  kiln_vec<bool, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = !a.v[i];
  return r;
}
// Contiguous vector accesses of an aligned address as one 4-, 8- or 16-byte memory operation,
// whatever the element type: copying the struct itself would be split into elements for
// types with constructors (half).
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_vload(const T* p) {
  kiln_vec<T, N> r;
  if constexpr (sizeof(r) == 16) {
    *reinterpret_cast<uint4*>(&r) = *reinterpret_cast<const uint4*>(p);
  } else if constexpr (sizeof(r) == 8) {
    *reinterpret_cast<uint2*>(&r) = *reinterpret_cast<const uint2*>(p);
  } else if constexpr (sizeof(r) == 4) {
    *reinterpret_cast<unsigned int*>(&r) = *reinterpret_cast<const unsigned int*>(p);
  } else {
    _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = p[i];
  }
  return r;
}
template <typename T, int N>
__device__ __forceinline__ void kiln_vstore(T* p, const kiln_vec<T, N>& v) {
  if constexpr (sizeof(v) == 16) {
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&v);
  } else if constexpr (sizeof(v) == 8) {
    *reinterpret_cast<uint2*>(p) = *reinterpret_cast<const uint2*>(&v);
  } else if constexpr (sizeof(v) == 4) {
    *reinterpret_cast<unsigned int*>(p) = *reinterpret_cast<const unsigned int*>(&v);
  } else {
    _Pragma("unroll") for (int i = 0; i < N; ++i) p[i] = v.v[i];
  }
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_broadcast(T x) {
  kiln_vec<T, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = x;
  return r;
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_ramp(T base, T stride) {
  kiln_vec<T, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = base + (T)i * stride;
  return r;
}
template <typename U, typename T, int N>
__device__ __forceinline__ kiln_vec<U, N> kiln_cast(const kiln_vec<T, N>& a) {
  kiln_vec<U, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = (U)a.v[i];
  return r;
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_select(const kiln_vec<bool, N>& c,
                                                      const kiln_vec<T, N>& a,
                                                      const kiln_vec<T, N>& b) {
  kiln_vec<T, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = c.v[i] ? a.v[i] : b.v[i];
  return r;
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_select(bool c, const kiln_vec<T, N>& a,
                                                      const kiln_vec<T, N>& b) {
  return c ? a : b;
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_vmin(const kiln_vec<T, N>& a,
                                                    const kiln_vec<T, N>& b) {
  kiln_vec<T, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = kiln_min<T>(a.v[i], b.v[i]);
  return r;
}
template <typename T, int N>
__device__ __forceinline__ kiln_vec<T, N> kiln_vmax(const kiln_vec<T, N>& a,
                                                    const kiln_vec<T, N>& b) {
  kiln_vec<T, N> r;
  _Pragma("unroll") for (int i = 0; i < N; ++i) r.v[i] = kiln_max<T>(a.v[i], b.v[i]);
  return r;
}
)";

// Floats propagate NaN (x != x only for NaN), as the interpreter does; fminf would not.
const char kScalarPrelude[] = R"(template <typename T>
__device__ __forceinline__ T kiln_min(T a, T b) {
  return a != a ? a : b != b ? b : a < b ? a : b;
}
template <typename T>
__device__ __forceinline__ T kiln_max(T a, T b) {
  return a != a ? a : b != b ? b : a > b ? a : b;
}
template <typename T>
__device__ __forceinline__ T kiln_floordiv(T a, T b) {
  T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T>
__device__ __forceinline__ T kiln_floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
)";

const char* const kAxis[3] = {"x", "y", "z"};

bool IsHalf(DataType t) { return t.code() == DataType::Code::kFloat && t.bits() == 16; }
bool IsBFloat(DataType t) { return t.code() == DataType::Code::kBFloat; }
// A 16-bit float: computed in its own type where CUDA has operators for it, converted to
// float for everything else (intrinsics, conversions).
bool Is16Bit(DataType t) { return IsHalf(t) || IsBFloat(t); }
std::string ToFloat(DataType t, const std::string& v) {
  return std::string(IsBFloat(t) ? "__bfloat162float(" : "__half2float(") + v + ")";
}
std::string FromFloat(DataType t, const std::string& v) {
  return std::string(IsBFloat(t) ? "__float2bfloat16(" : "__float2half(") + v + ")";
}

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Whether `e` is a multiple of `n` for every value of its variables.
bool IsMultipleOf(const Expr& e, int64_t n) {
  if (n <= 1) return true;
  if (auto c = AsConstInt(e)) return *c % n == 0;
  if (const auto* add = e.as<AddNode>()) return IsMultipleOf(add->a, n) && IsMultipleOf(add->b, n);
  if (const auto* sub = e.as<SubNode>()) return IsMultipleOf(sub->a, n) && IsMultipleOf(sub->b, n);
  if (const auto* mul = e.as<MulNode>()) return IsMultipleOf(mul->a, n) || IsMultipleOf(mul->b, n);
  if (const auto* cast = e.as<CastNode>()) return IsMultipleOf(cast->value, n);
  return false;
}

// What the kernels of one source need at its top.
struct Needs {
  bool fp16 = false;
  bool bf16 = false;
  bool vectors = false;
};

class CudaKernelEmitter : public gpu::GpuEmitter {
 public:
  CudaKernelEmitter(const std::string& function_name, Needs& needs) : needs_(needs) {
    function_name_ = function_name;
    for (const char* name :
         {"threadIdx",      "blockIdx",   "blockDim",    "gridDim",       "warpSize",
          "kiln_vec",       "kiln_min",   "kiln_max",    "kiln_floordiv", "kiln_floormod",
          "kiln_broadcast", "kiln_ramp",  "kiln_cast",   "kiln_select",   "kiln_vmin",
          "kiln_vmax",      "kiln_vload", "kiln_vstore", "half",          "__half",
          "__nv_bfloat16",  "nv_bfloat16"}) {
      ReserveName(name);
    }
  }

  // One `extern "C" __global__` function for `kernel` with the parameters of `signature`
  // and the workspace buffers.
  std::string Run(const PrimFunc& f, const gpu::GpuKernel& kernel,
                  const std::vector<Buffer>& workspace, bool noalias) {
    const KernelSignature signature = SignatureOf(f, kernel.launch.symbol);
    ReserveName(kernel.launch.symbol);
    std::vector<std::string> params;
    indent_ = 1;
    const char* restrict_kw = noalias ? " __restrict__" : "";
    for (const ArgSlot& slot : signature.slots) {
      const Var& param = f->params[slot.param_index];
      switch (slot.kind) {
        case SlotKind::kBufferData: {
          Buffer buffer = *f->BufferOf(param);
          std::string name = DeclareVar(buffer->data);
          params.push_back(StorageTypeName(buffer->dtype) + "*" + restrict_kw + " " + name);
          break;
        }
        case SlotKind::kScalarInt:
        case SlotKind::kScalarFloat: {
          bool is_int = slot.kind == SlotKind::kScalarInt;
          std::string raw = DeclareName(slot.name + "_arg");
          params.push_back(std::string(is_int ? "long long " : "double ") + raw);
          std::string name = DeclareVar(param);
          std::string value = raw;
          if (slot.dtype.is_bool()) {
            value = "(" + raw + " != 0)";
          } else if (Is16Bit(slot.dtype)) {
            TypeName(slot.dtype);
            value = FromFloat(slot.dtype, "(float)" + raw);
          } else {
            value = "(" + TypeName(slot.dtype) + ")" + raw;
          }
          Line() << "const " << TypeName(slot.dtype) << " " << name << " = " << value << ";\n";
          break;
        }
        case SlotKind::kShapeVar: {
          Buffer buffer = *f->BufferOf(param);
          const Var shape_var = Var(buffer->shape[slot.dim].ptr());
          std::string raw = DeclareName(slot.name + "_arg");
          params.push_back("long long " + raw);
          std::string name = DeclareVar(shape_var);
          AssumeNonNegative(shape_var);
          Line() << "const " << TypeName(slot.dtype) << " " << name << " = ("
                 << TypeName(slot.dtype) << ")" << raw << ";\n";
          break;
        }
      }
    }
    for (const Buffer& buffer : workspace) {
      std::string name = DeclareVar(buffer->data);
      params.push_back(StorageTypeName(buffer->dtype) + "* " + name);
    }
    EmitKernelBody(kernel);

    std::ostringstream code;
    code << "extern \"C\" __global__ void ";
    int64_t threads = 1;
    for (const Expr& e : kernel.launch.extents.block) {
      auto c = AsConstInt(e);
      threads = c && threads > 0 ? threads * *c : -1;
    }
    // Lets the compiler budget registers for the real block size.
    if (threads > 0) code << "__launch_bounds__(" << threads << ") ";
    code << kernel.launch.symbol << "(";
    for (size_t i = 0; i < params.size(); ++i) code << (i ? ", " : "") << params[i];
    code << ") {\n" << out_.str() << "}\n";
    return code.str();
  }

 protected:
  std::string TypeName(DataType t) override {
    if (t.is_vector()) {
      needs_.vectors = true;
      return "kiln_vec<" + TypeName(t.element_of()) + ", " + std::to_string(t.lanes()) + ">";
    }
    switch (t.code()) {
      case DataType::Code::kBool:
        return "bool";
      case DataType::Code::kInt:
        switch (t.bits()) {
          case 8:
            return "signed char";
          case 16:
            return "short";
          case 32:
            return "int";
          case 64:
            return "long long";
        }
        break;
      case DataType::Code::kUInt:
        switch (t.bits()) {
          case 8:
            return "unsigned char";
          case 16:
            return "unsigned short";
          case 32:
            return "unsigned int";
          case 64:
            return "unsigned long long";
        }
        break;
      case DataType::Code::kFloat:
        if (t.bits() == 64) return "double";
        if (t.bits() == 32) return "float";
        if (t.bits() == 16) {
          needs_.fp16 = true;
          return "half";
        }
        break;
      case DataType::Code::kBFloat:
        needs_.bf16 = true;
        return "__nv_bfloat16";
      case DataType::Code::kHandle:
        return t.is_void() ? "void" : "void*";
    }
    throw Error(ErrorKind::kUnsupported,
                "function " + function_name_ + ": no CUDA type for " + t.ToString());
  }

  std::string PrintFloatImm(DataType t, double value) override {
    if (IsHalf(t)) {
      needs_.fp16 = true;
      value = HalfToFloat(FloatToHalf(static_cast<float>(value)));
      return FromFloat(t, FloatLiteral(value, false));
    }
    if (IsBFloat(t)) {
      needs_.bf16 = true;
      value = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
      return FromFloat(t, FloatLiteral(value, false));
    }
    return FloatLiteral(value, t.bits() == 64);
  }

  std::string FinishArith(DataType t, std::string expr) override {
    // Narrow integers wrap, as the interpreter's; C++ computes them in int.
    if (t.is_scalar() && (t.is_int() || t.is_uint()) && t.bits() < 32) {
      return "((" + TypeName(t) + ")" + expr + ")";
    }
    return expr;
  }

  std::string PrintIntrinsic(const CallNode* op, const std::vector<std::string>& args) override {
    const std::string& name = op->op;
    DataType t = op->dtype;
    DataType at = op->args.empty() ? t : op->args[0].dtype();
    KILN_CHECK(t.is_scalar() && at.is_scalar(), ErrorKind::kUnsupported,
               "function " + function_name_ + ": " + name + " on vectors");
    if (name == "isnan" || name == "isinf" || name == "isfinite") {
      std::string x = Is16Bit(at) ? ToFloat(at, args[0]) : args[0];
      return "(" + name + "(" + x + ") != 0)";
    }
    if ((name == "abs" || name == "fabs") && at.is_integral()) {
      if (at.is_uint() || at.is_bool()) return args[0];
      if (at.bits() == 64) return "llabs(" + args[0] + ")";
      return FinishArith(t, "abs((int)" + args[0] + ")");
    }
    KILN_CHECK(at.is_float() && t.is_float(), ErrorKind::kType,
               "function " + function_name_ + ": " + name + " of " + at.ToString());
    // float16 is computed in float and rounded once, as the C target and the interpreter do.
    bool half = Is16Bit(t);
    bool dbl = t.bits() == 64;
    std::string suffix = dbl ? "" : "f";
    std::string one = dbl ? "1.0" : "1.0f";
    std::vector<std::string> a;
    for (size_t i = 0; i < args.size(); ++i) {
      DataType arg_type = op->args[i].dtype();
      a.push_back(Is16Bit(arg_type) ? ToFloat(arg_type, args[i]) : args[i]);
    }
    std::string r;
    if (name == "rsqrt") {
      r = "(" + one + " / sqrt" + suffix + "(" + a[0] + "))";
    } else if (name == "sigmoid") {
      r = "(" + one + " / (" + one + " + exp" + suffix + "(-(" + a[0] + "))))";
    } else {
      std::string fn = name == "abs" ? "fabs" : name;
      r = fn + suffix + "(";
      for (size_t i = 0; i < a.size(); ++i) r += (i ? ", " : "") + a[i];
      r += ")";
    }
    return half ? FromFloat(t, r) : r;
  }

  std::string PrintCast(DataType to, const Expr& value) override {
    DataType from = value.dtype();
    std::string v = PrintExpr(value);
    if (to.is_vector()) return "kiln_cast<" + TypeName(to.element_of()) + ">(" + v + ")";
    if (to == from) return v;
    if (Is16Bit(from)) {
      v = ToFloat(from, v);
      if (to.is_float() && to.bits() == 32) return v;
    }
    if (to.is_bool()) return "(" + v + " != 0)";
    if (Is16Bit(to)) {
      TypeName(to);
      if (IsHalf(to) && from.is_float() && from.bits() == 64) return "__double2half(" + v + ")";
      return FromFloat(to, "(float)" + v);
    }
    return "((" + TypeName(to) + ")" + v + ")";
  }

  std::string PrintFloorDivSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " / " + b + ")";
    return "kiln_floordiv<" + TypeName(t) + ">(" + a + ", " + b + ")";
  }

  std::string PrintFloorModSigned(DataType t, const std::string& a, const std::string& b) override {
    if (t.is_uint() || t.is_bool()) return "(" + a + " % " + b + ")";
    return "kiln_floormod<" + TypeName(t) + ">(" + a + ", " + b + ")";
  }

  std::string PrintMinMax(bool is_min, DataType t, const std::string& a,
                          const std::string& b) override {
    if (t.is_vector())
      return std::string(is_min ? "kiln_vmin(" : "kiln_vmax(") + a + ", " + b + ")";
    return std::string(is_min ? "kiln_min<" : "kiln_max<") + TypeName(t) + ">(" + a + ", " + b +
           ")";
  }

  std::string PrintSelect(DataType t, const std::string& cond, const std::string& a,
                          const std::string& b) override {
    // kiln_select takes a vector condition (per lane) or a scalar one (whole values).
    if (t.is_vector()) return "kiln_select(" + cond + ", " + a + ", " + b + ")";
    return "(" + cond + " ? " + a + " : " + b + ")";
  }

  std::string PrintRamp(const RampNode* op) override {
    DataType e = op->dtype.element_of();
    return "kiln_ramp<" + TypeName(e) + ", " + std::to_string(op->lanes) + ">(" +
           PrintExpr(op->base) + ", " + PrintExpr(op->stride) + ")";
  }

  std::string PrintBroadcast(const BroadcastNode* op) override {
    DataType e = op->dtype.element_of();
    return "kiln_broadcast<" + TypeName(e) + ", " + std::to_string(op->lanes) + ">(" +
           PrintExpr(op->value) + ")";
  }

  std::string PrintLoad(const BufferLoadNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": load of " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    const Expr& index = op->indices[0];
    if (!op->dtype.is_vector() || op->buffer->dtype.is_vector()) {
      return name + "[" + PrintExpr(index) + "]";
    }
    std::string type = TypeName(op->dtype);
    if (const Expr* base = ContiguousBase(index, op->dtype.lanes())) {
      return "kiln_vload<" + TypeName(op->dtype.element_of()) + ", " +
             std::to_string(op->dtype.lanes()) + ">(" + name + " + " + PrintExpr(*base) + ")";
    }
    std::string lanes;
    for (int i = 0; i < op->dtype.lanes(); ++i) {
      lanes += (i ? ", " : "") + name + "[" + LaneOf(index, i) + "]";
    }
    return type + "{{" + lanes + "}}";
  }

  void EmitStore(const BufferStoreNode* op) override {
    KILN_CHECK(
        op->indices.size() == 1, ErrorKind::kInvalidIR,
        "function " + function_name_ + ": store to " + op->buffer->name + " is not flattened");
    std::string name = NameOf(op->buffer->data);
    const Expr& index = op->indices[0];
    DataType t = op->value.dtype();
    if (!t.is_vector() || op->buffer->dtype.is_vector()) {
      Line() << name << "[" << PrintExpr(index) << "] = " << PrintExpr(op->value) << ";\n";
      return;
    }
    std::string type = TypeName(t);
    if (const Expr* base = ContiguousBase(index, t.lanes())) {
      Line() << "kiln_vstore<" << TypeName(t.element_of()) << ", " << t.lanes() << ">(" << name
             << " + " << PrintExpr(*base) << ", " << PrintExpr(op->value) << ");\n";
      return;
    }
    std::string tmp = DeclareName("lanes");
    Line() << "{\n";
    ++indent_;
    Line() << "const " << type << " " << tmp << " = " << PrintExpr(op->value) << ";\n";
    for (int i = 0; i < t.lanes(); ++i) {
      Line() << name << "[" << LaneOf(index, i) << "] = " << tmp << "[" << i << "];\n";
    }
    --indent_;
    Line() << "}\n";
  }

  void EmitLoopPrefix(const ForNode* op) override {
    if (op->for_kind == ForKind::kUnrolled) Line() << "#pragma unroll\n";
  }

  std::string ThreadIndex(bool is_block, int axis) override {
    return std::string("(int)") + (is_block ? "blockIdx." : "threadIdx.") + kAxis[axis];
  }

  void EmitBarrier() override { Line() << "__syncthreads();\n"; }

  void EmitSharedDecl(const Buffer& buffer, const std::string& name) override {
    Line() << "__shared__ alignas(16) " << StorageTypeName(buffer->dtype) << " " << name << "["
           << std::max<int64_t>(ConstantElements(buffer), 1) << "];\n";
  }

  void EmitAllocate(const AllocateNode* op) override {
    const Buffer& buffer = op->buffer;
    std::string name = DeclareVar(buffer->data);
    int64_t count = std::max<int64_t>(ConstantElements(buffer), 1);
    bool shared = buffer->scope.rfind("shared", 0) == 0;
    Line() << (shared ? "__shared__ " : "") << "alignas(16) " << StorageTypeName(buffer->dtype)
           << " " << name << "[" << count << "];\n";
    EmitStmt(op->body);
  }

 private:
  // The base of a contiguous vector access of `lanes` whose address is aligned to the vector
  // (buffers are aligned to 16 bytes or more), or nullptr.
  const Expr* ContiguousBase(const Expr& index, int lanes) {
    const auto* ramp = index.as<RampNode>();
    if (ramp == nullptr || !IsConstInt(ramp->stride, 1)) return nullptr;
    // A 3-lane vector is aligned to its element only; a power of two to its size.
    bool power_of_two = (lanes & (lanes - 1)) == 0;
    if (power_of_two && !IsMultipleOf(ramp->base, lanes)) return nullptr;
    return &ramp->base;
  }

  // Lane `i` of a vector index.
  std::string LaneOf(const Expr& index, int i) {
    if (const auto* ramp = index.as<RampNode>()) {
      DataType t = ramp->base.dtype();
      return PrintExpr(FoldAdd(ramp->base, FoldMul(ramp->stride, IntImm(t, i))));
    }
    if (const auto* broadcast = index.as<BroadcastNode>()) return PrintExpr(broadcast->value);
    return PrintExpr(index) + "[" + std::to_string(i) + "]";
  }

  static std::string FloatLiteral(double v, bool is_double) {
    if (std::isnan(v))
      return is_double ? "__longlong_as_double(0x7ff8000000000000LL)"
                       : "__int_as_float(0x7fc00000)";
    if (std::isinf(v)) {
      std::string inf =
          is_double ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)";
      return v > 0 ? inf : "(-" + inf + ")";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (!is_double) s += "f";
    return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
  }

  Needs& needs_;
};

}  // namespace

EmittedSource EmitCuda(const PrimFunc& lowered, const std::string& symbol,
                       const CudaEmitOptions& options) {
  KILN_CHECK(
      IsCIdentifier(symbol), ErrorKind::kInvalidIR,
      "function " + lowered->name + ": kernel symbol '" + symbol + "' is not a C identifier");
  gpu::GpuProgram program = gpu::LowerToKernels(lowered, symbol, options.limits);
  bool noalias = false;
  if (auto it = lowered->attrs.find("tir.noalias"); it != lowered->attrs.end()) {
    noalias = !IsConstInt(it->second, 0);
  }
  Needs needs;
  std::string kernels;
  for (const gpu::GpuKernel& kernel : program.kernels) {
    CudaKernelEmitter emitter(lowered->name, needs);
    kernels += "\n" + emitter.Run(lowered, kernel, program.workspace, noalias);
  }
  KILN_CHECK(!needs.fp16 || options.limits.fp16, ErrorKind::kUnsupported,
             "function " + lowered->name + " computes in float16, which the device has not");

  std::ostringstream code;
  code << "// CUDA kernels " << symbol << " generated by Kiln from function " << lowered->name
       << ".\n";
  if (needs.fp16) code << "#include <cuda_fp16.h>\n";
  if (needs.bf16) code << "#include <cuda_bf16.h>\n";
  code << "\n" << kScalarPrelude;
  if (needs.vectors) code << kVectorPrelude;
  code << kernels;

  EmittedSource result;
  result.language = "cuda";
  result.code = code.str();
  result.signature = SignatureOf(lowered, symbol);
  result.launch = std::move(program.plan);
  return result;
}

LowerOptions CudaTarget::DefaultLowerOptions() const { return gpu::GpuLowerOptions(); }

}  // namespace kiln::codegen
