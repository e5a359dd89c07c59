// The Metal target: a function lowered with gpu::GpuLowerOptions() to one Metal Shading
// Language source (`#include <metal_stdlib>`, `using namespace metal;`) holding one
// `kernel void` function per kernel of gpu::LowerToKernels, with the launch plan beside it.
// Arguments follow codegen/metal/metal_abi.h (device buffers at [[buffer(i)]], scalars in a
// `constant KilnArgs&`); thread indices are [[threadgroup_position_in_grid]] and
// [[thread_position_in_threadgroup]]; shared buffers are `threadgroup` arrays at the kernel's
// scope, barriers threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
// vectors of 2 to 4 lanes use MSL's vector types, float16 is `half`, bool is stored as uchar.
// What MSL lacks (erf, log1p, C's pow of a negative base) comes from small helpers in the
// source. Refused by name (kiln::Error kUnsupported naming the function, the kernel and the
// limit): float64 and bfloat16, more than 31 buffer arguments, threadgroup memory or threads
// per threadgroup past the limits, 64-bit integers on a device without them.
#pragma once

#include <string>

#include "codegen/gpu/limits.h"
#include "codegen/metal/metal_abi.h"
#include "codegen/target.h"

namespace kiln::codegen {

struct MslEmitOptions {
  // The device the code must fit; the defaults are every Metal GPU's (metal::MetalLimits()).
  gpu::GpuLimits limits = metal::MetalLimits();
};

// The MSL source (language "msl") and launch plan of `lowered` (the result of Lower with the
// target's options), its kernels named `symbol` (one) or `symbol`_k0, _k1, ... (several).
EmittedSource EmitMsl(const ir::PrimFunc& lowered, const std::string& symbol,
                      const MslEmitOptions& options = {});

class MetalTarget : public CodegenTarget {
 public:
  explicit MetalTarget(MslEmitOptions options = {}) : options_(options) {}
  std::string Name() const override { return "metal"; }
  LowerOptions DefaultLowerOptions() const override;
  EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) override {
    return EmitMsl(lowered, symbol, options_);
  }

 private:
  MslEmitOptions options_;
};

}  // namespace kiln::codegen
