// Block-sparse attention's kernels through the real compiler, run in the sandbox and checked
// against the naive reference: every sketch of "sparse-cpu" with its tiles drawn at random, on
// a small BigBird mask and on a mask whose rows hold one block; a wrong reference is a wrong
// result; a short TuneSparseAttention whose records seed the same structure's next tuning.
#include <gtest/gtest.h>

#include "compiler/sparse/attention_tuning.h"
#include "compiler/sparse/attention_workloads.h"
#include "runtime/measurer.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using ir::sparse::CooEntry;

AttentionMask OneBlockRows(int64_t blocks, int64_t b) {
  std::vector<CooEntry> e;
  for (int64_t i = 0; i < blocks; ++i) e.push_back({i, (i * 3 + 1) % blocks, 1.0});
  return MaskFromLayout(ir::sparse::CsrFromEntries(blocks, blocks, std::move(e)), b);
}

std::unique_ptr<runtime::Measurer> CpuMeasurer(const runtime::testing::ScratchDir& dir) {
  runtime::MeasureOptions o;
  o.cache_dir = dir.path().string();
  o.timing.min_repeat_ms = 1;
  o.num_threads = 2;
  return runtime::CreateMeasurer("cpu", o);
}

// Every kernel as written and every sketch of the "sparse-cpu" space with its decisions drawn
// twice build, run and match the naive reference.
void ExpectSampledSchedulesMatch(const AttentionProblem& p) {
  runtime::testing::ScratchDir dir;
  std::vector<SparseKernel> kernels = AttentionKernels(p, 3, dir.path().string());
  ASSERT_EQ(kernels.size(), 3u);
  auto measurer = CpuMeasurer(dir);
  for (const SparseKernel& k : kernels) {
    SCOPED_TRACE(k.name);
    runtime::MeasureResult as_written =
        measurer->Measure({k.workload, k.workload, {}, k.reference});
    EXPECT_TRUE(as_written.ok() && as_written.correctness_checked) << as_written.message;
    EXPECT_NE(as_written.reference.find("naive block-sparse attention"), std::string::npos);

    search::TuneContext context;
    context.workload = k.workload;
    context.num_cores = 2;
    search::DesignSpace space = search::MakeDesignSpace("sparse-cpu");
    space.Initialize(context);
    std::vector<search::Schedule> sketches = space.Sketches(context);
    ASSERT_GE(sketches.size(), 2u);
    int measured = 0;
    for (size_t s = 0; s < sketches.size(); ++s) {
      const std::string trace = sketches[s].trace().ToJSON().dump();
      EXPECT_NE(trace.find("Parallel"), std::string::npos) << "the rows run in parallel\n" << trace;
      if (k.name == "attention_spmm") {
        // O's row tile accumulates in registers, zeroed before the nonzero loop.
        EXPECT_NE(trace.find("CacheWrite"), std::string::npos) << trace;
        EXPECT_NE(trace.find("DecomposeReduction"), std::string::npos) << trace;
      }
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        search::RandomEngine rng(seed * 7 + s);
        std::optional<search::Candidate> c =
            search::SampleCandidate(k.workload, sketches[s].trace(), space.postprocs, rng, nullptr);
        ASSERT_TRUE(c.has_value()) << "sketch " << s;
        runtime::MeasureResult r = measurer->Measure({k.workload, c->scheduled, {}, k.reference});
        EXPECT_TRUE(r.ok() && r.correctness_checked) << "sketch " << s << ": " << r.message;
        ++measured;
      }
    }
    EXPECT_EQ(measured, static_cast<int>(sketches.size()) * 2);
  }
}

TEST(AttentionMeasure, SampledSchedulesMatchTheReferenceOnBigBird) {
  ExpectSampledSchedulesMatch({BigBirdMask(256, 32), 2, 32});
}

TEST(AttentionMeasure, SampledSchedulesMatchTheReferenceWithOneBlockPerRow) {
  ExpectSampledSchedulesMatch({OneBlockRows(6, 16), 2, 16});
}

// The reference is the naive attention's, not the workload's own run: the softmax checked
// against another mask's reference is a wrong result.
TEST(AttentionMeasure, AWrongKernelIsAWrongResult) {
  runtime::testing::ScratchDir dir;
  AttentionProblem p{BigBirdMask(128, 32), 2, 16};
  std::vector<SparseKernel> kernels = AttentionKernels(p, 3, dir.path().string());
  std::vector<SparseKernel> other = AttentionKernels(p, 4, dir.path().string());
  auto measurer = CpuMeasurer(dir);
  runtime::MeasureResult r =
      measurer->Measure({kernels[2].workload, kernels[2].workload, {}, other[1].reference});
  EXPECT_FALSE(r.ok());
  runtime::MeasureResult wrong_inputs =
      measurer->Measure({kernels[1].workload, kernels[1].workload, {}, kernels[0].reference});
  EXPECT_FALSE(wrong_inputs.ok());
}

TEST(AttentionTuning, ShortTuningReportsEveryKernel) {
  runtime::testing::ScratchDir dir;
  AttentionProblem p{BigBirdMask(256, 32), 2, 32};
  SparseTuneOptions options;
  options.trials = 9;
  options.threads = 1;
  options.min_repeat_ms = 5;
  options.cache_dir = dir.path().string();
  options.database_path = dir.Sub("tuning.db");
  AttentionTuneResult r = TuneSparseAttention(p, options);
  EXPECT_TRUE(r.tuned.correct) << r.tuned.failure;
  ASSERT_EQ(r.kernels.size(), 3u);
  double untuned = 0, best = 0;
  for (const AttentionKernelFigure& k : r.kernels) {
    EXPECT_GT(k.untuned_seconds, 0) << k.name;
    EXPECT_GT(k.best_seconds, 0) << k.name;
    EXPECT_LE(k.best_seconds, k.untuned_seconds * 1.0000001) << k.name;
    untuned += k.untuned_seconds;
    best += k.best_seconds;
  }
  EXPECT_NEAR(r.tuned.untuned_seconds, untuned, 1e-12);
  EXPECT_NEAR(r.tuned.best_seconds, best, 1e-12);
  EXPECT_GE(r.tuned.max_rel_error, 0);  // correct is allclose(rtol 1e-4, atol 1e-5)
  EXPECT_GT(r.tuned.trials, 0);
  EXPECT_EQ(r.tuned.records_stored, r.tuned.trials);
  EXPECT_EQ(r.tuned.seeded, 0);
  // The same mask again starts from the stored records; another head count does not.
  AttentionTuneResult again = TuneSparseAttention(p, options);
  EXPECT_GT(again.tuned.seeded, 0);
  EXPECT_TRUE(again.tuned.correct) << again.tuned.failure;
  options.trials = 3;
  AttentionTuneResult other = TuneSparseAttention({BigBirdMask(256, 32), 1, 32}, options);
  EXPECT_EQ(other.tuned.seeded, 0);
}

}  // namespace
}  // namespace kiln::compiler::sparse
