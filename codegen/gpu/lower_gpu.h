// The GPU half of lowering, shared by the OpenCL, Vulkan and CUDA targets: turns a function
// lowered with GpuLowerOptions() (storage scopes kept) into kernels and their launch plan.
//
// - Kernels: each top-level statement of the body that holds a loop bound to blockIdx or
//   threadIdx becomes one kernel; consecutive statements without one become a kernel of one
//   thread. Kernels run in order, so what one writes the next reads (global memory is coherent
//   between launches, not between the blocks of one launch).
// - Launch extents: per kernel and axis, the largest extent of the loops bound to it. A bound
//   loop stays in the body as a For with ForKind::kThreadBinding; the emitter prints it as its
//   index (min + the thread or block index) guarded by `index < extent` when the extent is
//   smaller than the launch's. A loop bound to a tag that an enclosing loop already binds
//   shares its index (a cooperative fetch under the compute's threadIdx loop). vthread loops
//   become serial loops.
// - Code at block level (under the blockIdx loops, outside every threadIdx loop) runs once per
//   block, as the serial program says: it is wrapped in loops of extent 1 bound to the block's
//   threadIdx axes, which the emitter prints as `if (threadIdx == 0)`.
// - Storage: "shared" allocations are hoisted to the kernel's scope (GpuKernel::shared; their
//   sizes must be constant); "global" allocations outside every kernel become workspace
//   buffers; "local" ones stay where they are (one copy per thread).
// - Barriers (codegen/gpu/barriers.h) where a shared buffer written by some threads is read or
//   overwritten by others.
// - Limits: threads per block, extent per axis and shared memory per block are checked against
//   GpuLimits; a function that does not fit is refused with kiln::Error(kUnsupported) naming
//   the limit, the loop or the buffer, and the numbers.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/launch.h"
#include "codegen/gpu/limits.h"
#include "codegen/lower.h"
#include "ir/function.h"

namespace kiln::codegen::gpu {

// Lowering options of every GPU target: storage scopes kept (no stack/heap planning).
LowerOptions GpuLowerOptions();

struct GpuKernel {
  ir::Stmt body;
  std::vector<ir::Buffer> shared;  // allocated once per block, at the kernel's scope
  KernelLaunch launch;
};

struct GpuProgram {
  std::vector<GpuKernel> kernels;
  std::vector<ir::Buffer> workspace;  // in LaunchPlan::workspace's order
  LaunchPlan plan;
};

// The kernels of `lowered` (the result of Lower with GpuLowerOptions()), named `symbol` for
// one kernel and `symbol`_k0, `symbol`_k1, ... for several. Throws kiln::Error(kUnsupported)
// for what a GPU cannot run (a limit exceeded, a shared buffer of symbolic size, two loops
// bound to one axis with different symbolic extents) naming the loop or the buffer.
GpuProgram LowerToKernels(const ir::PrimFunc& lowered, const std::string& symbol,
                          const GpuLimits& limits);

// Whether two extents are provably equal (constants, or symbolic ones that simplify to the
// same): a bound loop whose extent equals its launch's needs no guard.
bool SameExtent(const ir::Expr& a, const ir::Expr& b);

// "blockIdx" / "threadIdx" and the axis 0..2 of a thread tag ("threadIdx.y" -> 1); false for
// other tags (vthread).
bool ParseThreadTag(const std::string& tag, bool* is_block, int* axis);

}  // namespace kiln::codegen::gpu
