// A small compiled model for the executor's tests, made without the compiler (which is a
// higher layer): hand-written kernels with Kiln's calling convention built into one library,
// and a graph over them. y = (8 x + 7) + c[i % 4] and v = view of (8 x + 7) as [2, n // 2],
// through a chain of three kernels whose intermediates can share memory.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "runtime/cpu_builder.h"
#include "runtime/model/artifact.h"
#include "support/error.h"

namespace kiln::runtime::model::testing {

// `SCALE` is the affine kernels' factor (2 unless the source is built with another).
inline const char kChainKernels[] = R"(#include <stdint.h>
#include <omp.h>
typedef union { void* ptr; int64_t i; double f; } kiln_value_t;
#ifndef SCALE
#define SCALE 2.0f
#endif
int32_t k_affine(const kiln_value_t* args, int32_t num_args) {
  if (num_args != 3) return 1;
  const float* in = (const float*)args[0].ptr;
  float* out = (float*)args[1].ptr;
  for (int64_t i = 0; i < args[2].i; ++i) out[i] = in[i] * SCALE + 1.0f;
  return 0;
}
int32_t k_add4(const kiln_value_t* args, int32_t num_args) {
  if (num_args != 4) return 1;
  const float* a = (const float*)args[0].ptr;
  const float* c = (const float*)args[1].ptr;
  float* out = (float*)args[2].ptr;
  for (int64_t i = 0; i < args[3].i; ++i) out[i] = a[i] + c[i % 4];
  return 0;
}
int32_t k_fail(const kiln_value_t* args, int32_t num_args) {
  (void)args; (void)num_args;
  return 7;
}
int32_t kiln_model_set_num_threads(const kiln_value_t* args, int32_t num_args) {
  if (num_args < 1) return 1;
  omp_set_num_threads((int)args[0].i);
  return 0;
}
)";

inline codegen::ArgSlot Slot(codegen::SlotKind kind, int param, int dim = -1) {
  return {kind, kind == codegen::SlotKind::kShapeVar ? "n" : "p",
          kind == codegen::SlotKind::kShapeVar ? ir::DataType::Int(64) : ir::DataType::Float(32),
          param, dim};
}

inline GraphValue Value(std::string name, ValueKind kind, std::vector<DimExpr> shape) {
  GraphValue v;
  v.name = std::move(name);
  v.kind = kind;
  v.shape = std::move(shape);
  return v;
}

inline StepArg Arg(int64_t value) {
  StepArg a;
  a.value = value;
  return a;
}

// The graph of the header comment; `fail` makes the last kernel k_fail.
inline Graph ChainGraph(bool fail = false) {
  using codegen::SlotKind;
  DimExpr n = DimExpr::Var("n");
  DimExpr half;
  half.op = DimExpr::Op::kFloorDiv;
  half.operands = {n, DimExpr::Const(2)};
  Graph g;
  g.dims = {"n"};
  g.values = {Value("x", ValueKind::kInput, {n}),
              Value("c", ValueKind::kConstant, {DimExpr::Const(4)}),
              Value("t1", ValueKind::kKernelOutput, {n}),
              Value("t2", ValueKind::kKernelOutput, {n}),
              Value("t3", ValueKind::kKernelOutput, {n}),
              Value("y", ValueKind::kKernelOutput, {n}),
              Value("v", ValueKind::kView, {DimExpr::Const(2), half})};
  g.values[0].input_index = 0;
  g.values[1].constant_index = 0;
  g.values[6].source = 4;
  g.inputs = {0};
  g.outputs = {5, 6};
  g.tuple_output = true;
  g.constants = {{0, 16}};
  g.kernels = {{"k_affine",
                "affine",
                {Slot(SlotKind::kBufferData, 0), Slot(SlotKind::kBufferData, 1),
                 Slot(SlotKind::kShapeVar, 0, 0)}},
               {fail ? "k_fail" : "k_add4",
                "add4",
                {Slot(SlotKind::kBufferData, 0), Slot(SlotKind::kBufferData, 1),
                 Slot(SlotKind::kBufferData, 2), Slot(SlotKind::kShapeVar, 0, 0)}}};
  g.steps = {{0, {Arg(0), Arg(2)}, {2}},
             {0, {Arg(2), Arg(3)}, {3}},
             {0, {Arg(3), Arg(4)}, {4}},
             {1, {Arg(4), Arg(1), Arg(5)}, {5}}};
  return g;
}

// c = [0.5, -1, 2, 0] as float32 bytes.
inline std::string ChainConstants() {
  float c[4] = {0.5f, -1.0f, 2.0f, 0.0f};
  return std::string(reinterpret_cast<const char*>(c), sizeof c);
}

inline Manifest ChainManifest() {
  Manifest m;
  m.target = "llvm";
  m.device_key = "cpu-test";
  m.model = "chain";
  m.entry = "main";
  m.tasks = {{"affine", "0000000000000001", "kernel", 5, 1e-6, "k_affine"},
             {"add4", "0000000000000002", "kernel", std::nullopt, std::nullopt, "k_add4"}};
  return m;
}

// Writes the chain model into `dir` (the library built through `cache_dir`).
inline void WriteChainArtifact(const std::string& dir, const std::string& cache_dir,
                               bool fail = false, const std::string& scale = "") {
  BuildOptions build;
  build.cache_dir = cache_dir;
  std::string source = kChainKernels;
  if (!scale.empty()) source = "#define SCALE " + scale + "\n" + source;
  BuildResult built = BuildCSource(source, build);
  KILN_CHECK(built.ok, ErrorKind::kInternal, "chain kernels: " + built.error);
  WriteArtifact(dir, ChainManifest(), ChainGraph(fail), ChainConstants(), built.library_path);
}

// A private temporary directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-model-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kiln::runtime::model::testing
