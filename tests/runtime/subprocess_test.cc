// RunProcess: exit codes, signals, captured output, time limit killing the whole group.
#include "runtime/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>

#include "support/error.h"

namespace kiln::runtime {
namespace {

// True once no process of group `pgid` is left (polled with a deadline: killed processes
// are reaped by init asynchronously).
bool GroupGone(int pgid, double within_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(within_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (kill(-pgid, 0) != 0 && errno == ESRCH) return true;
  }
  return false;
}

TEST(SubprocessTest, ExitCodeAndCapturedOutput) {
  ProcessResult r =
      RunProcess({.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"}, .capture_output = true});
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_EQ(r.Describe(), "exited with code 3");
}

TEST(SubprocessTest, ExtraEnvironmentReachesTheChild) {
  ProcessResult r = RunProcess({.argv = {"sh", "-c", "printf %s \"$KILN_TEST_VALUE\""},
                                .extra_env = {"KILN_TEST_VALUE=42"},
                                .capture_output = true});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "42");
}

TEST(SubprocessTest, SignalIsNamed) {
  ProcessResult r = RunProcess({.argv = {"sh", "-c", "kill -SEGV $$"}});
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_NE(r.Describe().find("SIGSEGV"), std::string::npos) << r.Describe();
}

TEST(SubprocessTest, TimeLimitKillsTheWholeGroup) {
  // The shell starts a grandchild; both must be gone after the limit.
  ProcessResult r =
      RunProcess({.argv = {"sh", "-c", "sleep 30 & sleep 30; wait"}, .time_limit_s = 0.3});
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.wall_seconds, 5);
  EXPECT_GE(r.wall_seconds, 0.3);
  EXPECT_TRUE(GroupGone(r.pid, 5)) << "process group " << r.pid << " survived";
  EXPECT_NE(r.Describe().find("timed out"), std::string::npos);
}

TEST(SubprocessTest, MissingProgramThrows) {
  try {
    RunProcess({.argv = {"/nonexistent/kiln-no-such-program"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("kiln-no-such-program"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::runtime
