// The locked-down sandbox (runtime/sandbox_lockdown.h) end to end with the real kiln-sandbox:
// a candidate that opens a file, connects, forks, execs or signals another process is killed
// before the call happens and reported as sandbox_violation, naming the call; the client
// goes on to measure the next candidate; what a kernel may do (compute, allocate, run an
// OpenMP team) still runs and matches the reference; the CPU time and address space limits
// hold.
#include "runtime/sandbox_lockdown.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "runtime/sandbox_client.h"
#include "runtime_test_util.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

constexpr int64_t kLength = 4096;

// A vector add that does `action` first: if the sandbox let the action through, the kernel
// returns its code (non-zero) or leaves a trace; if the action is harmless, it adds.
std::string VaddAfter(const std::string& action, const std::string& loop_pragma = "") {
  return std::string(
             "#define _GNU_SOURCE\n"
             "#include <errno.h>\n#include <fcntl.h>\n#include <signal.h>\n#include <stdio.h>\n"
             "#include <sys/mman.h>\n#include <sys/resource.h>\n#include <sys/socket.h>\n#include "
             "<sys/syscall.h>\n"
             "#include <unistd.h>\n") +
         testing::kPrelude +
         "int32_t vadd(const kiln_value_t* args, int32_t num_args) {\n"
         "  if (num_args != 4) return -1;\n"
         "  const float* a = (const float*)args[0].ptr;\n"
         "  const float* b = (const float*)args[1].ptr;\n"
         "  float* c = (float*)args[2].ptr;\n"
         "  int64_t n = args[3].i;\n" +
         action + "\n" + loop_pragma +
         "\n"
         "  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];\n"
         "  return 0;\n"
         "}\n";
}

class SandboxLockdownTest : public ::testing::Test {
 protected:
  SandboxRequest Request(const std::string& source, SandboxPhase phase = SandboxPhase::kTime) {
    static int count = 0;
    std::string path = dir_.Sub("kernel" + std::to_string(count++) + ".c");
    std::ofstream(path) << source;
    SandboxRequest q;
    q.phase = phase;
    q.source_path = path;
    q.build.cache_dir = dir_.Sub("cache");
    q.signature = testing::VectorAddSignature();
    ir::DataType f32 = ir::DataType::Float(32);
    q.args = {ArgSpec::Random(f32, {kLength}, 1), ArgSpec::Random(f32, {kLength}, 2),
              ArgSpec::Random(f32, {kLength}, 3)};
    q.timing = {.number = 1, .repeat = 3, .min_repeat_ms = 2, .warmup = 1};
    q.dump_outputs = true;
    return q;
  }

  SandboxClient Client(double time_limit_s = 20, std::vector<std::string> env = {}) {
    return SandboxClient({.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH),
                          .time_limit_s = time_limit_s,
                          .extra_env = std::move(env)});
  }

  // The candidate doing `action` is stopped as a violation naming `call`.
  void ExpectViolation(const std::string& action, const std::string& call) {
    SandboxOutcome out = Client().Run(Request(VaddAfter(action)));
    EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kSandboxViolation)
        << MeasureErrorKindName(out.measure.error_kind) << ": " << out.measure.message;
    EXPECT_NE(out.measure.message.find(std::string(kForbiddenSyscallText) + call + " ("),
              std::string::npos)
        << out.measure.message;
    ExpectAGoodKernelStillRuns();
  }

  // The next candidate is measured as usual: the worker goes on.
  void ExpectAGoodKernelStillRuns(std::vector<std::string> env = {}) {
    SandboxRequest q = Request(VaddAfter(""));
    SandboxOutcome out = Client(20, std::move(env)).Run(q);
    ASSERT_TRUE(out.measure.ok()) << out.measure.message;
    ExpectSums(q, out);
  }

  static void ExpectSums(const SandboxRequest& q, const SandboxOutcome& out) {
    std::vector<ir::ArgValue> inputs = MaterializeArgs(q.args);
    const auto& a = std::get<ir::HostTensor>(inputs[0]);
    const auto& b = std::get<ir::HostTensor>(inputs[1]);
    ASSERT_EQ(out.outputs.count(2), 1u);
    const ir::HostTensor& c = out.outputs.at(2);
    for (int64_t i = 0; i < kLength; ++i) {
      ASSERT_EQ(c.GetDouble(i), static_cast<float>(a.GetDouble(i) + b.GetDouble(i))) << i;
    }
  }

  ScratchDir dir_;
};

TEST_F(SandboxLockdownTest, OpeningAFileIsAViolationAndTheFileIsNeverMade) {
  std::string witness = dir_.Sub("made-by-the-kernel");
  ExpectViolation("  int fd = open(\"" + witness +
                      "\", O_WRONLY | O_CREAT, 0644);\n"
                      "  if (fd >= 0) return 7;",
                  "openat");
  EXPECT_FALSE(std::filesystem::exists(witness));
}

TEST(SandboxLockdown, RefusedFileCallsFailWithEaccesAndTheProcessGoesOn) {
  // What the GPU runners ask for: a driver's late cache write fails, the run continues.
  ScratchDir dir;
  std::string path = dir.Sub("made-after-lockdown");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    LockdownLimits limits;
    limits.refuse_file_calls = true;
    LockDownProcess(limits);
    int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    _exit(fd < 0 && errno == EACCES ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the process was ended (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "open did not fail with EACCES";
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(SandboxLockdownTest, ReadingAFileIsAViolation) {
  ExpectViolation("  FILE* f = fopen(\"/etc/hostname\", \"r\");\n  if (f) return 7;", "openat");
}

TEST_F(SandboxLockdownTest, OpeningASocketIsAViolation) {
  ExpectViolation("  int s = socket(AF_INET, SOCK_STREAM, 0);\n  if (s >= 0) return 7;", "socket");
}

TEST_F(SandboxLockdownTest, ForkingIsAViolation) {
  ExpectViolation("  pid_t p = fork();\n  if (p == 0) _exit(0);\n  if (p > 0) return 7;", "clone");
}

TEST_F(SandboxLockdownTest, ExecIsAViolation) {
  ExpectViolation("  execl(\"/bin/true\", \"true\", (char*)0);\n  return 7;", "execve");
}

TEST_F(SandboxLockdownTest, SignallingAnotherProcessIsAViolation) {
  // Signal 0 only asks whether the parent (this test) may be signalled: forbidden all the same.
  ExpectViolation("  if (kill(getppid(), 0) == 0) return 7;", "kill");
}

TEST_F(SandboxLockdownTest, RaisingTheLimitsIsAViolation) {
  ExpectViolation(
      "  struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};\n"
      "  if (syscall(SYS_prlimit64, 0, RLIMIT_CPU, &r, 0) == 0) return 7;",
      "prlimit64");
}

TEST_F(SandboxLockdownTest, ACandidateThatTakesOverSigsysIsStillKilled) {
  SandboxOutcome out = Client().Run(
      Request(VaddAfter("  signal(SIGSYS, SIG_IGN);\n  int s = socket(AF_INET, SOCK_STREAM, 0);\n"
                        "  if (s >= 0) return 7;")));
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kSandboxViolation)
      << MeasureErrorKindName(out.measure.error_kind) << ": " << out.measure.message;
  ExpectAGoodKernelStillRuns();
}

TEST_F(SandboxLockdownTest, Clone3IsRefusedWithoutKillingSoThreadsStillStart) {
  // clone3's flags are out of the filter's reach: it fails with ENOSYS and the C library
  // starts threads with clone.
  SandboxRequest q =
      Request(VaddAfter("  if (!(syscall(SYS_clone3, 0, 0) == -1 && errno == ENOSYS)) return 7;"));
  SandboxOutcome out = Client().Run(q);
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  ExpectSums(q, out);
}

TEST_F(SandboxLockdownTest, AnOpenMpKernelRunsLockedDownAndItsTimingIsKept) {
  for (const char* threads : {"OMP_NUM_THREADS=2", "OMP_NUM_THREADS=3"}) {
    SandboxRequest q = Request(VaddAfter("", "#pragma omp parallel for"));
    SandboxOutcome out = Client(20, {threads}).Run(q);
    ASSERT_TRUE(out.measure.ok()) << threads << ": " << out.measure.message;
    ExpectSums(q, out);
    EXPECT_EQ(out.measure.repeat_seconds.size(), 3u);
    EXPECT_GT(out.measure.median_seconds, 0);
  }
}

TEST_F(SandboxLockdownTest, AFlushedCacheTimingRunsLockedDown) {
  SandboxRequest q = Request(VaddAfter(""));
  q.timing.flush_cache = true;
  SandboxOutcome out = Client().Run(q);
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  ExpectSums(q, out);
}

TEST_F(SandboxLockdownTest, RunawayCpuTimeEndsTheRunnerAtItsLimit) {
  SandboxRequest q = Request(VaddAfter("  volatile int x = 0;\n  for (;;) ++x;"));
  q.cpu_limit_s = 1;
  auto start = std::chrono::steady_clock::now();
  SandboxOutcome out = Client(/*time_limit_s=*/30).Run(q);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kRuntimeError) << out.measure.message;
  EXPECT_NE(out.measure.message.find("SIGXCPU"), std::string::npos) << out.measure.message;
  EXPECT_LT(elapsed, 20) << "the wall-clock limit, not the CPU limit, ended it";
}

TEST_F(SandboxLockdownTest, AHugeMappingFailsUnderTheAddressSpaceLimit) {
  // A terabyte, never touched: without a limit the kernel grants it (no reserve).
  SandboxRequest q =
      Request(VaddAfter("  void* p = mmap(0, (size_t)1 << 40, PROT_READ | PROT_WRITE,\n"
                        "                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);\n"
                        "  if (p != MAP_FAILED) { munmap(p, (size_t)1 << 40); return 9; }"));
  SandboxOutcome out = Client().Run(q);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's shadow memory rules the limit out: the mapping is granted.
  EXPECT_EQ(out.measure.error_kind, MeasureErrorKind::kRuntimeError) << out.measure.message;
#else
  ASSERT_TRUE(out.measure.ok()) << out.measure.message;
  ExpectSums(q, out);
#endif
}

}  // namespace
}  // namespace kiln::runtime
