// Small TensorIR functions for schedule tests, built directly with the IR builders in the
// root-block convention: the body is the BlockRealize of a block "root" without iter vars;
// each stage is a nest of serial loops around one block whose iter vars are bound to them.
#pragma once

#include <cstdint>

#include "ir/function.h"
#include "search/schedule/schedule.h"

namespace kiln::search::testing {

// C[i, j] = sum_k A[i, k] * B[k, j] (float32); block "C", loops i, j, k.
ir::PrimFunc MakeMatmul(int64_t m, int64_t n, int64_t k);
// B[i, j] = A[i, j] * 2; C[i, j] = B[i, j] + 1 with B an intermediate (blocks "B", "C").
ir::PrimFunc MakeTwoStage(int64_t m, int64_t n);
// C = A x B as MakeMatmul, then D[i, j] = max(C[i, j], 0) with C an intermediate.
ir::PrimFunc MakeMatmulRelu(int64_t m, int64_t n, int64_t k);

}  // namespace kiln::search::testing

#include <string>

namespace kiln::search::testing {

// The loop and block skeleton of a function, one line per loop or block, indented by depth:
//   for i_0 in 4 parallel
//     block C [i_0 * 32 + i_1, j, k] if i_0 * 32 + i_1 < 100
// Independent of the TVMScript printer, so structure tests read the same on every change
// to it.
std::string Skeleton(const ir::PrimFunc& f);
// Index expressions as the skeleton prints them.
std::string ExprText(const ir::Expr& e);

// Runs `original` and `scheduled` on the same random inputs and returns an empty string when
// every output agrees (or a description of the first difference).
std::string CompareNumerics(const ir::PrimFunc& original, const ir::PrimFunc& scheduled,
                            uint64_t seed = 7);

// Loop moves the random-schedule tests draw: a random order of a random subset (two or more)
// of `loops`, and a fuse of two neighbours. Each does nothing with fewer than two loops; an
// invalid draw throws kiln::Error as the primitive does.
void RandomReorder(Schedule& sch, const std::vector<LoopRV>& loops, RandomEngine& rng);
void RandomFuseOfNeighbours(Schedule& sch, const std::vector<LoopRV>& loops, RandomEngine& rng);

}  // namespace kiln::search::testing
