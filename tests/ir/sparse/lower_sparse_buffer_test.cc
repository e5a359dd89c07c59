// LowerSparseBuffer: SparseTIR's scripts lowered through stage II to stage III (plain TensorIR
// over 1-D buffers), compared with golden texts; each stage-III function run by the reference
// interpreter on a random CSR matrix (CsrFromEntries, seeded) and random dense operands,
// against loops over the CsrMatrix written here; and its errors.
#include "ir/sparse/transform/lower_sparse_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

#include "ir/interpreter/interpreter.h"
#include "ir/sparse/csr_matrix.h"
#include "ir/sparse/transform/lower_sparse_iter.h"
#include "tests/ir/sparse/sparse_test_util.h"

namespace kiln::ir::sparse {
namespace {

using testing::ExpectGolden;
using testing::LoadScript;

PrimFunc Stage3(const std::string& name) {
  return LowerSparseBuffer(LowerSparseIter(LoadScript(name)));
}

class LowerSparseBufferGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LowerSparseBufferGolden, MatchesGolden) {
  PrimFunc f = Stage3(GetParam());
  ExpectGolden(f, GetParam(), "stage3");
  EXPECT_TRUE(f->sp_axes.empty());
  EXPECT_TRUE(f->sp_buffers.empty());
  EXPECT_TRUE(IsConstInt(f->attrs.at("sparse_tir_level"), 0));
  for (const auto& [param, buffer] : f->buffer_map) EXPECT_EQ(buffer.ndim(), 1u) << buffer->name;
}

INSTANTIATE_TEST_SUITE_P(Scripts, LowerSparseBufferGolden,
                         ::testing::Values("csrmm", "csrmm_dense_iter", "csr_reduce",
                                           "segment_reduce", "sddmm", "bsrmm", "ellmm",
                                           "csr_element_wise", "square_sum", "fused_sddmm",
                                           "fused_reduction_4d_2d", "fused_reduction_4d_3d",
                                           "hyper_gnn", "rgcn_hetero_forward", "csr2bsr",
                                           "rgcn_homo_forward", "sparse_softmax"));

// ---- numerics ---------------------------------------------------------------------------

CsrMatrix RandomCsr(int64_t rows, int64_t cols, double density, uint32_t seed,
                    int64_t per_row = -1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<CooEntry> entries;
  for (int64_t r = 0; r < rows; ++r) {
    if (per_row >= 0) {
      std::vector<int64_t> order(static_cast<size_t>(cols));
      for (int64_t c = 0; c < cols; ++c) order[static_cast<size_t>(c)] = c;
      std::shuffle(order.begin(), order.end(), rng);
      for (int64_t k = 0; k < per_row; ++k)
        entries.push_back({r, order[static_cast<size_t>(k)], u(rng)});
      continue;
    }
    for (int64_t c = 0; c < cols; ++c) {
      if (u(rng) < density) entries.push_back({r, c, u(rng) * 2 - 1});
    }
  }
  CsrMatrix m = CsrFromEntries(rows, cols, std::move(entries));
  EXPECT_EQ(m.Check(), "");
  return m;
}

std::vector<float> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

template <typename T>
HostTensor Tensor(DataType dtype, const std::vector<T>& v) {
  HostTensor t(dtype, {static_cast<int64_t>(v.size())});
  std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
  return t;
}
HostTensor F32(const std::vector<float>& v) { return Tensor(DataType::Float(32), v); }
HostTensor I32(const std::vector<int32_t>& v) { return Tensor(DataType::Int(32), v); }
HostTensor Output(int64_t n) {
  return F32(std::vector<float>(static_cast<size_t>(n), std::numeric_limits<float>::quiet_NaN()));
}

std::vector<float> Read(const HostTensor& t) {
  std::vector<float> v(static_cast<size_t>(t.shape()[0]));
  std::memcpy(v.data(), t.data(), v.size() * sizeof(float));
  return v;
}

// Runs `name`'s stage-III function with arguments given by parameter name.
void RunStage3(const std::string& name, const std::map<std::string, ArgValue>& by_name) {
  PrimFunc f = Stage3(name);
  std::vector<ArgValue> args;
  for (const Var& p : f->params) {
    auto it = by_name.find(p->name);
    ASSERT_NE(it, by_name.end()) << name << ": no argument for " << p->name;
    args.push_back(it->second);
  }
  Interpret(f, args);
}

void ExpectClose(const std::vector<float>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-4 * std::abs(expected[i]) + 1e-5) << "element " << i;
  }
}

int64_t I(int64_t v) { return v; }

TEST(SparseNumerics, Csrmm) {
  const int64_t m = 13, n = 11, feat = 5;
  CsrMatrix a = RandomCsr(m, n, 0.3, 1);
  std::vector<float> b = RandomFloats(n * feat, 2);
  HostTensor c = Output(m * feat);
  RunStage3("csrmm", {{"a", F32(a.values)},
                      {"b", F32(b)},
                      {"c", c},
                      {"indptr", I32(a.indptr)},
                      {"indices", I32(a.indices)},
                      {"m", I(m)},
                      {"n", I(n)},
                      {"feat_size", I(feat)},
                      {"nnz", I(a.nnz())}});
  std::vector<double> want(static_cast<size_t>(m * feat), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        want[i * feat + k] += double(a.values[p]) * b[a.indices[p] * feat + k];
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, CsrmmDenseIterSearchesEachColumn) {
  // Iterates every column of the dense J_detach; A[i, j] finds j among row i's indices by a
  // binary search block, and reads 0 where the row has no such column.
  const int64_t m = 9, n = 14, feat = 3;
  CsrMatrix a = RandomCsr(m, n, 0.3, 21);
  std::vector<float> b = RandomFloats(n * feat, 22);
  HostTensor c = Output(m * feat);
  RunStage3("csrmm_dense_iter", {{"a", F32(a.values)},
                                 {"b", F32(b)},
                                 {"c", c},
                                 {"indptr", I32(a.indptr)},
                                 {"indices", I32(a.indices)},
                                 {"m", I(m)},
                                 {"n", I(n)},
                                 {"feat_size", I(feat)},
                                 {"nnz", I(a.nnz())}});
  std::vector<double> want(static_cast<size_t>(m * feat), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        want[i * feat + k] += double(a.values[p]) * b[a.indices[p] * feat + k];
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, CsrReduceAndSegmentReduce) {
  const int64_t n = 17, m = 9;
  CsrMatrix a = RandomCsr(n, m, 0.4, 3);
  std::vector<double> want(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) want[i] += a.values[p];
  }
  HostTensor b = Output(n);
  RunStage3("csr_reduce", {{"a", F32(a.values)},
                           {"b", b},
                           {"indptr", I32(a.indptr)},
                           {"indices", I32(a.indices)},
                           {"n", I(n)},
                           {"m", I(m)},
                           {"nnz", I(a.nnz())}});
  ExpectClose(Read(b), want);
  HostTensor b2 = Output(n);
  RunStage3("segment_reduce", {{"a", F32(a.values)},
                               {"b", b2},
                               {"indptr", I32(a.indptr)},
                               {"n", I(n)},
                               {"nnz", I(a.nnz())}});
  ExpectClose(Read(b2), want);
}

TEST(SparseNumerics, Sddmm) {
  const int64_t m = 10, n = 12, feat = 6;
  CsrMatrix s = RandomCsr(m, n, 0.3, 4);
  std::vector<float> a = RandomFloats(m * feat, 5), b = RandomFloats(n * feat, 6);
  HostTensor c = Output(s.nnz());
  RunStage3("sddmm", {{"a", F32(a)},
                      {"b", F32(b)},
                      {"c", c},
                      {"indptr", I32(s.indptr)},
                      {"indices", I32(s.indices)},
                      {"m", I(m)},
                      {"n", I(n)},
                      {"feat_size", I(feat)},
                      {"nnz", I(s.nnz())}});
  std::vector<double> want(static_cast<size_t>(s.nnz()), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        want[p] += double(a[i * feat + k]) * b[s.indices[p] * feat + k];
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, FusedSddmmFindsEachRowBySearch) {
  // One loop over the nonzeros; each finds its row by a binary search over indptr. Empty rows
  // (density 0.15) are where an off-by-one search goes wrong.
  const int64_t m = 16, n = 10, feat = 4;
  CsrMatrix s = RandomCsr(m, n, 0.15, 23);
  std::vector<float> a = RandomFloats(m * feat, 24), b = RandomFloats(n * feat, 25);
  HostTensor c = Output(s.nnz());
  RunStage3("fused_sddmm", {{"a", F32(a)},
                            {"b", F32(b)},
                            {"c", c},
                            {"indptr", I32(s.indptr)},
                            {"indices", I32(s.indices)},
                            {"m", I(m)},
                            {"n", I(n)},
                            {"feat_size", I(feat)},
                            {"nnz", I(s.nnz())}});
  std::vector<double> want(static_cast<size_t>(s.nnz()), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        want[p] += double(a[i * feat + k]) * b[s.indices[p] * feat + k];
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, FusedReduction4d) {
  // J under I, K under J, L under K (dense_variable chains); 4d_2d fuses (I, J), 4d_3d fuses
  // (I, J, K), each finding ancestors by searches over indptr.
  const int64_t n = 7;
  CsrMatrix j = RandomCsr(n, 6, 0.4, 26);
  CsrMatrix k = RandomCsr(j.nnz(), 5, 0.4, 27);
  CsrMatrix l = RandomCsr(k.nnz(), 4, 0.5, 28);
  std::map<std::string, ArgValue> args = {{"x", F32(l.values)},
                                          {"indptr_j", I32(j.indptr)},
                                          {"indptr_k", I32(k.indptr)},
                                          {"indptr_l", I32(l.indptr)},
                                          {"n", I(n)},
                                          {"nnz_j", I(j.nnz())},
                                          {"nnz_k", I(k.nnz())},
                                          {"nnz_l", I(l.nnz())}};
  HostTensor y2 = Output(j.nnz());
  args["y"] = y2;
  RunStage3("fused_reduction_4d_2d", args);
  std::vector<double> want2(static_cast<size_t>(j.nnz()), 0.0);
  std::vector<double> want3(static_cast<size_t>(k.nnz()), 0.0);
  for (int32_t pj = 0; pj < j.nnz(); ++pj) {
    for (int32_t pk = k.indptr[pj]; pk < k.indptr[pj + 1]; ++pk) {
      for (int32_t pl = l.indptr[pk]; pl < l.indptr[pk + 1]; ++pl) {
        want2[pj] += l.values[pl];
        want3[pk] += l.values[pl];
      }
    }
  }
  ExpectClose(Read(y2), want2);
  HostTensor y3 = Output(k.nnz());
  args["y"] = y3;
  RunStage3("fused_reduction_4d_3d", args);
  ExpectClose(Read(y3), want3);
}

TEST(SparseNumerics, HyperGnnAttachesTheTransposeUnderEachColumn) {
  // Y[i, f] = sum over j in row i of A, over i_t in row j of A's transpose, of X[i_t, f].
  const int64_t n = 8, m = 6, feat = 3;
  CsrMatrix a = RandomCsr(n, m, 0.35, 29);
  std::vector<CooEntry> transposed;
  for (int64_t i = 0; i < n; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p)
      transposed.push_back({a.indices[p], i, 1});
  }
  CsrMatrix at = CsrFromEntries(m, n, transposed);
  std::vector<float> x = RandomFloats(n * feat, 30);
  HostTensor y = Output(n * feat);
  RunStage3("hyper_gnn", {{"x", F32(x)},
                          {"y", y},
                          {"indptr", I32(a.indptr)},
                          {"indices", I32(a.indices)},
                          {"indptr_T", I32(at.indptr)},
                          {"indices_T", I32(at.indices)},
                          {"n", I(n)},
                          {"m", I(m)},
                          {"nnz", I(a.nnz())},
                          {"feat_size", I(feat)}});
  std::vector<double> want(static_cast<size_t>(n * feat), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      int32_t j = a.indices[p];
      for (int32_t q = at.indptr[j]; q < at.indptr[j + 1]; ++q) {
        for (int64_t f = 0; f < feat; ++f) want[i * feat + f] += x[at.indices[q] * feat + f];
      }
    }
  }
  ExpectClose(Read(y), want);
}

TEST(SparseNumerics, Csr2BsrStoresByCoordinate) {
  // Each nonzero of A is stored into its block of B, found by a search over the block row's
  // indices; elements of a block that A does not cover keep what B held (0 here).
  const int64_t blk = 3, m_out = 4, n_out = 5, m_in = m_out * blk, n_in = n_out * blk;
  CsrMatrix a = RandomCsr(m_in, n_in, 0.1, 31);
  std::vector<CooEntry> blocks;
  for (int64_t i = 0; i < m_in; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      blocks.push_back({i / blk, a.indices[p] / blk, 1});
    }
  }
  CsrMatrix bsr = CsrFromEntries(m_out, n_out, blocks);
  HostTensor b = F32(std::vector<float>(static_cast<size_t>(bsr.nnz() * blk * blk), 0.0f));
  RunStage3("csr2bsr", {{"a", F32(a.values)},
                        {"b", b},
                        {"indptr_in", I32(a.indptr)},
                        {"indices_in", I32(a.indices)},
                        {"indptr_out", I32(bsr.indptr)},
                        {"indices_out", I32(bsr.indices)},
                        {"m_in", I(m_in)},
                        {"n_in", I(n_in)},
                        {"m_out", I(m_out)},
                        {"n_out", I(n_out)},
                        {"nnz_in", I(a.nnz())},
                        {"nnz_out", I(bsr.nnz())},
                        {"blk_size", I(blk)}});
  std::vector<double> want(static_cast<size_t>(bsr.nnz() * blk * blk), 0.0);
  for (int64_t i = 0; i < m_in; ++i) {
    for (int32_t p = a.indptr[i]; p < a.indptr[i + 1]; ++p) {
      int64_t bi = i / blk, bj = a.indices[p] / blk;
      int32_t q = bsr.indptr[bi];
      while (bsr.indices[q] != bj) ++q;
      want[(q * blk + i % blk) * blk + a.indices[p] % blk] = a.values[p];
    }
  }
  ExpectClose(Read(b), want);
}

TEST(SparseNumerics, Bsrmm) {
  const int64_t nb = 5, mb = 6, blk = 3, feat = 4;
  CsrMatrix s = RandomCsr(nb, mb, 0.4, 7);  // the block pattern
  std::vector<float> a = RandomFloats(s.nnz() * blk * blk, 8);
  std::vector<float> b = RandomFloats(mb * blk * feat, 9);
  HostTensor c = Output(nb * blk * feat);
  RunStage3("bsrmm", {{"a", F32(a)},
                      {"b", F32(b)},
                      {"c", c},
                      {"indptr", I32(s.indptr)},
                      {"indices", I32(s.indices)},
                      {"nb", I(nb)},
                      {"mb", I(mb)},
                      {"nnzb", I(s.nnz())},
                      {"blk", I(blk)},
                      {"feat_size", I(feat)}});
  std::vector<double> want(static_cast<size_t>(nb * blk * feat), 0.0);
  for (int64_t i = 0; i < nb; ++i) {
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) {
      for (int64_t bi = 0; bi < blk; ++bi) {
        for (int64_t bj = 0; bj < blk; ++bj) {
          for (int64_t f = 0; f < feat; ++f) {
            want[(i * blk + bi) * feat + f] +=
                double(a[(p * blk + bi) * blk + bj]) * b[(s.indices[p] * blk + bj) * feat + f];
          }
        }
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, Ellmm) {
  const int64_t nb = 6, mb = 7, col = 3, blk = 2, feat = 5;
  CsrMatrix s = RandomCsr(nb, mb, 0, 10, col);  // exactly `col` blocks a row
  std::vector<float> a = RandomFloats(nb * col * blk * blk, 11);
  std::vector<float> b = RandomFloats(mb * blk * feat, 12);
  HostTensor c = Output(nb * blk * feat);
  RunStage3("ellmm", {{"a", F32(a)},
                      {"b", F32(b)},
                      {"c", c},
                      {"indices", I32(s.indices)},
                      {"nb", I(nb)},
                      {"mb", I(mb)},
                      {"feat_size", I(feat)},
                      {"col", I(col)},
                      {"blk", I(blk)}});
  std::vector<double> want(static_cast<size_t>(nb * blk * feat), 0.0);
  for (int64_t i = 0; i < nb; ++i) {
    for (int64_t j = 0; j < col; ++j) {
      int64_t p = i * col + j;
      for (int64_t bi = 0; bi < blk; ++bi) {
        for (int64_t bj = 0; bj < blk; ++bj) {
          for (int64_t f = 0; f < feat; ++f) {
            want[(i * blk + bi) * feat + f] +=
                double(a[(p * blk + bi) * blk + bj]) * b[(s.indices[p] * blk + bj) * feat + f];
          }
        }
      }
    }
  }
  ExpectClose(Read(c), want);
}

TEST(SparseNumerics, CsrElementWiseAndSquareSum) {
  const int64_t m = 8, n = 9;
  CsrMatrix s = RandomCsr(m, n, 0.5, 13);
  HostTensor b = Output(s.nnz());
  RunStage3("csr_element_wise", {{"a", F32(s.values)},
                                 {"b", b},
                                 {"indptr", I32(s.indptr)},
                                 {"indices", I32(s.indices)},
                                 {"m", I(m)},
                                 {"n", I(n)},
                                 {"nnz", I(s.nnz())}});
  std::vector<double> twice;
  for (float v : s.values) twice.push_back(v * 2.5);
  ExpectClose(Read(b), twice);

  // square_sum: K hangs under J, itself under I: a CSR whose rows are J's positions.
  CsrMatrix k = RandomCsr(s.nnz(), 5, 0.5, 14);
  HostTensor out = Output(m);
  RunStage3("square_sum", {{"a", F32(k.values)},
                           {"b", out},
                           {"indptr_j", I32(s.indptr)},
                           {"indices_j", I32(s.indices)},
                           {"indptr_k", I32(k.indptr)},
                           {"indices_k", I32(k.indices)},
                           {"nnz_j", I(s.nnz())},
                           {"nnz_k", I(k.nnz())},
                           {"M", I(m)},
                           {"N1", I(n)},
                           {"N2", I(5)}});
  std::vector<double> want(static_cast<size_t>(m), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int32_t pj = s.indptr[i]; pj < s.indptr[i + 1]; ++pj) {
      for (int32_t pk = k.indptr[pj]; pk < k.indptr[pj + 1]; ++pk) want[i] += k.values[pk];
    }
  }
  ExpectClose(Read(out), want);
}

TEST(SparseNumerics, SparseSoftmaxNestedIterations) {
  const int64_t n = 9;
  CsrMatrix s = RandomCsr(n, n, 0.5, 15);
  HostTensor b = Output(s.nnz());
  RunStage3("sparse_softmax", {{"a", F32(s.values)},
                               {"b", b},
                               {"indptr", I32(s.indptr)},
                               {"indices", I32(s.indices)},
                               {"n", I(n)},
                               {"nnz", I(s.nnz())}});
  // As SparseTIR's script writes it: exp(a) over the sum of exp(a - row max).
  std::vector<double> want(static_cast<size_t>(s.nnz()));
  for (int64_t i = 0; i < n; ++i) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) mx = std::max<double>(mx, s.values[p]);
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) sum += std::exp(s.values[p] - mx);
    for (int32_t p = s.indptr[i]; p < s.indptr[i + 1]; ++p) want[p] = std::exp(s.values[p]) / sum;
  }
  ExpectClose(Read(b), want);
}

// ---- errors -----------------------------------------------------------------------------

TEST(LowerSparseBuffer, SparseIterationLeft) {
  try {
    LowerSparseBuffer(LoadScript("csrmm"));
    FAIL() << "lowered a stage-I function";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_NE(std::string(e.what()).find("sparse iteration 'csrmm' is still in the function"),
              std::string::npos)
        << e.what();
  }
}

TEST(LowerSparseBuffer, AxisAwayFromItsParent) {
  // K hangs under J, but the buffer puts it right after I.
  PrimFunc f = ParsePrimFunc(R"(
@T.prim_func
def f(a: T.handle, indptr_j: T.handle, indptr_k: T.handle, m: T.int32, nnz_j: T.int32, nnz_k: T.int32):
    I = T.dense_fixed(m)
    J = T.dense_variable(I, (8, nnz_j), indptr_j)
    K = T.dense_variable(J, (8, nnz_k), indptr_k)
    A = T.match_sparse_buffer(a, (I, K), "float32")
    T.evaluate(0)
)");
  try {
    LowerSparseBuffer(f);
    FAIL() << "flattened a buffer whose axis is away from its parent";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_NE(std::string(e.what()).find("sparse buffer 'A' dimension 1 is axis 'K', whose "
                                         "parent axis 'J' is not the axis of dimension 0"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::sparse
