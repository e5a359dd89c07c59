// What the C end-to-end tests share: a kernel compiled with gcc (warnings as errors) into a
// shared object of its own, the packed arguments, and RunAndCompare, which checks a kernel
// against the reference interpreter and the interpreter against a test's own C++ reference.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"

namespace kiln::codegen::testing {

using ir::ArgValue;
using ir::CompareTensors;
using ir::DataType;
using ir::DefaultTolerance;
using ir::HostTensor;
using ir::Interpret;
using ir::PrimFunc;
using ir::TensorComparison;
using ir::Tolerance;

using Reference = std::function<void(std::vector<ArgValue>&)>;

// Compiles `source` into a shared object in a fresh temporary folder and loads `symbol`.
class CompiledKernel {
 public:
  // `unloadable`: opened so that Unload closes it for good (only for kernels that start no
  // OpenMP threads).
  explicit CompiledKernel(const EmittedSource& source, bool unloadable = false) {
    char dir_template[] = "/tmp/kiln_codegen_XXXXXX";
    char* dir = mkdtemp(dir_template);
    if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    std::ofstream(dir_ / "kernel.c") << source.code;
    std::string cmd =
        "gcc -O3 -march=native -fno-math-errno -fopenmp -shared -fPIC -std=c11 -Wall -Wextra "
        "-Werror -o " +
        (dir_ / "kernel.so").string() + " " + (dir_ / "kernel.c").string() + " -lm 2> " +
        (dir_ / "log.txt").string();
    if (std::system(cmd.c_str()) != 0) {
      std::stringstream log;
      log << std::ifstream(dir_ / "log.txt").rdbuf();
      error_ = "gcc failed:\n" + log.str() + "\n--- source ---\n" + source.code;
      return;
    }
    // Never unloaded: unloading a kernel that started OpenMP threads would pull libgomp from
    // under its idle workers.
    handle_ = dlopen((dir_ / "kernel.so").c_str(),
                     RTLD_NOW | RTLD_LOCAL | (unloadable ? 0 : RTLD_NODELETE));
    if (handle_ == nullptr) {
      error_ = dlerror();
      return;
    }
    fn_ = reinterpret_cast<Fn>(dlsym(handle_, source.signature.symbol.c_str()));
    if (fn_ == nullptr) error_ = "symbol not found";
  }
  ~CompiledKernel() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& error() const { return error_; }
  void Unload() {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = nullptr;
    fn_ = nullptr;
  }
  int32_t Call(const std::vector<PackedValue>& args) const {
    return fn_(args.data(), static_cast<int32_t>(args.size()));
  }

 private:
  using Fn = int32_t (*)(const PackedValue*, int32_t);
  std::filesystem::path dir_;
  void* handle_ = nullptr;
  Fn fn_ = nullptr;
  std::string error_;
};

inline std::vector<ArgValue> CloneArgs(const std::vector<ArgValue>& args) {
  std::vector<ArgValue> out;
  for (const ArgValue& a : args) {
    if (const auto* t = std::get_if<HostTensor>(&a)) {
      out.emplace_back(t->Clone());
    } else {
      out.push_back(a);
    }
  }
  return out;
}

inline std::vector<PackedValue> Pack(const KernelSignature& sig, std::vector<ArgValue>& args) {
  std::vector<PackedValue> packed;
  for (const ArgSlot& slot : sig.slots) {
    PackedValue v{};
    ArgValue& arg = args.at(slot.param_index);
    switch (slot.kind) {
      case SlotKind::kBufferData:
        v.ptr = std::get<HostTensor>(arg).data();
        break;
      case SlotKind::kScalarInt:
        v.i = std::get<int64_t>(arg);
        break;
      case SlotKind::kScalarFloat:
        v.f = std::get<double>(arg);
        break;
      case SlotKind::kShapeVar:
        v.i = std::get<HostTensor>(arg).shape().at(slot.dim);
        break;
    }
    packed.push_back(v);
  }
  return packed;
}

// Expects every tensor of `actual` to match `expected` within the dtype's tolerance.
inline void ExpectTensorsMatch(const std::string& what, const std::vector<ArgValue>& expected,
                               const std::vector<ArgValue>& actual, const std::string& context) {
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto* want = std::get_if<HostTensor>(&expected[i]);
    if (want == nullptr) continue;
    const HostTensor& got = std::get<HostTensor>(actual[i]);
    Tolerance tol = DefaultTolerance(want->dtype());
    TensorComparison cmp = CompareTensors(*want, got, tol.rtol, tol.atol);
    EXPECT_TRUE(cmp.ok) << what << " argument " << i << ": " << cmp.message << "\n" << context;
  }
}

// Lowers, emits, compiles and runs `f`; compares every tensor with the reference
// interpreter, and the interpreter with the test's own C++ `reference`. Returns the
// generated source so a test can check how the kernel was written.
inline std::string RunAndCompare(const PrimFunc& f, const std::vector<ArgValue>& inputs,
                                 const Reference& reference, const CEmitOptions& options = {}) {
  std::vector<ArgValue> expected = CloneArgs(inputs);
  Interpret(f, expected);
  std::vector<ArgValue> by_hand = CloneArgs(inputs);
  reference(by_hand);
  ExpectTensorsMatch(f->name + ": interpreter vs hand-written reference", by_hand, expected, "");
  EmittedSource source =
      EmitC(Lower(f, CTarget(options).DefaultLowerOptions()), "kiln_" + f->name, options);
  CompiledKernel kernel(source);
  EXPECT_EQ(kernel.error(), "");
  if (!kernel.error().empty()) return source.code;
  std::vector<ArgValue> actual = CloneArgs(inputs);
  std::vector<PackedValue> packed = Pack(source.signature, actual);
  EXPECT_EQ(kernel.Call(packed), 0);
  // A wrong argument count is refused, not run.
  packed.push_back(PackedValue{});
  EXPECT_NE(kernel.Call(packed), 0);
  ExpectTensorsMatch(f->name + ": generated C", expected, actual, source.code);
  return source.code;
}

inline HostTensor Rand(DataType t, std::vector<int64_t> shape, uint64_t seed, double lo = -1,
                       double hi = 1) {
  return HostTensor::Random(t, std::move(shape), seed, lo, hi);
}

inline HostTensor& T(std::vector<ArgValue>& args, size_t i) {
  return std::get<HostTensor>(args[i]);
}

inline const DataType kF32 = DataType::Float(32);

}  // namespace kiln::codegen::testing
