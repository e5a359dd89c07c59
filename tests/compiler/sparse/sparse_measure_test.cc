// Stage-III sparse kernels through the real compiler, run in the sandbox and checked against
// the naive reference: the sparse design space's sketches and random samples, and a short
// tuning of SpMM and SDDMM whose records the tuning database keeps for the same structure.
#include <gtest/gtest.h>

#include "compiler/sparse/sparse_reference_store.h"
#include "compiler/sparse/sparse_tuning.h"
#include "compiler/sparse/sparse_workloads.h"
#include "runtime/measurer.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "tests/compiler/sparse/test_matrices.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using testing::Banded;
using testing::RandomMatrix;

using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

class SparseMeasure : public ::testing::TestWithParam<SparseOp> {};

// Every sketch of the sparse space, with its tiles drawn at random several times, builds,
// runs and matches the naive reference.
TEST_P(SparseMeasure, EverySampledScheduleMatchesTheReference) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = Banded(200, 4);
  if (GetParam() == SparseOp::kSpmm) a = PadEmptyRows(a);
  SparseProblem p = ProblemOf(GetParam(), a, 48);
  ir::PrimFunc w = CsrWorkload(p);
  auto reference = SparseReference(w, p, a, 3, dir.path().string());
  runtime::MeasureOptions o;
  o.cache_dir = dir.path().string();
  o.timing.min_repeat_ms = 1;
  auto measurer = runtime::CreateMeasurer("cpu", o);

  search::TuneContext context;
  context.workload = w;
  context.num_cores = 2;
  search::DesignSpace space = search::MakeDesignSpace("sparse-cpu");
  space.Initialize(context);
  std::vector<search::Schedule> sketches = space.Sketches(context);
  ASSERT_EQ(sketches.size(), 2u) << "one sketch with the nonzero loop unrolled, one without";
  int measured = 0;
  for (const search::Schedule& sketch : sketches) {
    // SpMM accumulates a row's tile in registers, zeroed before the nonzero loop.
    if (GetParam() == SparseOp::kSpmm) {
      std::string trace = sketch.trace().ToJSON().dump();
      EXPECT_NE(trace.find("CacheWrite"), std::string::npos) << trace;
      EXPECT_NE(trace.find("DecomposeReduction"), std::string::npos) << trace;
    }
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      search::RandomEngine rng(seed);
      std::optional<search::Candidate> c =
          search::SampleCandidate(w, sketch.trace(), space.postprocs, rng, nullptr);
      ASSERT_TRUE(c.has_value());
      runtime::MeasureResult r = measurer->Measure({w, c->scheduled, {}, reference});
      // Checked as allclose(rtol 1e-4, atol 1e-5), float32's tolerance.
      EXPECT_TRUE(r.ok() && r.correctness_checked) << r.message;
      ++measured;
    }
  }
  EXPECT_EQ(measured, 6);
}

// The parallel rows' split is a decision: equal shares of the rows, or of the nonzeros (the C
// emitter's binary search over a_indptr). On three threads over a matrix with one dense row
// and padded empty ones, both kinds are drawn and both match the reference.
TEST_P(SparseMeasure, RowsBalancedByNonzerosMatchTheReferenceOnThreeThreads) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = RandomMatrix(301, 96, 0.04, 5, /*dense_row=*/true);
  if (GetParam() == SparseOp::kSpmm) a = PadEmptyRows(a);
  SparseProblem p = ProblemOf(GetParam(), a, 32);
  ir::PrimFunc w = CsrWorkload(p);
  auto reference = SparseReference(w, p, a, 4, dir.path().string());
  runtime::MeasureOptions o;
  o.cache_dir = dir.path().string();
  o.timing.min_repeat_ms = 1;
  o.num_threads = 3;
  auto measurer = runtime::CreateMeasurer("cpu", o);
  search::TuneContext context;
  context.workload = w;
  context.num_cores = 3;
  search::DesignSpace space = search::MakeDesignSpace("sparse-cpu");
  space.Initialize(context);
  const search::Schedule sketch = space.Sketches(context).at(0);
  int balanced = 0, by_rows = 0;
  for (uint64_t seed = 1; seed <= 10 && (balanced < 2 || by_rows < 1); ++seed) {
    search::RandomEngine rng(seed);
    std::optional<search::Candidate> c =
        search::SampleCandidate(w, sketch.trace(), space.postprocs, rng, nullptr);
    ASSERT_TRUE(c.has_value());
    runtime::MeasureDetails details;
    runtime::MeasureResult r = measurer->Measure({w, c->scheduled, {}, reference}, &details);
    EXPECT_TRUE(r.ok() && r.correctness_checked) << r.message;
    const bool is_balanced = details.source.code.find("kiln_balanced_row(") != std::string::npos;
    // The balanced rows are a parallel region of their own (OpenMP's static split otherwise).
    EXPECT_EQ(is_balanced, details.source.code.find("#pragma omp parallel\n") != std::string::npos)
        << details.source.code;
    (is_balanced ? balanced : by_rows) += 1;
  }
  EXPECT_GE(balanced, 1);
  EXPECT_GE(by_rows, 1);
}

// A wrong kernel is caught: the reference is the naive kernel's, not the workload's own run.
TEST_P(SparseMeasure, AWrongKernelIsAWrongResult) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = PadEmptyRows(Banded(64, 2));
  CsrMatrix other = PadEmptyRows(Banded(64, 3));
  SparseProblem p = ProblemOf(GetParam(), a, 16);
  ir::PrimFunc w = CsrWorkload(p);
  // The same code checked against another structure's reference: the outputs differ.
  auto wrong = SparseReference(CsrWorkload(ProblemOf(GetParam(), other, 16)),
                               ProblemOf(GetParam(), other, 16), other, 3, dir.path().string());
  runtime::MeasureOptions o;
  o.cache_dir = dir.path().string();
  o.timing.min_repeat_ms = 1;
  auto measurer = runtime::CreateMeasurer("cpu", o);
  runtime::MeasureResult r = measurer->Measure({w, w, {}, wrong});
  EXPECT_FALSE(r.ok());
}

TEST_P(SparseMeasure, ShortTuningFindsACorrectKernel) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = Banded(256, 6);
  SparseTuneOptions options;
  options.trials = 8;
  options.threads = 1;
  options.min_repeat_ms = 5;
  options.cache_dir = dir.path().string();
  options.database_path = dir.Sub("tuning.db");
  SparseTuneResult r = TuneSparse(a, GetParam(), 32, options);
  EXPECT_TRUE(r.correct) << r.failure;
  EXPECT_GT(r.untuned_seconds, 0);
  EXPECT_GT(r.best_seconds, 0);
  EXPECT_GT(r.trials, 0);
  EXPECT_EQ(r.records_stored, r.trials);
  EXPECT_EQ(r.seeded, 0);
  // The same structure again starts from the stored records; another feature size does not.
  SparseTuneResult again = TuneSparse(a, GetParam(), 32, options);
  EXPECT_GT(again.seeded, 0);
  EXPECT_TRUE(again.correct) << again.failure;
  SparseTuneResult other = TuneSparse(a, GetParam(), 16, options);
  EXPECT_EQ(other.seeded, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, SparseMeasure, ::testing::Values(SparseOp::kSpmm, SparseOp::kSddmm),
                         [](const auto& info) { return std::string(SparseOpName(info.param)); });

}  // namespace
}  // namespace kiln::compiler::sparse
