// The local asynchronous measurer's contract: every submitted id is answered exactly once,
// whatever the candidate does; a crashing or wrong candidate is a result of its kind; a
// correct one is checked against the reference; a fault of the machinery is reported as
// such, not as the candidate's.
#include "search/measure/local_measurer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "ir/text/parser.h"
#include "runtime/sandbox_client.h"

namespace kiln::search {
namespace {

constexpr char kScale[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(2)
)";

// The same function, split: a different build of a correct kernel.
constexpr char kScaleSplit[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i0, i1 in T.grid(16, 16):
        with T.block("B"):
            vi = T.axis.spatial(256, i0 * 16 + i1)
            B[vi] = A[vi] * T.float32(2)
)";

// Stores 8 GB past the end of B: dies of SIGSEGV.
constexpr char kCrash[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi + 2000000000] = A[vi] * T.float32(2)
)";

constexpr char kWrong[] = R"(
@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] * T.float32(3)
)";

// A symbolic size that no request binds: the reference cannot be made.
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

ir::PrimFunc Parse(const char* text) { return ir::ParsePrimFunc(text, "<test>"); }

class LocalMeasurerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kiln-local-measurer-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  LocalMeasurerOptions Options() {
    LocalMeasurerOptions o;
    o.measure.cache_dir = (dir_ / "cache").string();
    o.measure.sandbox_path = runtime::FindSandboxExecutable(KILN_SANDBOX_PATH);
    o.measure.timing = {.number = 1, .repeat = 2, .min_repeat_ms = 1, .warmup = 1};
    o.measure.run_time_limit_s = 20;
    o.measure.num_threads = 1;
    // Other tests run alongside: a contended timing timed again would change the messages
    // these tests check (tests/runtime/measure_under_load_test.cc covers timing again).
    o.measure.max_retimes = 0;
    o.build_jobs = 2;
    return o;
  }

  // Collects until every submitted id has an answer or the deadline passes.
  static std::vector<MeasureResponse> CollectAll(LocalMeasurer& measurer, double deadline_s) {
    std::vector<MeasureResponse> all;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
    while (measurer.Pending() > 0 && std::chrono::steady_clock::now() < deadline) {
      for (MeasureResponse& r : measurer.Collect(1.0)) all.push_back(std::move(r));
    }
    return all;
  }

  std::filesystem::path dir_;
};

TEST_F(LocalMeasurerTest, EveryIdIsAnsweredOnceWithItsOutcome) {
  LocalMeasurer measurer(Options());
  ir::PrimFunc workload = Parse(kScale);
  std::map<uint64_t, std::string> expected = {
      {11, "ok"}, {12, "ok"}, {13, "runtime_error"}, {14, "wrong_result"}, {15, "ok"}};
  std::map<uint64_t, const char*> texts = {
      {11, kScale}, {12, kScaleSplit}, {13, kCrash}, {14, kWrong}, {15, kScaleSplit}};
  std::vector<MeasureRequest> requests;
  for (const auto& [id, text] : texts) {
    requests.push_back({.id = id,
                        .task_name = "scale",
                        .workload = workload,
                        .scheduled = Parse(text),
                        .trace = {}});
  }
  measurer.Submit(requests);
  EXPECT_EQ(measurer.Pending(), 5u);
  std::vector<MeasureResponse> responses = CollectAll(measurer, 120);
  ASSERT_EQ(responses.size(), 5u);
  EXPECT_EQ(measurer.Pending(), 0u);
  std::set<uint64_t> seen;
  for (const MeasureResponse& r : responses) {
    EXPECT_TRUE(seen.insert(r.id).second) << "id " << r.id << " answered twice";
    EXPECT_EQ(r.worker, "local");
    EXPECT_TRUE(r.machinery_error.empty()) << r.machinery_error;
    EXPECT_EQ(runtime::MeasureErrorKindName(r.result.error_kind), expected.at(r.id))
        << "id " << r.id << ": " << r.result.message;
    if (r.result.ok()) {
      EXPECT_TRUE(r.result.correctness_checked) << r.id;
      EXPECT_GT(r.result.median_seconds, 0) << r.id;
    } else {
      EXPECT_EQ(r.result.median_seconds, 0) << r.id;
    }
  }
  EXPECT_TRUE(measurer.Collect(0).empty());
  LocalMeasurerStats stats = measurer.Stats();
  EXPECT_EQ(stats.built, 5);
  EXPECT_EQ(stats.run, 5);
}

TEST_F(LocalMeasurerTest, AMachineryFaultIsNotTheCandidates) {
  LocalMeasurer measurer(Options());
  ir::PrimFunc unbound = Parse(kUnbound);
  ir::PrimFunc scale = Parse(kScale);
  measurer.Submit({{.id = 1, .task_name = "unbound", .workload = unbound, .scheduled = unbound},
                   {.id = 2, .task_name = "scale", .workload = scale, .scheduled = scale}});
  std::vector<MeasureResponse> responses = CollectAll(measurer, 120);
  ASSERT_EQ(responses.size(), 2u);
  for (const MeasureResponse& r : responses) {
    if (r.id == 1) {
      EXPECT_FALSE(r.machinery_error.empty());
    } else {
      EXPECT_TRUE(r.machinery_error.empty()) << r.machinery_error;
      EXPECT_TRUE(r.result.ok()) << r.result.message;
    }
  }
}

// `text` with the function renamed: the same kernel as another build.
ir::PrimFunc Renamed(const char* text, const std::string& name) {
  std::string source = text;
  size_t def = source.find("def ") + 4;
  source.replace(def, source.find('(', def) - def, name);
  return Parse(source.c_str());
}

TEST_F(LocalMeasurerTest, StatsSplitTheRunAndCountCutOffCandidates) {
  LocalMeasurerOptions options = Options();
  // A cutoff at a hundredth of the best: any later candidate's first run is far past it.
  options.measure.cutoff_factor = 0.01;
  options.measure.cutoff_min_seconds = 0;
  LocalMeasurer measurer(options);
  ir::PrimFunc workload = Parse(kScale);
  measurer.Submit({{.id = 1, .task_name = "scale", .workload = workload, .scheduled = workload}});
  std::vector<MeasureResponse> first = CollectAll(measurer, 120);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(first[0].result.ok()) << first[0].result.message;
  EXPECT_TRUE(first[0].result.message.empty()) << first[0].result.message;

  measurer.Submit({{.id = 2,
                    .task_name = "scale",
                    .workload = workload,
                    .scheduled = Renamed(kScale, "scale_b")},
                   {.id = 3,
                    .task_name = "scale",
                    .workload = workload,
                    .scheduled = Renamed(kScale, "scale_c")}});
  std::vector<MeasureResponse> later = CollectAll(measurer, 120);
  ASSERT_EQ(later.size(), 2u);
  // Each is timed from its first run, or abandoned in it when the watchdog's thread is up
  // before the (microsecond) run ends.
  int abandoned = 0;
  for (const MeasureResponse& r : later) {
    EXPECT_NE(r.result.message.find("early cutoff"), std::string::npos) << r.result.message;
    if (r.result.error_kind == runtime::MeasureErrorKind::kTimeout) {
      ++abandoned;
      EXPECT_NE(r.result.message.find("abandoned"), std::string::npos) << r.result.message;
      EXPECT_GT(r.result.median_seconds, 0);
      continue;
    }
    ASSERT_TRUE(r.result.ok()) << r.result.message;
    EXPECT_TRUE(r.result.correctness_checked);
    EXPECT_EQ(r.result.repeat_seconds.size(), 1u);
  }
  LocalMeasurerStats stats = measurer.Stats();
  EXPECT_EQ(stats.run, 3);
  EXPECT_EQ(stats.cut_off, 2);
  EXPECT_EQ(stats.abandoned, abandoned);
  EXPECT_GT(stats.kernel_seconds, 0);
  EXPECT_GE(stats.sandbox_seconds, stats.kernel_seconds);
  EXPECT_GE(stats.run_seconds, stats.sandbox_seconds);
  EXPECT_GT(stats.check_seconds, 0);
}

TEST_F(LocalMeasurerTest, CollectReturnsAtOnceWhenNothingIsPending) {
  LocalMeasurer measurer(Options());
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(measurer.Collect(30).empty());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
}

}  // namespace
}  // namespace kiln::search
