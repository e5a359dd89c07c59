// The lowering driver: turns a scheduled TensorIR function into the loop-level form the
// emitters print. Each step is one pass in codegen/passes/; this file only orders them.
#pragma once

#include <functional>
#include <string_view>

#include "codegen/passes/plan_storage.h"
#include "codegen/passes/unroll_loops.h"
#include "codegen/passes/vectorize_loops.h"
#include "ir/function.h"

namespace kiln::codegen {

struct LowerOptions {
  UnrollOptions unroll;
  VectorizeOptions vectorize;
  StorageOptions storage;
  // CPU targets decide stack or heap per allocation; GPU targets keep memory scopes.
  bool plan_storage = true;
  // GPU targets: the scheduled function is first checked for what GPU lowering refuses
  // (codegen/gpu/check_schedule.h).
  bool gpu = false;
  // Called after each pass with its name and result, so tools can show every step. The IR
  // is also logged at debug level.
  std::function<void(std::string_view pass, const ir::PrimFunc& f)> after_pass;
};

// Runs, in order: PlaceAllocations (block allocations to where they are used), LowerBlocks
// (blocks to loops, init and predicates to ifs), CompactBuffers (allocations shrunk to what
// they hold), FlattenBuffers, Simplify, PartitionLoops (predicate handling: loops split where
// predicates are known), UnrollLoops, VectorizeLoops, Simplify (to fold what unrolling and
// vectorizing substituted), PlanStorage (stack or heap, alignment).
ir::PrimFunc Lower(const ir::PrimFunc& f, const LowerOptions& options = {});

}  // namespace kiln::codegen
