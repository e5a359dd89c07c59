// SandboxClient end to end with the real kiln-sandbox: correct kernels with their outputs
// checked, and candidates that crash, abort, hang, fail to build or return an error code,
// each mapped to its error kind while this process goes on.
#include "runtime/sandbox_client.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <fstream>

#include "ir/interpreter/interpreter.h"
#include "runtime/file_util.h"
#include "runtime_test_util.h"
#include "test_kernels.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

class SandboxClientTest : public ::testing::Test {
 protected:
  SandboxClientTest()
      : client_({.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH),
                 .time_limit_s = 20,
                 .extra_env = {"OMP_NUM_THREADS=1"}}) {}

  // A request for `source` (written to a file) with the vector-add signature.
  SandboxRequest Request(const std::string& source, SandboxPhase phase,
                         const codegen::KernelSignature& signature, std::vector<ArgSpec> args) {
    static int count = 0;
    std::string path = dir_.Sub("kernel" + std::to_string(count++) + ".c");
    std::ofstream(path) << source;
    SandboxRequest q;
    q.phase = phase;
    q.source_path = path;
    q.build.cache_dir = dir_.Sub("cache");
    q.signature = signature;
    q.args = std::move(args);
    q.timing = {.number = 1, .repeat = 3, .min_repeat_ms = 5, .warmup = 1};
    return q;
  }
  std::vector<ArgSpec> VaddArgs(int64_t n = 1000) {
    ir::DataType f32 = ir::DataType::Float(32);
    return {ArgSpec::Random(f32, {n}, 1), ArgSpec::Random(f32, {n}, 2),
            ArgSpec::Random(f32, {n}, 3)};
  }
  // A candidate with `body` that must fail with `kind`, within `within_s`.
  SandboxOutcome RunFailing(const std::string& body, MeasureErrorKind kind, double limit_s,
                            SandboxPhase phase = SandboxPhase::kRunOnce) {
    SandboxClient client({.sandbox_path = client_.options().sandbox_path, .time_limit_s = limit_s});
    SandboxOutcome out = client.Run(Request(testing::KernelWithBody("vadd", body), phase,
                                            testing::VectorAddSignature(), VaddArgs()));
    EXPECT_EQ(out.measure.error_kind, kind)
        << MeasureErrorKindName(out.measure.error_kind) << ": " << out.measure.message;
    EXPECT_LT(out.wall_seconds, limit_s + 3);
    return out;
  }

  ScratchDir dir_;
  SandboxClient client_;
};

TEST_F(SandboxClientTest, VectorAddOutputsMatchAndTimesAreKept) {
  SandboxRequest q = Request(testing::VectorAddSource(), SandboxPhase::kTime,
                             testing::VectorAddSignature(), VaddArgs());
  q.dump_outputs = true;
  SandboxOutcome out = client_.Run(q);
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  EXPECT_GT(out.measure.build_seconds, 0);
  EXPECT_FALSE(out.measure.build_cache_hit);
  ASSERT_EQ(out.measure.repeat_seconds.size(), 3u);
  EXPECT_GT(out.measure.median_seconds, 0);
  EXPECT_GE(out.measure.number * out.measure.median_seconds, 0.5 * 5e-3);
  ASSERT_EQ(out.outputs.size(), 3u);

  std::vector<ir::ArgValue> ref = MaterializeArgs(q.args);
  const auto& a = std::get<ir::HostTensor>(ref[0]);
  const auto& b = std::get<ir::HostTensor>(ref[1]);
  ir::HostTensor expected(ir::DataType::Float(32), {1000});
  for (int64_t i = 0; i < 1000; ++i) {
    expected.SetDouble(i, static_cast<float>(a.GetDouble(i) + b.GetDouble(i)));
  }
  CheckOutputs({expected}, {out.outputs.at(2)}, out.measure);
  EXPECT_TRUE(out.measure.ok()) << out.measure.message;
  EXPECT_TRUE(out.measure.correctness_checked);
  EXPECT_EQ(out.measure.max_abs_error, 0);
  // Inputs come back unchanged.
  EXPECT_TRUE(ir::CompareTensors(a, out.outputs.at(0), 0, 0).ok);

  // The second build of the same source is a cache hit, seen from the sandbox.
  SandboxOutcome again = client_.Run(q);
  ASSERT_TRUE(again.measure.ok()) << again.measure.message;
  EXPECT_TRUE(again.measure.build_cache_hit);
  EXPECT_EQ(again.library_path, out.library_path);
}

TEST_F(SandboxClientTest, MatmulWithGivenInputsMatchesTheReference) {
  ir::DataType f32 = ir::DataType::Float(32);
  using testing::kK;
  using testing::kM;
  using testing::kN;
  ir::HostTensor a = ir::HostTensor::Random(f32, {kM, kK}, 11);
  ir::HostTensor b = ir::HostTensor::Random(f32, {kK, kN}, 12);
  SandboxOutcome out = client_.Run(
      Request(testing::MatmulSource(), SandboxPhase::kRunOnce, testing::MatmulSignature(),
              {ArgSpec::Tensor(a), ArgSpec::Tensor(b), ArgSpec::Random(f32, {kM, kN}, 13)}));
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  EXPECT_TRUE(out.measure.repeat_seconds.empty());

  ir::HostTensor expected(f32, {kM, kN});
  ir::Interpret(codegen::testing::Matmul(kM, kN, kK), {a.Clone(), b.Clone(), expected});
  CheckOutputs({expected}, {out.outputs.at(2)}, out.measure);
  EXPECT_TRUE(out.measure.ok()) << out.measure.message;
  EXPECT_LT(out.measure.max_abs_error, 1e-4);

  // A wrong reference makes it a wrong result, with the element named.
  expected.SetDouble(5, expected.GetDouble(5) + 1);
  CheckOutputs({expected}, {out.outputs.at(2)}, out.measure);
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_NE(out.measure.message.find("element [0, 5]"), std::string::npos) << out.measure.message;
}

TEST_F(SandboxClientTest, SegfaultIsARuntimeErrorNamingTheSignal) {
  SandboxOutcome out =
      RunFailing("  *(volatile int*)0 = 1;\n  return 0;", MeasureErrorKind::kRuntimeError, 10);
  EXPECT_NE(out.measure.message.find("SIGSEGV"), std::string::npos) << out.measure.message;
}

TEST_F(SandboxClientTest, AbortIsARuntimeErrorNamingTheSignal) {
  SandboxOutcome out = RunFailing("  abort();", MeasureErrorKind::kRuntimeError, 10);
  EXPECT_NE(out.measure.message.find("SIGABRT"), std::string::npos) << out.measure.message;
}

TEST_F(SandboxClientTest, InfiniteLoopTimesOutAndTheSandboxIsGone) {
  auto start = std::chrono::steady_clock::now();
  SandboxOutcome out = RunFailing("  volatile int x = 0;\n  for (;;) ++x;\n  return 0;",
                                  MeasureErrorKind::kTimeout, 2, SandboxPhase::kTime);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed, 2);
  EXPECT_LT(elapsed, 5);
  EXPECT_NE(out.measure.message.find("timed out"), std::string::npos) << out.measure.message;
  ASSERT_GT(out.sandbox_pid, 0);
  // The group was killed and the sandbox reaped before Run returned.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() < deadline) {
    gone = kill(-out.sandbox_pid, 0) != 0 && errno == ESRCH;
  }
  EXPECT_TRUE(gone) << "sandbox process group " << out.sandbox_pid << " still exists";
}

TEST_F(SandboxClientTest, CompileErrorIsABuildErrorWithTheCompilerMessage) {
  SandboxOutcome out =
      RunFailing("  return not_declared_anywhere;", MeasureErrorKind::kBuildError, 20);
  EXPECT_NE(out.measure.message.find("not_declared_anywhere"), std::string::npos)
      << out.measure.message;
}

TEST_F(SandboxClientTest, NonZeroReturnCodeIsARuntimeError) {
  SandboxOutcome out = RunFailing("  return 3;", MeasureErrorKind::kRuntimeError, 20);
  EXPECT_NE(out.measure.message.find("returned code 3"), std::string::npos) << out.measure.message;
}

TEST_F(SandboxClientTest, MissingSymbolIsABuildError) {
  SandboxRequest q = Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                             testing::VectorAddSignature("other_name"), VaddArgs());
  SandboxOutcome out = client_.Run(q);
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(out.measure.message.find("other_name"), std::string::npos) << out.measure.message;
}

TEST_F(SandboxClientTest, BuildPhaseThenRunFromTheLibrary) {
  SandboxOutcome built =
      client_.Run(Request(testing::VectorAddSource("vadd_lib"), SandboxPhase::kBuild, {}, {}));
  ASSERT_TRUE(built.measure.ok()) << built.measure.message;
  ASSERT_FALSE(built.library_path.empty());
  SandboxRequest q;
  q.phase = SandboxPhase::kRunOnce;
  q.library_path = built.library_path;
  q.signature = testing::VectorAddSignature("vadd_lib");
  q.args = VaddArgs(10);
  q.dump_outputs = true;
  SandboxOutcome out = client_.Run(q);
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  EXPECT_EQ(out.outputs.at(2).GetDouble(3),
            static_cast<float>(out.outputs.at(0).GetDouble(3) + out.outputs.at(1).GetDouble(3)));
}

TEST_F(SandboxClientTest, TruncatedResultFromTheSandboxIsAClearError) {
  std::string fake = dir_.Sub("fake-sandbox");
  std::ofstream(fake)
      << "#!/bin/sh\nprintf '{\"version\": 1, \"status\": \"ok\", \"mes' > \"$2\"\n";
  chmod(fake.c_str(), 0755);
  SandboxClient client({.sandbox_path = fake, .time_limit_s = 10});
  try {
    client.Run(Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                       testing::VectorAddSignature(), VaddArgs()));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("result.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

TEST_F(SandboxClientTest, NoResultFileIsAClearError) {
  SandboxClient client({.sandbox_path = "/bin/true", .time_limit_s = 10});
  try {
    client.Run(Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                       testing::VectorAddSignature(), VaddArgs()));
    FAIL() << "expected an error";
  } catch (const SandboxFault& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("wrote no result file"), std::string::npos) << e.what();
  }
}

// The runner's own failures (exit status kSandboxFaultExitStatus) are the machinery's: the
// client throws SandboxFault and makes up no result, so no candidate is charged with them.
TEST_F(SandboxClientTest, ArgumentMismatchIsAMachineryFaultNotARuntimeError) {
  std::vector<ArgSpec> too_few = VaddArgs();
  too_few.pop_back();
  try {
    SandboxOutcome out = client_.Run(Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                                             testing::VectorAddSignature(), too_few));
    FAIL() << "expected a SandboxFault, got " << MeasureErrorKindName(out.measure.error_kind)
           << ": " << out.measure.message;
  } catch (const SandboxFault& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("not of the candidate"), std::string::npos) << e.what();
  }
}

TEST_F(SandboxClientTest, ABrokenRunnerIsAMachineryFault) {
  std::string runner = dir_.Sub("broken-sandbox.sh");
  std::ofstream(runner) << "#!/bin/sh\necho 'cannot write tensor file' >&2\nexit 2\n";
  ASSERT_EQ(chmod(runner.c_str(), 0700), 0);
  SandboxClient client({.sandbox_path = runner, .time_limit_s = 10});
  try {
    client.Run(Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                       testing::VectorAddSignature(), VaddArgs()));
    FAIL() << "expected a SandboxFault";
  } catch (const SandboxFault& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write tensor file"), std::string::npos)
        << e.what();
  }
  // Any other non-zero status is the candidate's (a kernel that exits).
  std::ofstream(runner) << "#!/bin/sh\nexit 3\n";
  SandboxOutcome out = client.Run(Request(testing::VectorAddSource(), SandboxPhase::kRunOnce,
                                          testing::VectorAddSignature(), VaddArgs()));
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kRuntimeError);
}

TEST(SandboxLocationTest, EnvironmentVariableWins) {
  std::string path = FindSandboxExecutable(KILN_SANDBOX_PATH);
  setenv("KILN_SANDBOX", path.c_str(), 1);
  EXPECT_EQ(FindSandboxExecutable(), path);
  setenv("KILN_SANDBOX", "/nonexistent/kiln-sandbox", 1);
  EXPECT_THROW(FindSandboxExecutable(), Error);
  unsetenv("KILN_SANDBOX");
  // Without hints, the runner of this build tree is found.
  EXPECT_EQ(FindSandboxExecutable(), path);
}

}  // namespace
}  // namespace kiln::runtime
