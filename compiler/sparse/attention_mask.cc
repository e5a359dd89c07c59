// Block-sparse attention masks: checks, BigBird masks by name, block patterns from files.
#include "compiler/sparse/attention_mask.h"

#include <filesystem>
#include <regex>

#include "ir/sparse/attention_kernel_text.h"
#include "ir/sparse/block_mask.h"
#include "ir/sparse/matrix_market.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

using ir::sparse::CsrMatrix;

uint64_t AttentionMask::StructureHash() const {
  return ir::sparse::AttentionStructureHash(layout, block);
}

CsrMatrix AttentionMask::TokenMask() const {
  std::vector<ir::sparse::CooEntry> entries;
  entries.reserve(static_cast<size_t>(TokenNnz()));
  for (int64_t bi = 0; bi < layout.rows; ++bi) {
    for (int64_t r = 0; r < block; ++r) {
      for (int32_t p = layout.indptr[bi]; p < layout.indptr[bi + 1]; ++p) {
        for (int64_t c = 0; c < block; ++c) {
          entries.push_back({bi * block + r, layout.indices[p] * block + c, 1.0});
        }
      }
    }
  }
  return ir::sparse::CsrFromEntries(SeqLen(), SeqLen(), std::move(entries));
}

AttentionMask MaskFromLayout(CsrMatrix layout, int64_t block, std::string description) {
  KILN_CHECK(block >= 1, ErrorKind::kUnsupported,
             "attention mask: block size " + std::to_string(block) + " (expected >= 1)");
  std::string problem = layout.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kUnsupported, "attention mask: " + problem);
  KILN_CHECK(layout.rows == layout.cols && layout.rows > 0, ErrorKind::kUnsupported,
             "attention mask: a block pattern of " + std::to_string(layout.rows) + " x " +
                 std::to_string(layout.cols) + " blocks (expected a square one, at least 1 x 1)");
  KILN_CHECK(layout.rows * block <= (int64_t{1} << 30) &&
                 layout.nnz() * block * block <= (int64_t{1} << 31) - 1,
             ErrorKind::kUnsupported,
             "attention mask: " + std::to_string(layout.rows * block) + " tokens with " +
                 std::to_string(layout.nnz()) + " blocks of " + std::to_string(block) +
                 " exceed 32-bit offsets");
  for (int64_t r = 0; r < layout.rows; ++r) {
    KILN_CHECK(layout.RowLength(r) > 0, ErrorKind::kUnsupported,
               "attention mask: block row " + std::to_string(r) +
                   " has no block (every query block must attend to at least one key block)");
  }
  AttentionMask mask;
  mask.layout = std::move(layout);
  mask.block = block;
  mask.description = std::move(description);
  return mask;
}

AttentionMask BigBirdMask(int64_t seq_len, int64_t block) {
  KILN_CHECK(block >= 1 && seq_len >= 1, ErrorKind::kUnsupported,
             "attention mask bigbird-" + std::to_string(seq_len) + "-" + std::to_string(block) +
                 ": expected at least one token and a block size >= 1");
  KILN_CHECK(seq_len % block == 0, ErrorKind::kUnsupported,
             "attention mask bigbird-" + std::to_string(seq_len) + "-" + std::to_string(block) +
                 ": " + std::to_string(seq_len) + " tokens is not a multiple of the block size " +
                 std::to_string(block) + " (the kernels take whole blocks only)");
  ir::sparse::BlockMaskOptions o;  // bigbird-4096-64's options (ir/sparse/sparse_datasets.cc)
  o.seq_len = seq_len;
  o.block = block;
  o.local_blocks = 1;
  o.global_blocks = 2;
  o.random_blocks = 3;
  o.seed = 1;
  return MaskFromLayout(ir::sparse::BlockMaskLayout(o), block,
                        "BigBird, " + std::to_string(seq_len) + " tokens in blocks of " +
                            std::to_string(block) + " (band 3, global 2, random 3, seed 1)");
}

AttentionMask LoadAttentionMask(const std::string& argument, int64_t block) {
  static const std::regex bigbird(R"(bigbird-(\d{1,9})-(\d{1,9}))");
  std::smatch m;
  if (std::regex_match(argument, m, bigbird)) {
    const int64_t seq_len = std::stoll(m[1].str()), b = std::stoll(m[2].str());
    KILN_CHECK(block == 0 || block == b, ErrorKind::kUnsupported,
               "attention mask " + argument + ": block size " + std::to_string(block) +
                   " given, but the name says " + std::to_string(b));
    return BigBirdMask(seq_len, b);
  }
  if (std::filesystem::path(argument).extension() == ".mtx") {
    KILN_CHECK(block >= 1, ErrorKind::kUnsupported,
               "attention mask " + argument +
                   ": a .mtx file holds the block pattern; give the block size (--block)");
    ir::sparse::MatrixMarketInfo info;
    CsrMatrix layout = ir::sparse::ReadMatrixMarket(argument, &info);
    return MaskFromLayout(
        std::move(layout), block,
        "block pattern from " + argument + ", blocks of " + std::to_string(block));
  }
  throw Error(ErrorKind::kUnsupported,
              "attention mask '" + argument +
                  "': expected bigbird-L-b (L tokens in blocks of b) or a .mtx file of the "
                  "block pattern");
}

}  // namespace kiln::compiler::sparse
