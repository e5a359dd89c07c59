// Barrier insertion inside one GPU kernel, as TVM's ThreadSync: a barrier goes between a
// statement that writes a tracked buffer (shared memory, or global memory that block-level
// code of one thread shares with the others) and a later one that reads or writes it, and
// between a read and a later write; a loop whose iterations pass a buffer from its end to its
// start through such an access gets one at the top of its body.
#pragma once

#include <array>
#include <string_view>
#include <unordered_set>

#include "ir/stmt.h"

namespace kiln::codegen::gpu {

// The barrier statement: Evaluate(Call(int32, kStorageSync, {})). All threads of a block wait
// at it, and writes to shared and global memory before it are visible after it.
inline constexpr std::string_view kStorageSync = "tvm_storage_sync";
ir::Stmt Barrier();
bool IsBarrier(const ir::Stmt& s);

// `body` (one kernel, launched with `block` threads per axis) with barriers inserted for the
// buffers whose data variables are in `tracked`. Barriers are placed only where every thread of
// the block passes: not under a loop bound to threadIdx whose extent is below the block's (that
// includes block-level code, run by one thread), nor under a condition on a thread index.
ir::Stmt InsertBarriers(const ir::Stmt& body, const std::unordered_set<const ir::VarNode*>& tracked,
                        const std::array<ir::Expr, 3>& block);

}  // namespace kiln::codegen::gpu
