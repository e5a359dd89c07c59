// A lowering pass for CPU targets (codegen/lower.h orders them): decides where each allocation
// lives.
#pragma once

#include <cstdint>

#include "ir/function.h"

namespace kiln::codegen {

// Storage classes an Allocate's buffer carries in its scope after this pass.
inline constexpr char kStorageStack[] = "stack";
inline constexpr char kStorageHeap[] = "heap";

struct StorageOptions {
  int64_t stack_limit_bytes = 64 * 1024;  // larger (or symbolic) allocations go to the heap
  int64_t alignment = 64;                 // bytes; at least the widest vector
};

// Gives every Allocate (whatever its scope: "global", "shared", "local"; on a CPU they are
// all host memory) a storage class: "stack" for an allocation whose size is a constant no
// larger than stack_limit_bytes, "heap" otherwise; and an alignment of at least
// options.alignment. The buffer is replaced (with every access to it) by one whose scope is
// the storage class. Allocations stay where they are, so one inside a parallel loop is
// private to each iteration.
ir::PrimFunc PlanStorage(const ir::PrimFunc& f, const StorageOptions& options = {});

}  // namespace kiln::codegen
