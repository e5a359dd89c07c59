// GpuEmitter: what the OpenCL, Vulkan (GLSL) and CUDA emitters share on top of CLikeEmitter:
// loops bound to blockIdx/threadIdx printed as their index (guarded where the loop is shorter
// than the launch), barriers, and the kernel's shared buffers declared before its body. A
// subclass spells the index and the barrier, and writes each kernel's entry around
// EmitKernelBody.
#pragma once

#include <optional>
#include <string>

#include "codegen/c_like_emitter.h"
#include "codegen/gpu/lower_gpu.h"

namespace kiln::codegen::gpu {

class GpuEmitter : public CLikeEmitter {
 protected:
  // An int expression for the block (work group) or thread (local) index on `axis` (0..2).
  virtual std::string ThreadIndex(bool is_block, int axis) = 0;
  // One barrier statement of the language (a full line).
  virtual void EmitBarrier() = 0;
  // Declares shared buffer `buffer` as `name` (the subclass's spelling: "__local float a[64];").
  virtual void EmitSharedDecl(const ir::Buffer& buffer, const std::string& name) = 0;

  // `index` (an int expression) converted to the dtype `t` of the loop bound to it; C casts.
  virtual std::string ConvertThreadIndex(ir::DataType t, const std::string& index);
  // A line that keeps a compiler quiet about constant `name` when unused ("(void)x;" in C); the
  // shading languages need none.
  virtual void MarkUsed(const std::string& name);

  // Declares `kernel`'s shared buffers, then prints its body, at the current indentation.
  void EmitKernelBody(const GpuKernel& kernel);
  const GpuKernel* kernel() const { return kernel_; }

  void EmitThreadBinding(const ir::ForNode* op) override;
  void EmitEvaluate(const ir::EvaluateNode* op) override;

  // The constant element count of `buffer` (a local or shared allocation); kiln::Error
  // (kUnsupported) naming it when its size is symbolic.
  int64_t ConstantElements(const ir::Buffer& buffer);

  // `e` (a scalar integer) rewritten in int32 arithmetic where every part of it provably fits
  // (the loops' and shape variables' bounds), or nullopt. GPUs do 64-bit integer arithmetic
  // slowly, and lavapipe (Mesa 22.3) computed some int64 index arithmetic and comparisons
  // wrongly where the same shader in 32-bit was right.
  std::optional<ir::Expr> NarrowTo32(const ir::Expr& e);

 private:
  const GpuKernel* kernel_ = nullptr;
};

}  // namespace kiln::codegen::gpu
