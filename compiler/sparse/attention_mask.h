// The mask of block-sparse attention as SparseTIR's sparse transformers run it: a sequence of
// L tokens cut into blocks of b tokens (L a multiple of b), and a pattern over the L/b x L/b
// blocks saying which key blocks each query block attends to (a BSR structure with b x b
// blocks, shared by every head). The attention kernels (attention_workloads.h) are built for
// one mask: its layout is their indptr and indices.
//
// Every block row must hold a block: a query with no key has no softmax (a dense masked
// attention gives NaN there), and the output kernel writes a row at its first block.
#pragma once

#include <cstdint>
#include <string>

#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse {

struct AttentionMask {
  ir::sparse::CsrMatrix layout;  // block rows x block columns; the values are not used
  int64_t block = 0;             // tokens per block (b)
  std::string description;       // where the mask comes from, in a few words

  int64_t SeqLen() const { return layout.rows * block; }
  int64_t NumBlockRows() const { return layout.rows; }
  int64_t Blocks() const { return layout.nnz(); }
  // Nonzeros of the token-level mask: Blocks() * b * b.
  int64_t TokenNnz() const { return Blocks() * block * block; }
  // The layout's structure hash mixed with the block size.
  uint64_t StructureHash() const;
  // The token-level L x L mask (each block a dense square of ones).
  ir::sparse::CsrMatrix TokenMask() const;
};

// The mask of block pattern `layout` (square) and block size `block`: kiln::Error(kUnsupported)
// for a block size < 1, a layout that is not square or breaks CsrMatrix's invariants, or a
// block row with no block (naming it).
AttentionMask MaskFromLayout(ir::sparse::CsrMatrix layout, int64_t block,
                             std::string description = "");

// A BigBird mask (ir/sparse/block_mask.h: a band of 3 blocks, 2 global blocks, 3 random
// blocks per row, seed 1; the data set bigbird-4096-64 is bigbird(4096, 64)).
// kiln::Error(kUnsupported) when seq_len is not a multiple of block (the kernels take whole
// blocks only), naming both.
AttentionMask BigBirdMask(int64_t seq_len, int64_t block);

// A mask as a user names it: "bigbird-L-b" (BigBirdMask(L, b)), or a Matrix Market file of the
// block pattern (one entry per block; `block` gives the block size, required then).
// kiln::Error(kUnsupported) for a name of neither form or a missing block size, the readers'
// errors for a broken file, and MaskFromLayout's and BigBirdMask's.
AttentionMask LoadAttentionMask(const std::string& argument, int64_t block = 0);

}  // namespace kiln::compiler::sparse
