// Block-sparse attention's kernels and references: the naive block-sparse attention against a
// dense masked attention in plain loops (-inf outside the mask), each kernel as written through
// the interpreter against the naive reference (a small BigBird mask, a mask whose rows hold one
// block, several heads), the key per structure, and the errors for a mask that does not cut
// into whole blocks, an empty block row, and a name of no known form.
#include "compiler/sparse/attention_workloads.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/sparse/attention_reference.h"
#include "ir/interpreter/interpreter.h"
#include "ir/sparse/sparse_reference.h"
#include "ir/structural.h"
#include "support/error.h"

namespace kiln::compiler::sparse {
namespace {

using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

std::vector<float> Floats(const ir::HostTensor& t) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

std::vector<float> Seeded(int64_t n, uint64_t seed) {
  return Floats(ir::HostTensor::Random(ir::DataType::Float(32), {n}, seed));
}

// A mask whose every block row holds exactly one block (a permutation), and one with a row
// holding one block beside fuller rows.
AttentionMask OneBlockRows(int64_t blocks, int64_t b) {
  std::vector<CooEntry> e;
  for (int64_t i = 0; i < blocks; ++i) e.push_back({i, (i * 3 + 1) % blocks, 1.0});
  return MaskFromLayout(ir::sparse::CsrFromEntries(blocks, blocks, std::move(e)), b);
}

AttentionMask MixedRows(int64_t b) {
  // Row 0 one block, row 1 every block, row 2 two blocks, row 3 the diagonal only.
  std::vector<CooEntry> e = {{0, 2, 1}, {1, 0, 1}, {1, 1, 1}, {1, 2, 1},
                             {1, 3, 1}, {2, 0, 1}, {2, 3, 1}, {3, 3, 1}};
  return MaskFromLayout(ir::sparse::CsrFromEntries(4, 4, std::move(e)), b);
}

// Dense masked attention in plain loops: every L x L score, -inf outside the token mask, a
// softmax over the full row, P V. The oracle of the naive block-sparse attention.
std::vector<float> DenseLoops(const AttentionMask& m, int64_t H, int64_t D, float scale,
                              const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v) {
  const int64_t L = m.SeqLen();
  CsrMatrix tokens = m.TokenMask();
  std::vector<char> allowed(static_cast<size_t>(L * L), 0);
  for (int64_t r = 0; r < L; ++r) {
    for (int32_t p = tokens.indptr[r]; p < tokens.indptr[r + 1]; ++p) {
      allowed[r * L + tokens.indices[p]] = 1;
    }
  }
  std::vector<float> o(static_cast<size_t>(H * L * D));
  std::vector<double> s(static_cast<size_t>(L));
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t i = 0; i < L; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < L; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += double{q[(h * L + i) * D + d]} * k[(h * L + j) * D + d];
        s[j] = allowed[i * L + j] ? dot * scale : -std::numeric_limits<double>::infinity();
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < L; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < L; ++j) acc += s[j] / sum * v[(h * L + j) * D + d];
        o[(h * L + i) * D + d] = static_cast<float>(acc);
      }
    }
  }
  return o;
}

TEST(AttentionReference, NaiveBlockSparseMatchesDenseMaskedLoops) {
  for (const AttentionMask& m : {BigBirdMask(256, 32), OneBlockRows(5, 8), MixedRows(4)}) {
    const int64_t H = 2, D = 16, L = m.SeqLen();
    const float scale = 0.25f;
    std::vector<float> q = Seeded(H * L * D, 1), k = Seeded(H * L * D, 2), v = Seeded(H * L * D, 3);
    NaiveAttention naive = NaiveBlockSparseAttention(m, H, D, scale, q, k, v);
    std::vector<float> dense = DenseLoops(m, H, D, scale, q, k, v);
    EXPECT_LT(ir::sparse::MaxRelativeError(naive.out, dense), 1e-5) << m.description;
    // The probabilities of each token row sum to 1 over its nonzeros.
    double total = 0;
    for (float p : naive.probs) total += p;
    EXPECT_NEAR(total, static_cast<double>(H * L), 1e-3 * H * L);
  }
}

// Each kernel as written, through the reference interpreter, on the arguments the references
// hold: its output matches the naive stage (allclose rtol 1e-4, atol 1e-5).
void ExpectKernelsMatch(const AttentionProblem& p, bool gpu) {
  std::vector<AttentionKernelCase> cases = AttentionKernelCases(p, 3, gpu);
  ASSERT_EQ(cases.size(), 3u);
  for (AttentionKernelCase& c : cases) {
    SCOPED_TRACE(std::string(AttentionKernelName(c.stage)) + (gpu ? " (GPU shape)" : ""));
    std::vector<ir::HostTensor> args;
    for (const ir::HostTensor& a : c.args) args.push_back(a.Clone());
    std::vector<ir::ArgValue> values(args.begin(), args.end());
    ir::Interpret(c.workload, values);
    std::vector<float> got = Floats(args[c.output_param]), want = Floats(c.expected);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-4 * std::abs(want[i])) << "element " << i;
    }
  }
}

// Both shapes: the CPU's and the GPU's (their SDDMM and softmax differ).
void ExpectKernelsMatch(const AttentionProblem& p) {
  ExpectKernelsMatch(p, false);
  ExpectKernelsMatch(p, true);
}

TEST(AttentionWorkloads, EveryKernelAsWrittenMatchesTheNaiveReference) {
  ExpectKernelsMatch({BigBirdMask(128, 32), 2, 8});
  ExpectKernelsMatch({OneBlockRows(4, 8), 2, 8});
  ExpectKernelsMatch({MixedRows(4), 3, 5, 0.5f});
}

TEST(AttentionWorkloads, AttributesCarryTheStructureAndShapes) {
  AttentionProblem p{BigBirdMask(256, 32), 2, 32};
  ir::PrimFunc f = AttentionWorkload(p, AttentionStage::kSpmm);
  EXPECT_EQ(f->name, "attention_spmm");
  std::string text = AttentionKernelText(p, AttentionStage::kSddmm);
  EXPECT_NE(text.find("\"kiln.sparse_format\": \"bsr:32:32\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"kiln.attention_heads\": 2"), std::string::npos) << text;
  EXPECT_NE(text.find("\"kiln.sparse_rows\": 256"), std::string::npos) << text;
  EXPECT_NE(text.find("\"kiln.sparse_nnz\": " + std::to_string(p.mask.TokenNnz())),
            std::string::npos);
  // Another structure, head count or head dimension is another workload.
  const uint64_t base = ir::StructuralHash(f);
  EXPECT_EQ(base, ir::StructuralHash(AttentionWorkload(p, AttentionStage::kSpmm)));
  AttentionProblem heads{BigBirdMask(256, 32), 4, 32}, dim{BigBirdMask(256, 32), 2, 16};
  AttentionProblem other{OneBlockRows(8, 32), 2, 32};
  for (const AttentionProblem& q : {heads, dim, other}) {
    EXPECT_NE(base, ir::StructuralHash(AttentionWorkload(q, AttentionStage::kSpmm)));
  }
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(AttentionMask, ErrorsNameTheProblem) {
  std::string e = ErrorOf([] { BigBirdMask(1000, 64); });
  EXPECT_NE(e.find("1000 tokens is not a multiple of the block size 64"), std::string::npos) << e;
  e = ErrorOf([] { LoadAttentionMask("bigbird-300-32"); });
  EXPECT_NE(e.find("bigbird-300-32"), std::string::npos) << e;
  EXPECT_NE(e.find("not a multiple of the block size 32"), std::string::npos) << e;
  e = ErrorOf([] { LoadAttentionMask("rmat-14"); });
  EXPECT_NE(e.find("expected bigbird-L-b"), std::string::npos) << e;
  e = ErrorOf([] { LoadAttentionMask("pattern.mtx"); });
  EXPECT_NE(e.find("give the block size"), std::string::npos) << e;
  e = ErrorOf([] { MaskFromLayout(ir::sparse::CsrFromEntries(3, 3, {{0, 0, 1}, {2, 1, 1}}), 8); });
  EXPECT_NE(e.find("block row 1 has no block"), std::string::npos) << e;
  e = ErrorOf([] { MaskFromLayout(ir::sparse::CsrFromEntries(2, 3, {{0, 0, 1}, {1, 1, 1}}), 8); });
  EXPECT_NE(e.find("2 x 3 blocks"), std::string::npos) << e;
  e = ErrorOf([] { AttentionKernelText({BigBirdMask(64, 32), 0, 8}, AttentionStage::kSddmm); });
  EXPECT_NE(e.find("0 heads"), std::string::npos) << e;
}

TEST(AttentionMask, BigBirdByNameIsTheDataSetsMask) {
  AttentionMask m = LoadAttentionMask("bigbird-256-32");
  EXPECT_EQ(m.SeqLen(), 256);
  EXPECT_EQ(m.block, 32);
  EXPECT_EQ(m.TokenMask().nnz(), m.TokenNnz());
  for (int64_t r = 0; r < m.NumBlockRows(); ++r) EXPECT_GE(m.layout.RowLength(r), 1);
}

}  // namespace
}  // namespace kiln::compiler::sparse
