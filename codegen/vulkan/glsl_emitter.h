// The Vulkan target: a function lowered with gpu::GpuLowerOptions() to one GLSL 4.50 compute
// shader source holding every kernel of gpu::LowerToKernels (kernel SYMBOL's main compiled
// under the macro codegen/vulkan/vulkan_abi.h names), with the launch plan beside it. Buffers
// are std430 storage buffers and scalars push constants (vulkan_abi.h); thread indices are
// gl_WorkGroupID / gl_LocalInvocationID, the work group size specialization constants; shared
// buffers are `shared` arrays, barriers memoryBarrierShared + memoryBarrierBuffer + barrier;
// vectors of 2 to 4 lanes use GLSL's vector types. Integers of 8, 16 and 64 bits and float16
// use GL_EXT_shader_explicit_arithmetic_types (float16 only when the device has it), bool is
// stored as uint8_t in buffers. The runtime compiles the source with shaderc
// (runtime/vulkan/).
#pragma once

#include <string>

#include "codegen/gpu/limits.h"
#include "codegen/target.h"

namespace kiln::codegen {

struct GlslEmitOptions {
  gpu::GpuLimits limits;  // the device's; a function that does not fit is refused
};

// The GLSL source and launch plan for `lowered`; kernels are named `symbol` (one) or
// `symbol`_k0, ... (several). Throws kiln::Error(kUnsupported) naming what GLSL or the device
// cannot express (a type, an intrinsic, a limit).
EmittedSource EmitGlsl(const ir::PrimFunc& lowered, const std::string& symbol,
                       const GlslEmitOptions& options = {});

class VulkanTarget : public CodegenTarget {
 public:
  explicit VulkanTarget(GlslEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "vulkan"; }
  LowerOptions DefaultLowerOptions() const override;
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitGlsl(lowered, symbol, options_);
  }

 private:
  GlslEmitOptions options_;
};

}  // namespace kiln::codegen
