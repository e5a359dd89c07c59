// The WebGPU target: a function lowered with gpu::GpuLowerOptions() to one WGSL module holding
// every kernel of gpu::LowerToKernels (kernel SYMBOL is entry point SYMBOL), with the launch plan
// beside it. Arguments follow codegen/webgpu/webgpu_abi.h: storage buffers, then one uniform
// struct of 32-bit scalars; the workgroup size and the logical grid are pipeline-overridable
// constants, and the grid is folded so that no dispatch dimension passes the device's limit.
// Shared buffers are module-scope `var<workgroup>` arrays, barriers storageBarrier +
// workgroupBarrier, vectors of 2 to 4 lanes WGSL's vecN<T>.
//
// WGSL has 32-bit integers only. 64-bit integers of the IR (indices, shape variables) are
// computed in i32: every buffer WebGPU can bind is under maxStorageBufferBindingSize (2 GiB at
// most), so every element index fits. A buffer or a literal that needs more is refused by name,
// as are buffers of 8- and 16-bit integers and bool (WGSL storage holds 32-bit scalars and f16),
// float64, bfloat16, float16 without the shader-f16 feature, and a kernel that passes the
// device's limits (threads, workgroup storage, storage buffers per stage).
#pragma once

#include <string>

#include "codegen/target.h"
#include "codegen/webgpu/webgpu_abi.h"

namespace kiln::codegen {

struct WgslEmitOptions {
  webgpu::WebGpuLimits limits = webgpu::DefaultWebGpuLimits();
};

// The WGSL source and launch plan for `lowered`; kernels are named `symbol` (one) or
// `symbol`_k0, ... (several). Throws kiln::Error(kUnsupported) naming what WGSL or the device
// cannot express (a type, an intrinsic, a limit) and the function.
EmittedSource EmitWgsl(const ir::PrimFunc& lowered, const std::string& symbol,
                       const WgslEmitOptions& options = {});

class WebGpuTarget : public CodegenTarget {
 public:
  explicit WebGpuTarget(WgslEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "webgpu"; }
  LowerOptions DefaultLowerOptions() const override;
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitWgsl(lowered, symbol, options_);
  }

 private:
  WgslEmitOptions options_;
};

}  // namespace kiln::codegen
