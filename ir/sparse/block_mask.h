// Block-sparse attention masks in the style of BigBird and Longformer (the masks SparseTIR's
// sparse attention runs on): the sequence is cut into blocks of `block` tokens (the last block
// shorter when block does not divide seq_len), and block row i attends to
//   - its band: block columns i - local_blocks .. i + local_blocks;
//   - the global blocks: the first `global_blocks` block columns, and the first
//     `global_blocks` block rows attend to every block;
//   - `random_blocks` more block columns drawn without replacement (seeded, seeded_random.h)
//     from those not already chosen (fewer when fewer remain).
// BlockMaskLayout is the pattern of blocks (blocks x blocks); BlockSparseMask is the token-level
// mask (seq_len x seq_len), each chosen block a dense square of ones. Both have values 1.
#pragma once

#include <cstdint>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct BlockMaskOptions {
  int64_t seq_len = 4096;
  int64_t block = 64;
  int64_t local_blocks = 1;  // on each side: 1 gives BigBird's window of 3 blocks
  int64_t global_blocks = 2;
  int64_t random_blocks = 3;
  uint64_t seed = 1;
};

// kiln::Error(kUnsupported) when seq_len or block is < 1, a count is negative, or the mask's
// nonzeros do not fit 32-bit offsets.
CsrMatrix BlockMaskLayout(const BlockMaskOptions& options);
CsrMatrix BlockSparseMask(const BlockMaskOptions& options);

}  // namespace kiln::ir::sparse
