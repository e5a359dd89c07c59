// The CPU measurement pipeline end to end: correct candidates are ok (checked against the
// reference once per build), and candidates that crash, hang, compute something else, fail
// to build or take other parameters become error results while this process goes on.
#include "runtime/cpu_measurer.h"

#include <gtest/gtest.h>

#include <chrono>

#include "ir/text/parser.h"
#include "runtime_test_util.h"
#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

// B = A * 2 over 256 elements, and candidates of it.
constexpr char kScale[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(2)
)";

// Stores 8 GB past the end of B: the kernel dies of SIGSEGV.
constexpr char kCrash[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi + 2000000000] = A[vi] * T.float32(2)
)";

// 2^62 additions that no compiler may fold: the kernel never returns.
constexpr char kHang[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(2)
    for j, k in T.grid(2147483647, 2147483647):
        with T.block("spin"):
            vj, vk = T.axis.remap("SS", [j, k])
            B[0] = B[0] + A[1]
)";

// Computes A * 3: runs fine, answers wrongly.
constexpr char kWrong[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(3)
)";

// Takes a B of another shape.
constexpr char kOtherShape[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.block("B"):
            vi = T.axis.spatial(128, i)
            B[vi] = A[vi] * T.float32(2)
)";

// A 128^3 matmul: long enough per run (a few hundred microseconds at least) that one run is a
// time record.
constexpr char kMatmul[] = R"(
@T.prim_func
def mm(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// A symbolic size that no candidate binds: no reference can be made for it.
constexpr char kUnbound[] = R"(
@T.prim_func
def scale(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] * T.float32(2)
)";

class CpuMeasurerTest : public ::testing::Test {
 protected:
  MeasureOptions Options() {
    MeasureOptions o;
    o.cache_dir = dir_.Sub("cache");
    o.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
    o.timing = {.number = 1, .repeat = 3, .min_repeat_ms = 1, .warmup = 1};
    o.run_time_limit_s = 20;
    o.num_threads = 1;
    // Other tests run alongside: a contended timing timed again would change the messages
    // these tests check (measure_under_load_test.cc covers timing again).
    o.max_retimes = 0;
    return o;
  }
  ScratchDir dir_;
};

ir::PrimFunc Parse(const char* text) { return ir::ParsePrimFunc(text, "<test>"); }

// The function of `text` under another name: the same code built as another library.
ir::PrimFunc Renamed(const char* text, const std::string& name) {
  std::string source = text;
  size_t def = source.find("def ") + 4;
  source.replace(def, source.find('(', def) - def, name);
  return Parse(source.c_str());
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(CpuMeasurerTest, UnscheduledMatmulIsMeasuredAndChecked) {
  CpuMeasurer measurer(Options());
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  MeasureDetails details;
  MeasureResult r = measurer.Measure({f, f}, &details);
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message;
  EXPECT_TRUE(r.correctness_checked);
  EXPECT_EQ(r.reference.rfind("interpreter, full", 0), 0u) << r.reference;
  EXPECT_NE(r.reference.find("compared every element of C[32, 48]"), std::string::npos)
      << r.reference;
  EXPECT_LT(r.max_rel_error, 1e-3);
  ASSERT_EQ(r.repeat_seconds.size(), 3u);
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_GT(r.build_seconds, 0);
  EXPECT_FALSE(r.build_cache_hit);
  EXPECT_TRUE(details.lowered.defined());
  EXPECT_NE(details.source.code.find("kiln_matmul"), std::string::npos);
  EXPECT_EQ(details.reference->params.size(), 3u);
}

TEST_F(CpuMeasurerTest, AScheduledCandidateIsCheckedOncePerBuild) {
  CpuMeasurer measurer(Options());
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  search::Schedule sch(f);
  search::BlockRV c = sch.GetBlock("C");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  sch.Reorder({loops[0], j[0], loops[2], j[1]});
  sch.Parallel(loops[0]);
  sch.Vectorize(j[1]);
  MeasureResult first = measurer.Measure({f, sch.func()});
  ASSERT_TRUE(first.ok()) << first.message;
  EXPECT_NE(first.reference.find("compared every element"), std::string::npos);
  MeasureResult second = measurer.Measure({f, sch.func()});
  ASSERT_TRUE(second.ok()) << second.message;
  EXPECT_TRUE(second.build_cache_hit);
  EXPECT_TRUE(second.correctness_checked);
  EXPECT_NE(second.reference.find("this build matched it before"), std::string::npos)
      << second.reference;
}

TEST_F(CpuMeasurerTest, ParallelKernelOnSeveralThreads) {
  // The sandbox must survive the OpenMP worker threads a parallel kernel leaves behind.
  MeasureOptions options = Options();
  options.num_threads = 2;
  CpuMeasurer measurer(options);
  ir::PrimFunc f = ir::zoo::ZooLookup("dense_bias_relu").build();
  search::Schedule sch(f);
  std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock("dense"));
  sch.Parallel(loops[0]);
  MeasureDetails details;
  MeasureResult r = measurer.Measure({f, sch.func()}, &details);
  EXPECT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message;
  EXPECT_NE(details.source.code.find("omp parallel"), std::string::npos);
}

TEST_F(CpuMeasurerTest, CrashHangAndWrongCandidatesAreErrorsAndMeasuringGoesOn) {
  MeasureOptions options = Options();
  options.run_time_limit_s = 2;
  CpuMeasurer measurer(options);
  ir::PrimFunc workload = Parse(kScale);

  auto start = std::chrono::steady_clock::now();
  MeasureResult crash = measurer.Measure({workload, Parse(kCrash)});
  EXPECT_EQ(crash.error_kind, MeasureErrorKind::kRuntimeError) << crash.message;
  EXPECT_NE(crash.message.find("SIGSEGV"), std::string::npos) << crash.message;
  EXPECT_TRUE(crash.repeat_seconds.empty());

  start = std::chrono::steady_clock::now();
  MeasureResult hang = measurer.Measure({workload, Parse(kHang)});
  double hang_s = SecondsSince(start);
  EXPECT_EQ(hang.error_kind, MeasureErrorKind::kTimeout) << hang.message;
  EXPECT_NE(hang.message.find("limit 2 s"), std::string::npos) << hang.message;
  EXPECT_LT(hang_s, 2 + 10) << "the build plus the 2 s limit, with margin";

  MeasureResult good = measurer.Measure({workload, workload});
  EXPECT_TRUE(good.ok()) << good.message;
  EXPECT_GT(good.median_seconds, 0);

  MeasureResult wrong = measurer.Measure({workload, Parse(kWrong)});
  EXPECT_EQ(wrong.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_NE(wrong.message.find("output B: element ["), std::string::npos) << wrong.message;
  EXPECT_NE(wrong.message.find("256 of 256 elements differ"), std::string::npos) << wrong.message;
  EXPECT_GT(wrong.max_rel_error, 0.4);
  EXPECT_TRUE(wrong.repeat_seconds.empty()) << "a wrong kernel is never a fast one";
  EXPECT_EQ(wrong.median_seconds, 0);
}

TEST_F(CpuMeasurerTest, CompilerPastItsTimeLimitIsABuildError) {
  MeasureOptions options = Options();
  options.build_time_limit_s = 0.001;
  CpuMeasurer measurer(options);
  ir::PrimFunc workload = Parse(kScale);
  MeasureResult r = measurer.Measure({workload, workload});
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("timed out"), std::string::npos) << r.message;
}

TEST_F(CpuMeasurerTest, CandidateWithOtherParametersIsAWrongResult) {
  CpuMeasurer measurer(Options());
  MeasureResult r = measurer.Measure({Parse(kScale), Parse(kOtherShape)});
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_NE(r.message.find("parameter 1 (B): the scheduled function takes float32[128]"),
            std::string::npos)
      << r.message;
}

TEST_F(CpuMeasurerTest, BatchesBuildAheadAndKeepTheOrder) {
  MeasureOptions options = Options();
  options.build_jobs = 2;
  std::unique_ptr<Measurer> measurer = CreateMeasurer("cpu", options);
  EXPECT_EQ(measurer->DeviceKind(), "cpu");
  ir::PrimFunc workload = Parse(kScale);
  std::vector<MeasureResult> results = measurer->MeasureBatch(
      {{workload, workload}, {workload, Parse(kWrong)}, {workload, workload}});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok()) << results[0].message;
  EXPECT_EQ(results[1].error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_TRUE(results[2].ok()) << results[2].message;
}

TEST_F(CpuMeasurerTest, EarlyCutoffTimesASlowCandidateFromOneRunAndSaysSo) {
  // A cutoff at 0.6 of the best: every later candidate as slow as the best counts as slow,
  // whatever the machine's speed, and is not far enough past it to be abandoned. The best is
  // the median of 5 repeats of 20 ms: a test running alongside slowed a median of 3 repeats of
  // 5 ms by more than 1/0.6 once, and the next candidate's first run fell under the cutoff.
  // A best timed while the machine was busy is timed again (max_retimes), as in tuning, so
  // that the cutoff is not set from a slowed best.
  MeasureOptions options = Options();
  options.timing = {.number = 3, .repeat = 5, .min_repeat_ms = 20, .warmup = 1};
  options.max_retimes = 2;
  options.cutoff_factor = 0.6;
  options.cutoff_min_seconds = 0;
  CpuMeasurer measurer(options);
  ir::PrimFunc workload = Parse(kMatmul);

  // The first of the workload: nothing to compare with, the whole protocol.
  MeasureResult first = measurer.Measure({workload, workload});
  ASSERT_TRUE(first.ok()) << first.message;
  EXPECT_TRUE(first.message.empty() || first.message.rfind("timed ", 0) == 0) << first.message;
  EXPECT_EQ(first.repeat_seconds.size(), 5u);
  EXPECT_GE(first.number, 3);
  EXPECT_GT(measurer.CutoffSeconds(measurer.references().Get(workload, {}, 1)->key), 0);

  // The same code as another build (another symbol): checked against the reference, then
  // timed from that one run, with the record saying so.
  ir::PrimFunc renamed = Renamed(kMatmul, "mm_again");
  MeasureResult slow = measurer.Measure({workload, renamed});
  ASSERT_TRUE(slow.ok()) << slow.message;
  EXPECT_TRUE(slow.correctness_checked);
  EXPECT_NE(slow.reference.find("compared every element"), std::string::npos) << slow.reference;
  EXPECT_EQ(slow.number, 1);
  ASSERT_EQ(slow.repeat_seconds.size(), 1u);
  EXPECT_EQ(slow.median_seconds, slow.repeat_seconds[0]);
  EXPECT_GT(slow.median_seconds, 0);
  // Its checked run past the cutoff and one more run (or, if the checked run was very slow,
  // that run alone).
  EXPECT_NE(slow.message.find("early cutoff: "), std::string::npos) << slow.message;

  // A build already checked: its warm-up run decides, cut off early either way: timed from that
  // run, or (when a busy machine slowed it past 4 x the cutoff) abandoned as a lower bound.
  MeasureResult again = measurer.Measure({workload, renamed});
  EXPECT_NE(again.message.find("early cutoff"), std::string::npos) << again.message;
  if (again.ok()) {
    EXPECT_NE(again.reference.find("this build matched it before"), std::string::npos);
    EXPECT_EQ(again.repeat_seconds.size(), 1u);
  } else {
    EXPECT_NE(again.message.find("abandoned by the early cutoff"), std::string::npos)
        << again.message;
  }

  // Another workload has a best of its own: its first candidate gets the whole protocol.
  MeasureResult other = measurer.Measure({Parse(kScale), Parse(kScale)});
  ASSERT_TRUE(other.ok()) << other.message;
  // No cutoff; on a busy machine the note that it was timed again may stand.
  EXPECT_EQ(other.message.find("early cutoff"), std::string::npos) << other.message;
  EXPECT_TRUE(other.message.empty() || other.message.rfind("timed ", 0) == 0) << other.message;
  EXPECT_EQ(other.repeat_seconds.size(), 5u);
}

TEST_F(CpuMeasurerTest, AFirstRunFarPastTheCutoffIsAbandoned) {
  // A cutoff at a hundredth of the best: a checked run as slow as the best is stopped at four
  // hundredths of it (tens of milliseconds for this matmul), never checked, and recorded as
  // a timeout whose time is a lower bound.
  MeasureOptions options = Options();
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 1};
  options.cutoff_factor = 0.01;
  options.cutoff_min_seconds = 0;
  CpuMeasurer measurer(options);
  // The matmul at 384^3: a run of tens of milliseconds, long enough for the watchdog.
  std::string text = kMatmul;
  for (size_t at = text.find("128"); at != std::string::npos; at = text.find("128", at)) {
    text.replace(at, 3, "384");
  }
  const char* big = text.c_str();
  ir::PrimFunc workload = Parse(big);
  MeasureResult first = measurer.Measure({workload, workload});
  ASSERT_TRUE(first.ok()) << first.message;
  MeasureResult slow = measurer.Measure({workload, Renamed(big, "mm_again")});
  EXPECT_EQ(slow.error_kind, MeasureErrorKind::kTimeout) << slow.message;
  EXPECT_FALSE(slow.correctness_checked);
  EXPECT_GT(slow.median_seconds, 0);
  EXPECT_LT(slow.median_seconds, first.median_seconds);
  EXPECT_TRUE(slow.repeat_seconds.empty());
  EXPECT_NE(slow.message.find("abandoned by the early cutoff"), std::string::npos) << slow.message;
}

TEST_F(CpuMeasurerTest, WithoutCutoffEveryCandidateGetsTheWholeProtocol) {
  MeasureOptions options = Options();
  options.timing = {.number = 3, .repeat = 3, .min_repeat_ms = 5, .warmup = 1};
  options.cutoff_factor = 0;
  CpuMeasurer measurer(options);
  ir::PrimFunc workload = Parse(kMatmul);
  ASSERT_TRUE(measurer.Measure({workload, workload}).ok());
  ir::PrimFunc renamed = Renamed(kMatmul, "mm_again");
  MeasureResult second = measurer.Measure({workload, renamed});
  ASSERT_TRUE(second.ok()) << second.message;
  EXPECT_TRUE(second.message.empty()) << second.message;
  EXPECT_EQ(second.repeat_seconds.size(), 3u);
  EXPECT_GE(second.number, 3);

  options.cutoff_factor = -1;
  EXPECT_THROW(CpuMeasurer{options}, Error);
}

TEST_F(CpuMeasurerTest, PrepareBuildsWithoutTheReferenceAndRunNeedsIt) {
  // Candidates build while the reference is computed (the local measurer's runner makes it):
  // the build does not ask for it; the run does, and a reference that cannot be made is the
  // machinery's failure, not the candidate's.
  CpuMeasurer measurer(Options());
  ir::PrimFunc unbound = Parse(kUnbound);
  CpuMeasurer::Prepared p = measurer.Prepare({unbound, unbound});
  EXPECT_TRUE(p.built) << p.result.message;
  EXPECT_EQ(p.details.reference, nullptr);
  EXPECT_THROW(measurer.Run({unbound, unbound}, p), Error);

  ir::PrimFunc scale = Parse(kScale);
  CpuMeasurer::Prepared q = measurer.Prepare({scale, scale});
  ASSERT_TRUE(q.built) << q.result.message;
  MeasureResult r = measurer.Run({scale, scale}, q);
  EXPECT_TRUE(r.ok()) << r.message;
  ASSERT_NE(q.details.reference, nullptr);
  EXPECT_EQ(q.details.reference->params.size(), 2u);
}

TEST(MeasurerRegistry, TargetsAndDeviceKinds) {
  EXPECT_EQ(DeviceKindOfTarget("llvm"), "cpu");
  EXPECT_EQ(DeviceKindOfTarget("llvm -mcpu=znver4"), "cpu");
  EXPECT_EQ(DeviceKindOfTarget("c"), "cpu");
  EXPECT_EQ(DeviceKindOfTarget("metal"), "metal");
  EXPECT_THROW(DeviceKindOfTarget("tpu"), Error);
  try {
    CreateMeasurer("quantum", {});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("known: cpu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::runtime
