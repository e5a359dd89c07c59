// Helpers the runtime tests share: a scratch directory, hand-written C kernels following
// codegen/kernel_abi.h, and their signatures.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "codegen/kernel_abi.h"
#include "support/error.h"

namespace kiln::runtime::testing {

// A fresh directory under TMPDIR, removed with its contents at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-rt-test-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline constexpr char kPrelude[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#ifndef KILN_VALUE_T\n"
    "#define KILN_VALUE_T\n"
    "typedef union { void* ptr; int64_t i; double f; } kiln_value_t;\n"
    "#endif\n";

// C[i] = A[i] + B[i], n from the shape of A.
inline std::string VectorAddSource(const std::string& symbol = "vadd") {
  return std::string(kPrelude) + "int32_t " + symbol +
         "(const kiln_value_t* args, int32_t num_args) {\n"
         "  if (num_args != 4) return -1;\n"
         "  const float* a = (const float*)args[0].ptr;\n"
         "  const float* b = (const float*)args[1].ptr;\n"
         "  float* c = (float*)args[2].ptr;\n"
         "  int64_t n = args[3].i;\n"
         "  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];\n"
         "  return 0;\n"
         "}\n";
}

inline codegen::KernelSignature VectorAddSignature(const std::string& symbol = "vadd") {
  using codegen::SlotKind;
  ir::DataType f32 = ir::DataType::Float(32);
  return {symbol,
          {{SlotKind::kBufferData, "A", f32, 0, -1},
           {SlotKind::kBufferData, "B", f32, 1, -1},
           {SlotKind::kBufferData, "C", f32, 2, -1},
           {SlotKind::kShapeVar, "n", ir::DataType::Int(64), 0, 0}}};
}

// C[M, N] = A[M, K] * B[K, N], fixed sizes, float32.
inline constexpr int kM = 16, kN = 24, kK = 8;
inline std::string MatmulSource() {
  return std::string(kPrelude) +
         "int32_t matmul(const kiln_value_t* args, int32_t num_args) {\n"
         "  if (num_args != 3) return -1;\n"
         "  const float* a = (const float*)args[0].ptr;\n"
         "  const float* b = (const float*)args[1].ptr;\n"
         "  float* c = (float*)args[2].ptr;\n"
         "  for (int i = 0; i < " +
         std::to_string(kM) +
         "; ++i)\n"
         "    for (int j = 0; j < " +
         std::to_string(kN) +
         "; ++j) {\n"
         "      float acc = 0.0f;\n"
         "      for (int k = 0; k < " +
         std::to_string(kK) +
         "; ++k)\n"
         "        acc += a[i * " +
         std::to_string(kK) + " + k] * b[k * " + std::to_string(kN) +
         " + j];\n"
         "      c[i * " +
         std::to_string(kN) +
         " + j] = acc;\n"
         "    }\n"
         "  return 0;\n"
         "}\n";
}

inline codegen::KernelSignature MatmulSignature() {
  using codegen::SlotKind;
  ir::DataType f32 = ir::DataType::Float(32);
  return {"matmul",
          {{SlotKind::kBufferData, "A", f32, 0, -1},
           {SlotKind::kBufferData, "B", f32, 1, -1},
           {SlotKind::kBufferData, "C", f32, 2, -1}}};
}

// A kernel of the vector-add signature whose body is `body`.
inline std::string KernelWithBody(const std::string& symbol, const std::string& body) {
  return std::string(kPrelude) + "int32_t " + symbol +
         "(const kiln_value_t* args, int32_t num_args) {\n  (void)args; (void)num_args;\n" + body +
         "\n}\n";
}

}  // namespace kiln::runtime::testing
