// The CUDA target: a lowered TensorIR function to one CUDA C++ translation unit for NVRTC,
// holding one `extern "C" __global__` kernel per launch of codegen/gpu's plan (blockIdx /
// threadIdx for bound loops, __shared__ arrays, __syncthreads barriers, vectors of up to 4
// lanes as aligned structs, half through cuda_fp16.h when a float16 value appears).
//
// Kernel parameters, the same for every kernel of a function: one 8-byte parameter per slot of
// the KernelSignature (codegen/kernel_abi.h) -- a buffer slot is a device pointer, an integer
// or shape slot a `long long`, a float slot a `double` -- then one device pointer per
// workspace buffer of the launch plan. A runtime passes `&slot` for each, exactly as it packs
// the CPU kernel's argument array. The source needs no header but cuda_fp16.h (and only with
// float16), so it compiles with NVRTC alone.
#pragma once

#include <string>

#include "codegen/gpu/limits.h"
#include "codegen/target.h"

namespace kiln::codegen {

struct CudaEmitOptions {
  // The device the code must fit (threads and shared memory per block); a function that does
  // not fit is refused with kiln::Error(kUnsupported) naming the loop or buffer. The defaults
  // are every CUDA GPU's since compute capability 3.0 (1024 threads, 48 KiB static shared).
  gpu::GpuLimits limits = {.fp16 = true};
};

// The CUDA source (language "cuda") and launch plan of `lowered` (the result of Lower with the
// target's options), its kernels named `symbol` (one) or `symbol`_k0, _k1, ... (several).
// Throws kiln::Error(kUnsupported) naming what CUDA cannot express or what exceeds the limits.
EmittedSource EmitCuda(const ir::PrimFunc& lowered, const std::string& symbol,
                       const CudaEmitOptions& options = {});

class CudaTarget : public CodegenTarget {
 public:
  explicit CudaTarget(CudaEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "cuda"; }
  LowerOptions DefaultLowerOptions() const override;
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitCuda(lowered, symbol, options_);
  }

 private:
  CudaEmitOptions options_;
};

}  // namespace kiln::codegen
