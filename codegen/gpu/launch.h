// What the host needs to launch the kernels of one GPU function: for each kernel its entry
// point and its grid and block extents (from the extents of the loops bound to blockIdx and
// threadIdx), launched in order, and the global scratch buffers the host allocates for values
// that one kernel writes and a later one reads. Every GPU emitter (OpenCL, Vulkan, CUDA)
// returns this with its source; every GPU runtime launches from it.
//
// Kernel arguments, the same list for every kernel of a function: one per slot of the
// function's KernelSignature (codegen/kernel_abi.h: a buffer slot is a device buffer, a scalar
// or shape slot its value), then one device buffer per workspace entry, in order. How a
// language passes them (OpenCL kernel arguments, Vulkan descriptor bindings and push constants,
// CUDA parameters) is its emitter's and runtime's business.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace kiln::codegen::gpu {

// Launch extents in x, y, z. An expression may use the function's shape variables and integer
// scalar parameters (a dynamic shape); it is 1 on an axis no loop binds.
struct LaunchExtents {
  std::array<ir::Expr, 3> grid;   // thread blocks (work groups) per axis
  std::array<ir::Expr, 3> block;  // threads (work items) per block per axis
};

struct KernelLaunch {
  std::string symbol;  // the kernel's entry point in the emitted source
  LaunchExtents extents;
  int64_t shared_bytes = 0;  // static shared (local / workgroup) memory of one block
};

// A global buffer private to one run of the function, allocated by the host (uninitialized)
// and passed to every kernel after the signature's slots.
struct WorkspaceBuffer {
  std::string name;
  ir::DataType dtype;
  ir::Expr elements;  // element count; may use shape variables like the extents
};

struct LaunchPlan {
  std::vector<KernelLaunch> kernels;  // launched in this order, each after the previous ends
  std::vector<WorkspaceBuffer> workspace;
};

// Launch extents with every variable given a value.
struct ConcreteLaunch {
  std::string symbol;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
};

// `e` evaluated with `values` (variable name -> value: the shape variables and integer scalar
// parameters of the signature). Throws kiln::Error(kInvalidIR) naming a variable without a
// value, kRuntime when the result is not positive.
int64_t EvaluateExtent(const ir::Expr& e, const std::map<std::string, int64_t>& values);
ConcreteLaunch Concretize(const KernelLaunch& launch, const std::map<std::string, int64_t>& values);

// "grid (4, 1, 1) block (64, 1, 1)" for messages and logs.
std::string DescribeLaunch(const ConcreteLaunch& launch);

}  // namespace kiln::codegen::gpu
