// The C target: lowered TensorIR to one self-contained C11 translation unit holding the
// packed entry point of codegen/kernel_abi.h. Parallel loops and SIMD reductions use OpenMP,
// vector expressions GCC's vector extensions, float32 transcendentals the inline helpers of
// codegen/c/c_math.h, and float16/bfloat16 are stored as uint16_t and computed in float. The
// source needs only <stdint.h>, <string.h>, <math.h>, <stdlib.h> (and <omp.h> when it uses
// OpenMP) and compiles warning-free with
// `gcc -O3 -march=native -fno-math-errno -fopenmp -shared -fPIC -std=c11 -Wall`.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/target.h"

namespace kiln::codegen {

struct CEmitOptions {
  // Alignment in bytes assumed for a parameter buffer whose align is the default (0);
  // Kiln's host tensors are 64-byte aligned. 0 assumes nothing.
  int64_t default_param_alignment = 64;
  // Lets the compiler fuse a multiply and an add into one FMA (rounding once instead of
  // twice). Results then differ from the reference interpreter within float tolerance.
  bool fp_contract = true;
  // float32 (and float16, computed in float) exp, erf, tanh, sigmoid and log through the
  // target's branch-free inline helpers (codegen/c/c_math.h), which vectorize; false: libm's
  // expf, erff, ..., which GCC calls one element at a time. float64 always uses libm.
  bool inline_math = true;
  // A serial innermost loop that folds one accumulator with +, max or min over contiguous
  // loads is printed as `#pragma omp simd reduction(...)` on a scalar accumulator, which lets
  // GCC reassociate the fold into vector partial results (without it, float addition keeps
  // its order and runs one element at a time). Sums then differ from the serial order by
  // rounding, within float tolerance.
  bool simd_reductions = true;
};

// The C source for `lowered` (the result of Lower) exported as `symbol`.
EmittedSource EmitC(const ir::PrimFunc& lowered, const std::string& symbol,
                    const CEmitOptions& options = {});

class CTarget : public CodegenTarget {
 public:
  explicit CTarget(CEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "c"; }
  // Folds that the emitter vectorizes stay loops through unrolling.
  LowerOptions DefaultLowerOptions() const override {
    LowerOptions lower;
    lower.unroll.keep_vectorized_folds = options_.simd_reductions;
    return lower;
  }
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitC(lowered, symbol, options_);
  }

 private:
  CEmitOptions options_;
};

}  // namespace kiln::codegen
