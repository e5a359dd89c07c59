// The sparse baselines (bench/sparse_baselines.h) against a naive loop written here: SpMM and
// SDDMM through GraphBLAS and Eigen, on 1 and 2 threads, on matrices with an empty row, with no
// nonzero at all, with a single dense row, rectangular, and an R-MAT graph; every element within
// a relative 1e-4 of the sum of the magnitudes it adds up. Bad operands are refused by name.
#include "bench/sparse_baselines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "ir/sparse/rmat.h"
#include "ir/sparse/seeded_random.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

std::vector<float> RandomValues(size_t n, uint64_t seed) {
  ir::sparse::SeededRandom rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.UniformReal() * 2 - 1);
  return v;
}

// The exact result in double and, per element, the sum of the magnitudes of its terms: the
// scale a float32 sum's rounding error is proportional to.
struct Expected {
  std::vector<double> value, magnitude;
};

Expected NaiveSpmm(const CsrMatrix& a, const std::vector<float>& b, int64_t feat) {
  Expected e{std::vector<double>(a.rows * feat), std::vector<double>(a.rows * feat)};
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        double t = static_cast<double>(a.values[p]) * b[a.indices[p] * feat + k];
        e.value[r * feat + k] += t;
        e.magnitude[r * feat + k] += std::fabs(t);
      }
    }
  }
  return e;
}

Expected NaiveSddmm(const CsrMatrix& a, const std::vector<float>& x, const std::vector<float>& y,
                    int64_t feat) {
  Expected e{std::vector<double>(a.nnz()), std::vector<double>(a.nnz())};
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
      for (int64_t k = 0; k < feat; ++k) {
        double t = static_cast<double>(a.values[p]) * x[r * feat + k] * y[a.indices[p] * feat + k];
        e.value[p] += t;
        e.magnitude[p] += std::fabs(t);
      }
    }
  }
  return e;
}

void ExpectClose(const std::vector<float>& got, const Expected& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.value.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double tolerance = 1e-4 * std::max(want.magnitude[i], 1e-30);
    if (!(std::fabs(got[i] - want.value[i]) <= tolerance) && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected "
                    << want.value[i];
    }
  }
}

struct Case {
  std::string name;
  CsrMatrix a;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  // Random 50 x 40, about 10% dense, row 7 emptied.
  ir::sparse::SeededRandom rng(3);
  std::vector<CooEntry> entries;
  for (int64_t r = 0; r < 50; ++r) {
    for (int64_t c = 0; c < 40; ++c) {
      if (r != 7 && rng.UniformReal() < 0.1) entries.push_back({r, c, rng.UniformReal() * 4 - 2});
    }
  }
  cases.push_back({"random 50x40 with an empty row", ir::sparse::CsrFromEntries(50, 40, entries)});
  cases.push_back({"no nonzero", ir::sparse::CsrFromEntries(5, 7, {})});
  std::vector<CooEntry> dense_row;
  for (int64_t c = 0; c < 300; ++c) dense_row.push_back({2, c, 0.5 + 0.001 * c});
  cases.push_back({"one dense row", ir::sparse::CsrFromEntries(6, 300, dense_row)});
  ir::sparse::RmatOptions rmat;
  rmat.scale = 9;
  CsrMatrix graph = ir::sparse::GenerateRmat(rmat);
  graph.values = RandomValues(graph.values.size(), 11);
  cases.push_back({"R-MAT scale 9", graph});
  return cases;
}

SparseTimingOptions Quick(int threads) {
  SparseTimingOptions o;
  o.threads = threads;
  o.warmup = 0;
  o.repeat = 2;
  o.min_repeat_ms = 0;
  return o;
}

using Spmm = std::function<SparseBaselineResult(const CsrMatrix&, const std::vector<float>&,
                                                int64_t, const SparseTimingOptions&)>;
using Sddmm = std::function<SparseBaselineResult(const CsrMatrix&, const std::vector<float>&,
                                                 const std::vector<float>&, int64_t,
                                                 const SparseTimingOptions&)>;

void CheckLibrary(const std::string& library, const Spmm& spmm, const Sddmm& sddmm) {
  for (const Case& c : Cases()) {
    for (int64_t feat : {1, 17, 64}) {
      std::vector<float> b = RandomValues(c.a.cols * feat, 5);
      std::vector<float> x = RandomValues(c.a.rows * feat, 6);
      std::vector<float> y = RandomValues(c.a.cols * feat, 7);
      Expected want_spmm = NaiveSpmm(c.a, b, feat);
      Expected want_sddmm = NaiveSddmm(c.a, x, y, feat);
      for (int threads : {1, 2}) {
        std::string what = library + ", " + c.name + ", feat " + std::to_string(feat) + ", " +
                           std::to_string(threads) + " threads";
        SparseBaselineResult r = spmm(c.a, b, feat, Quick(threads));
        ExpectClose(r.output, want_spmm, what + ", SpMM");
        EXPECT_EQ(r.seconds_per_run.size(), 2u) << what;
        EXPECT_GT(r.median_seconds, 0) << what;
        EXPECT_GE(r.setup_seconds, 0) << what;
        r = sddmm(c.a, x, y, feat, Quick(threads));
        ExpectClose(r.output, want_sddmm, what + ", SDDMM");
        EXPECT_GT(r.median_seconds, 0) << what;
      }
    }
  }
}

TEST(SparseBaselinesTest, GraphBlasAgreesWithANaiveLoop) {
  if (!GraphBlasAvailable()) {
    GTEST_SKIP() << "skipped: built without SuiteSparse:GraphBLAS (libgraphblas-dev)";
  }
  EXPECT_NE(GraphBlasVersion().find("SuiteSparse:GraphBLAS 7."), std::string::npos)
      << GraphBlasVersion();
  CheckLibrary("GraphBLAS", GraphBlasSpmm, GraphBlasSddmm);
}

TEST(SparseBaselinesTest, EigenAgreesWithANaiveLoop) {
  if (!EigenAvailable()) GTEST_SKIP() << "skipped: built without Eigen 3 (libeigen3-dev)";
  EXPECT_NE(EigenVersion().find("Eigen 3."), std::string::npos) << EigenVersion();
  CheckLibrary("Eigen", EigenSpmm, EigenSddmm);
}

TEST(SparseBaselinesTest, BadOperandsAreRefusedByName) {
  CsrMatrix a = ir::sparse::CsrFromEntries(3, 4, {{0, 1, 1}, {2, 3, 2}});
  auto error_of = [](const std::function<void()>& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kType);
      return e.what();
    }
    return "no error";
  };
  std::vector<float> b(4 * 8), x(3 * 8), y(4 * 8);
  EXPECT_NE(error_of([&] {
              EigenSpmm(a, std::vector<float>(5), 8, Quick(1));
            }).find("EigenSpmm: B has 5 elements, expected 4 x feat 8 = 32"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              GraphBlasSddmm(a, x, std::vector<float>(3), 8, Quick(1));
            }).find("GraphBlasSddmm: Y has 3 elements, expected 4 x feat 8 = 32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { GraphBlasSpmm(a, b, 0, Quick(1)); }).find("feat 0: expected at least 1"),
            std::string::npos);
  CsrMatrix broken = a;
  broken.indices[1] = 9;
  EXPECT_NE(error_of([&] { EigenSddmm(broken, x, y, 8, Quick(1)); })
                .find("EigenSddmm: the sparse matrix A is not valid CSR: row 2: column 9 out of "
                      "range 0..3"),
            std::string::npos);
  if (EigenAvailable()) {
    EXPECT_NE(error_of([&] { EigenSpmm(a, b, 8, Quick(0)); }).find("threads 0: expected >= 1"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::bench
