// BatchRunner on real candidates: each scheduled matmul is built and timed on this CPU and
// checked against the interpreter by the runtime; an unparsable candidate is a build error,
// a candidate of an unknown workload a machinery error, and workloads are cached per worker;
// with the fault switch on, only matching tasks' results are broken.
#include "worker/batch_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/search/test_funcs.h"
#include "worker/fake_measurer.h"

namespace kiln::worker {
namespace {

using ::testing::HasSubstr;

schemas::MeasureBatchMsg MatmulBatch(int count) {
  ir::PrimFunc workload = search::testing::MakeMatmul(16, 16, 16);
  std::string hash = ir::StructuralHashHex(workload);
  schemas::MeasureBatchMsg batch;
  batch.batch_id = 3;
  batch.settings.timing.number = 2;
  batch.settings.timing.min_repeat_ms = 0;
  batch.workloads = {{hash, "matmul", ir::PrintPrimFunc(workload)}};
  for (int i = 0; i < count; ++i) {
    search::Schedule sch(workload, 7 + i);
    auto loops = sch.GetLoops(sch.GetBlock("C"));
    auto tiles = sch.SamplePerfectTile(loops[1], 2, 16);
    sch.Split(loops[1], {tiles[0], tiles[1]});
    batch.candidates.push_back({static_cast<uint64_t>(10 + i),
                                hash,
                                ir::PrintPrimFunc(sch.func()),
                                sch.trace().ToJSON().dump(),
                                {}});
  }
  return batch;
}

TEST(BatchRunner, MeasuresRealCandidatesAndReportsEachFault) {
  runtime::testing::ScratchDir cache;
  BatchRunner runner({.device_kind = "cpu", .worker_id = "w1", .cache_dir = cache.Sub("cache")});
  schemas::MeasureBatchMsg batch = MatmulBatch(2);
  schemas::CandidateMsg broken = batch.candidates[0];
  broken.id = 50;
  broken.scheduled = "this is not TVMScript";
  batch.candidates.push_back(broken);
  schemas::CandidateMsg orphan = batch.candidates[0];
  orphan.id = 51;
  orphan.workload_hash = "0123456789abcdef";
  batch.candidates.push_back(orphan);

  schemas::ResultsMsg results = runner.Run(batch);
  EXPECT_EQ(results.batch_id, 3u);
  EXPECT_EQ(results.worker_id, "w1");
  ASSERT_EQ(results.results.size(), 4u);
  for (int i = 0; i < 2; ++i) {
    const auto& r = results.results[i];
    EXPECT_EQ(r.id, static_cast<uint64_t>(10 + i));
    EXPECT_TRUE(r.result.ok()) << r.result.message << r.machinery_error;
    EXPECT_TRUE(r.result.correctness_checked);  // compared with the interpreter
    EXPECT_GT(r.result.median_seconds, 0);
  }
  EXPECT_EQ(results.results[2].result.error_kind, runtime::MeasureErrorKind::kBuildError);
  EXPECT_THAT(results.results[2].result.message, HasSubstr("scheduled function"));
  EXPECT_THAT(results.results[3].machinery_error, HasSubstr("no workload 0123456789abcdef"));
  EXPECT_EQ(runner.cached_workloads(), 1u);

  // The next batch refers to the workload by hash only.
  schemas::MeasureBatchMsg next = MatmulBatch(1);
  next.workloads.clear();
  EXPECT_TRUE(runner.Run(next).results[0].result.ok());
}

TEST(BatchRunner, AFaultSwitchBreaksOnlyTheMatchingTasks) {
  runtime::testing::ScratchDir cache;
  schemas::MeasureBatchMsg batch = MatmulBatch(1);
  for (const char* pattern : {"nothing*", "*"}) {
    BatchRunner runner({.device_kind = "cpu",
                        .worker_id = "w1",
                        .cache_dir = cache.Sub("cache"),
                        .fault = runtime::FaultSpec{runtime::FaultKind::kWrong, pattern}});
    schemas::ResultsMsg results = runner.Run(batch);
    const auto& r = results.results.at(0);
    if (std::string(pattern) == "*") {
      EXPECT_EQ(r.result.error_kind, runtime::MeasureErrorKind::kWrongResult);
      EXPECT_THAT(r.result.message, HasSubstr("fault injected (wrong)"));
    } else {
      EXPECT_TRUE(r.result.ok()) << r.result.message;
    }
  }
}

TEST(BatchRunner, FakeDeviceSleepsAndReportsItsFixedTime) {
  RegisterFakeMeasurer();
  BatchRunner runner({.device_kind = "fake", .worker_id = "w2"});
  schemas::ResultsMsg results = runner.Run(MatmulBatch(3));
  ASSERT_EQ(results.results.size(), 3u);
  for (const auto& r : results.results) {
    EXPECT_TRUE(r.result.ok());
    EXPECT_GT(r.result.median_seconds, 0);
  }
}

}  // namespace
}  // namespace kiln::worker
