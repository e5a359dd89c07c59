// The format decomposition as a search: the space a matrix's structure gives (what a skewed
// graph, a block-structured mask and a banded matrix each admit), the seeded draw, and
// TuneSparse searching hyb's parameters and every kind, through the real compiler, each
// kernel checked against the naive reference.
#include "compiler/sparse/formats/format_search.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "compiler/sparse/formats/format_conversion.h"
#include "compiler/sparse/sparse_tuning.h"
#include "ir/sparse/block_mask.h"
#include "ir/sparse/rmat.h"
#include "tests/compiler/sparse/test_matrices.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using ir::sparse::CsrMatrix;

std::set<std::string> Spellings(const std::vector<SparseFormat>& formats) {
  std::set<std::string> out;
  for (const SparseFormat& f : formats) out.insert(FormatSpelling(f));
  return out;
}

bool HasKind(const std::vector<SparseFormat>& formats, FormatKind kind) {
  return std::any_of(formats.begin(), formats.end(),
                     [&](const SparseFormat& f) { return f.kind == kind; });
}

CsrMatrix SkewedGraph() {
  ir::sparse::RmatOptions o;
  o.scale = 10;
  o.seed = 3;
  return ir::sparse::GenerateRmat(o);
}

TEST(FormatSpace, ASkewedGraphGetsHybButNoEllAndNoLargeBlocks) {
  const CsrMatrix a = SkewedGraph();
  const std::vector<SparseFormat> space = FormatSpace(a, SparseOp::kSpmm);
  ASSERT_FALSE(space.empty());
  EXPECT_EQ(space[0].kind, FormatKind::kCsr);
  EXPECT_TRUE(HasKind(space, FormatKind::kHyb));
  EXPECT_FALSE(HasKind(space, FormatKind::kEll)) << "rows of a power law padded to the longest";
  for (const SparseFormat& f : space) {
    if (f.kind == FormatKind::kBsr) {
      const BsrMatrix b = ToBsr(a, f.block_rows, f.block_cols);
      EXPECT_LE(static_cast<double>(b.values.size()), kMaxBsrFill * a.nnz()) << FormatSpelling(f);
    }
    if (f.kind == FormatKind::kHyb) {
      // The space's part count is the conversion's: no drawn hyb exceeds the limit.
      const HybMatrix h = ToHyb(a, f.partitions, f.buckets);
      EXPECT_LE(static_cast<int64_t>(h.parts.size()), kMaxHybParts) << FormatSpelling(f);
      EXPECT_GE(a.cols / f.partitions, 32) << FormatSpelling(f);
    }
  }
  // Several bucket counts per partition count: from the median row to the longest.
  std::set<int64_t> buckets;
  for (const SparseFormat& f : space) {
    if (f.kind == FormatKind::kHyb && f.partitions == 1) buckets.insert(f.buckets);
  }
  EXPECT_GE(buckets.size(), 2u);
}

TEST(FormatSpace, ABlockMaskGetsItsBlocksAndAnEll) {
  ir::sparse::BlockMaskOptions mask;
  mask.seq_len = 256;
  mask.block = 16;
  const CsrMatrix a = ir::sparse::BlockSparseMask(mask);
  const std::vector<SparseFormat> space = FormatSpace(a, SparseOp::kSpmm);
  const std::set<std::string> names = Spellings(space);
  EXPECT_TRUE(names.count("bsr:16:16")) << "the mask's own blocks store no zero";
  EXPECT_TRUE(HasKind(space, FormatKind::kEll));
  for (const SparseFormat& f : FormatSpace(a, SparseOp::kSpmm, FormatKind::kBsr)) {
    EXPECT_EQ(f.kind, FormatKind::kBsr);
  }
}

TEST(FormatSpace, SddmmHasCsrAndBsrOnly) {
  const CsrMatrix a = testing::Banded(128, 3);
  for (const SparseFormat& f : FormatSpace(a, SparseOp::kSddmm)) {
    EXPECT_TRUE(f.kind == FormatKind::kCsr || f.kind == FormatKind::kBsr) << FormatSpelling(f);
  }
  EXPECT_TRUE(FormatSpace(a, SparseOp::kSddmm, FormatKind::kHyb).empty());
}

TEST(FormatSpace, AMatrixWithNoNonzeroHasCsrOnly) {
  CsrMatrix empty = ir::sparse::CsrFromEntries(8, 8, {});
  EXPECT_EQ(Spellings(FormatSpace(empty, SparseOp::kSpmm)), std::set<std::string>{"csr"});
  EXPECT_TRUE(FormatSpace(empty, SparseOp::kSpmm, FormatKind::kHyb).empty());
}

TEST(FormatDraw, IsSeededKeepsCsrAndTheSpaceOrder) {
  const std::vector<SparseFormat> space = FormatSpace(SkewedGraph(), SparseOp::kSpmm);
  ASSERT_GT(space.size(), 4u);
  const std::vector<SparseFormat> drawn = DrawFormats(space, 4, 7);
  ASSERT_EQ(drawn.size(), 4u);
  EXPECT_EQ(drawn[0].kind, FormatKind::kCsr);
  EXPECT_EQ(drawn, DrawFormats(space, 4, 7));
  // In the space's order, no repeat.
  std::vector<size_t> at;
  for (const SparseFormat& f : drawn) {
    at.push_back(static_cast<size_t>(std::find(space.begin(), space.end(), f) - space.begin()));
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  EXPECT_EQ(std::set<size_t>(at.begin(), at.end()).size(), at.size());
  // Different seeds draw differently over a few tries; a small space is drawn whole.
  bool differs = false;
  for (uint64_t seed = 8; seed < 16 && !differs; ++seed)
    differs = DrawFormats(space, 4, seed) != drawn;
  EXPECT_TRUE(differs);
  EXPECT_EQ(DrawFormats({CsrFormat()}, 4, 1).size(), 1u);
}

TEST(FormatSearchSpelling, AutoAndKindsAreSearches) {
  std::optional<FormatKind> kind = FormatKind::kCsr;
  EXPECT_TRUE(IsFormatSearch("auto", &kind));
  EXPECT_FALSE(kind.has_value());
  EXPECT_TRUE(IsFormatSearch("hyb", &kind));
  EXPECT_EQ(kind, FormatKind::kHyb);
  EXPECT_FALSE(IsFormatSearch("hyb:1:5", &kind));
  EXPECT_FALSE(IsFormatSearch("csr", &kind));
}

// A short search on one thread: `drawn` formats, `trials` in all.
SparseTuneOptions SearchOptions(const std::string& format, int64_t trials, int drawn,
                                const runtime::testing::ScratchDir& dir) {
  SparseTuneOptions options;
  options.trials = trials;
  options.threads = 1;
  options.min_repeat_ms = 2;
  options.formats_drawn = drawn;
  options.format = format;
  options.cache_dir = dir.path().string();
  return options;
}

// hyb's parameters searched on a skewed graph: a hyb of the matrix's space wins, every drawn
// format is reported, the trials stay within the budget and no scratch database is left.
TEST(FormatSearchTuning, SearchedHybIsCorrectAndReportsItsDraw) {
  runtime::testing::ScratchDir dir;
  const SparseTuneOptions options = SearchOptions("hyb", 16, 3, dir);
  const CsrMatrix a = SkewedGraph();
  const SparseTuneResult r = TuneSparse(a, SparseOp::kSpmm, 16, options);
  EXPECT_TRUE(r.correct) << r.failure;
  EXPECT_EQ(r.format.rfind("hyb:", 0), 0u) << r.format;
  EXPECT_EQ(r.formats_tried.size(), 3u);
  EXPECT_GE(r.formats_in_space, 3);
  const std::set<std::string> space = Spellings(FormatSpace(a, SparseOp::kSpmm, FormatKind::kHyb));
  bool winner_tried = false;
  for (const auto& [format, seconds] : r.formats_tried) {
    EXPECT_TRUE(space.count(format)) << format;
    if (format == r.format) {
      winner_tried = true;
      EXPECT_DOUBLE_EQ(seconds, r.best_seconds);
    }
  }
  EXPECT_TRUE(winner_tried);
  // The budget holds: a format whose parts need more trials than its round has is left out.
  EXPECT_LE(r.trials, options.trials);
  EXPECT_GT(r.trials, 0);
  EXPECT_EQ(r.records_stored, 0) << "no database given: the search's scratch one is not kept";
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(entry.path().filename().string().rfind(
                  "kiln-format-search-" + std::to_string(::getpid()) + "-", 0),
              std::string::npos)
        << entry.path();
  }
}

// A budget too small for every format drawn (this graph's hybs have 8 to 20 parts, each a
// kernel needing a trial): formats are left out (reported with 0) rather than the trials
// overrun.
TEST(FormatSearchTuning, ASmallBudgetLeavesFormatsOutRatherThanOverrunning) {
  runtime::testing::ScratchDir dir;
  const SparseTuneOptions options = SearchOptions("hyb", 10, 4, dir);
  const SparseTuneResult r = TuneSparse(SkewedGraph(), SparseOp::kSpmm, 16, options);
  EXPECT_TRUE(r.correct) << r.failure;
  EXPECT_LE(r.trials, options.trials);
  EXPECT_EQ(r.formats_tried.size(), 4u);
  const auto left_out = std::count_if(r.formats_tried.begin(), r.formats_tried.end(),
                                      [](const auto& tried) { return tried.second == 0; });
  EXPECT_GE(left_out, 1);
}

// Every kind searched for SDDMM on a banded matrix, with a database: its records are kept.
TEST(FormatSearchTuning, AutoSddmmKeepsItsRecordsInTheGivenDatabase) {
  runtime::testing::ScratchDir dir;
  SparseTuneOptions options = SearchOptions("auto", 12, 2, dir);
  options.database_path = dir.Sub("tuning.db");
  const SparseTuneResult r = TuneSparse(testing::Banded(128, 3), SparseOp::kSddmm, 16, options);
  EXPECT_TRUE(r.correct) << r.failure;
  EXPECT_EQ(r.formats_tried.size(), 2u);
  EXPECT_EQ(r.formats_tried[0].first, "csr");
  EXPECT_GT(r.records_stored, 0);
  EXPECT_EQ(r.records_stored, r.trials);
}

TEST(FormatSearchTuning, AKindTheMatrixDoesNotSuitIsAClearError) {
  SparseTuneOptions options;
  options.format = "ell";
  try {
    TuneSparse(SkewedGraph(), SparseOp::kSpmm, 16, options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no format of that kind suits this matrix"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::compiler::sparse
