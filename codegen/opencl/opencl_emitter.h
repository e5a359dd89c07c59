// The OpenCL target: a function lowered with gpu::GpuLowerOptions() to OpenCL C 1.2, one
// `__kernel` per kernel of gpu::LowerToKernels, with the launch plan beside the source. Buffers
// are `__global` pointers (`restrict` under tir.noalias), scalars are passed by value in their
// own type (bool as char), shared buffers are `__local` arrays, "local" ones private arrays or
// registers. float16 is stored as half and computed in float (vload_half / vstore_half need no
// extension), bfloat16 as ushort computed in float; vectors of 2 to 4 lanes use OpenCL's vector
// types. The source builds with
// clBuildProgram at run time (runtime/opencl/).
#pragma once

#include <string>

#include "codegen/gpu/limits.h"
#include "codegen/target.h"

namespace kiln::codegen {

struct OpenCLEmitOptions {
  gpu::GpuLimits limits;  // the device's; a function that does not fit is refused
};

// The OpenCL C source and launch plan for `lowered`; kernels are named `symbol` (one) or
// `symbol`_k0, ... (several). Throws kiln::Error(kUnsupported) naming what OpenCL cannot express
// or what exceeds the limits.
EmittedSource EmitOpenCL(const ir::PrimFunc& lowered, const std::string& symbol,
                         const OpenCLEmitOptions& options = {});

class OpenCLTarget : public CodegenTarget {
 public:
  explicit OpenCLTarget(OpenCLEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "opencl"; }
  LowerOptions DefaultLowerOptions() const override;
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitOpenCL(lowered, symbol, options_);
  }

 private:
  OpenCLEmitOptions options_;
};

}  // namespace kiln::codegen
