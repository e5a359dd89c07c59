// Packing a kernel's arguments: the values of a PrimFunc's parameters (the same ArgValues
// the reference interpreter takes) laid out in the packed slots of codegen/kernel_abi.h,
// checked against the kernel's signature so that a mismatch is an error, not a wild pointer.
#pragma once

#include <string>
#include <vector>

#include "codegen/kernel_abi.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/cpu_module.h"

namespace kiln::runtime {

// The packed slots for `args` (one per parameter). Tensor slots point into the tensors'
// storage, which must outlive the call. Throws kiln::Error(kType) naming the kernel, the
// parameter and what was expected on a count, kind, dtype or rank mismatch.
std::vector<codegen::PackedValue> PackArguments(const codegen::KernelSignature& signature,
                                                std::vector<ir::ArgValue>& args);

// Calls `kernel`; throws kiln::Error(kRuntime) naming the symbol when it returns non-zero.
void CallKernel(KernelFunction kernel, const codegen::KernelSignature& signature,
                const std::vector<codegen::PackedValue>& packed);

// How many parameters `signature` covers (one more than the largest parameter index).
int NumParams(const codegen::KernelSignature& signature);

}  // namespace kiln::runtime
