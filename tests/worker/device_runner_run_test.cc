// kiln-device-runner as a real process, once built for this machine and once cross-built for
// aarch64 and run under qemu-aarch64-static (skipped, saying so, where the cross compiler or
// qemu is missing): zoo kernels and their default schedules cross-compiled by the remote-cpu
// measurer and run on the runner match the interpreter on random inputs; a kernel that crashes,
// returns non-zero or hangs is a result and the runner goes on; a library for another machine,
// a wrong triple, a truncated frame and a malformed request each get a clear error; two hosts
// are served side by side over TCP.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "runtime/cpu_builder.h"
#include "runtime/file_util.h"
#include "runtime/reference_store.h"
#include "runtime/remote_cpu/cross_toolchain.h"
#include "runtime/remote_cpu/remote_cpu_measurer.h"
#include "runtime/remote_cpu/runner_connection.h"
#include "search/space/default_schedule.h"
#include "support/error.h"
#include "tests/integration/process_util.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/runtime/runtime_test_util.h"
#include "worker/device_probe.h"
#include "worker/remote_device.h"

extern char** environ;

namespace kiln::runtime::remote_cpu {
namespace {

namespace fs = std::filesystem;

// How to start one runner and what it should say of itself.
struct RunnerKind {
  std::string name;
  std::vector<std::string> command;  // without the mode (--stdio, --listen ...)
  std::string triple;
  std::string wrong_triple;
  bool emulated = false;
  std::string unavailable;  // why it cannot run here; empty when it can
};

void PrintTo(const RunnerKind& kind, std::ostream* os) { *os << kind.name; }

RunnerKind Native() {
  return {"native", {KILN_DEVICE_RUNNER_NATIVE}, HostTriple(), "aarch64-linux-android", false, ""};
}

RunnerKind Aarch64UnderQemu() {
  RunnerKind k{"aarch64-qemu", {}, "aarch64-linux-gnu", "x86_64-linux-gnu", true, ""};
  std::string runner = KILN_DEVICE_RUNNER_AARCH64;
  std::string qemu = FindProgram("qemu-aarch64-static");
  if (runner.empty() || !fs::exists(runner)) {
    k.unavailable =
        "no aarch64 kiln-device-runner in this build (aarch64-linux-gnu-g++ missing; "
        "deploy/install-deps.sh installs g++-aarch64-linux-gnu)";
  } else if (qemu.empty()) {
    k.unavailable = "no qemu-aarch64-static (deploy/install-deps.sh installs qemu-user-static)";
  } else if (!fs::exists("/usr/aarch64-linux-gnu/lib")) {
    k.unavailable = "no aarch64 C library at /usr/aarch64-linux-gnu for qemu's -L";
  }
  k.command = {qemu, "-L", "/usr/aarch64-linux-gnu", runner};
  return k;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// A runner on --stdio with raw pipes, for sending bytes that are not whole frames.
class RawRunner {
 public:
  explicit RawRunner(const RunnerKind& kind) {
    int in[2], out[2];
    EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::vector<std::string> argv = kind.command;
    argv.push_back("--stdio");
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~RawRunner() {
    CloseInput();
    close(from_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  void Send(const std::string& bytes) {
    ASSERT_EQ(write(to_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void CloseInput() {
    if (to_ >= 0) close(to_);
    to_ = -1;
  }
  std::optional<Frame> Read() { return ReadFrame(from_, 60, "runner"); }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

// A C kernel over two float buffers and their element count (slots: buffer 0, buffer 1, n).
std::string KernelSource(const std::string& symbol, const std::string& body) {
  return std::string(testing::kPrelude) + "int32_t " + symbol +
         "(const kiln_value_t* args, int32_t num_args) {\n"
         "  if (num_args != 3) return -1;\n"
         "  const float* a = (const float*)args[0].ptr;\n"
         "  float* b = (float*)args[1].ptr;\n"
         "  int64_t n = args[2].i;\n" +
         body + "\n  return 0;\n}\n";
}

class DeviceRunnerRunTest : public ::testing::TestWithParam<RunnerKind> {
 protected:
  void SetUp() override {
    if (!GetParam().unavailable.empty()) GTEST_SKIP() << "skipped: " << GetParam().unavailable;
    setenv("KILN_CACHE_DIR", dir_.Sub("cache").c_str(), 1);
  }
  std::string Address() const { return "exec:" + Join(GetParam().command) + " --stdio"; }

  // `source` built for the runner's triple, as the measurer builds a kernel.
  std::string BuildForRunner(const std::string& source, const RunnerFacts& facts) {
    CrossToolchain t = FindCrossToolchain(GetParam().triple);
    BuildOptions b;
    b.compiler = t.compiler;
    b.flags = t.flags;
    for (const std::string& f : KernelFlags(facts, t, false)) b.flags.push_back(f);
    b.cache_dir = dir_.Sub("cache");
    BuildResult built = BuildCSource(source, b);
    EXPECT_TRUE(built.ok) << built.error;
    return built.ok ? ReadWholeFile(built.library_path) : std::string();
  }

  RunRequest Request(uint64_t id, const std::string& symbol, const std::string& library,
                     const std::vector<float>& input) {
    RunRequest q;
    q.id = id;
    q.symbol = symbol;
    q.library = library;
    q.buffers = {std::string(reinterpret_cast<const char*>(input.data()), input.size() * 4),
                 std::string(input.size() * 4, '\0')};
    q.slots = {{WireSlot::Kind::kBuffer, 0, 0, 0},
               {WireSlot::Kind::kBuffer, 1, 0, 0},
               {WireSlot::Kind::kInt, 0, static_cast<int64_t>(input.size()), 0}};
    q.dump_outputs = true;
    q.timing.number = 1;
    q.timing.min_repeat_ms = 1;
    q.time_limit_s = 20;
    return q;
  }

  testing::ScratchDir dir_;
};

TEST_P(DeviceRunnerRunTest, TheRunnerDescribesItsDevice) {
  std::unique_ptr<RunnerConnection> c = RunnerConnection::Open(Address(), "", 30);
  const RunnerFacts& f = c->facts();
  EXPECT_EQ(f.triple, GetParam().triple);
  EXPECT_EQ(f.emulated, GetParam().emulated) << f.emulation;
  EXPECT_GE(f.cores, 1);
  EXPECT_FALSE(f.cpu.empty());
  if (GetParam().emulated) {
    EXPECT_NE(f.emulation.find("qemu-user"), std::string::npos) << f.emulation;
    EXPECT_NE(f.features.find("asimd"), std::string::npos) << f.features;
  }
}

TEST_P(DeviceRunnerRunTest, AWrongTripleIsRefusedWithItsName) {
  try {
    RunnerConnection::Open(Address(), GetParam().wrong_triple, 30);
    FAIL() << "the runner accepted code built for " << GetParam().wrong_triple;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("wrong triple"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(GetParam().wrong_triple), std::string::npos) << e.what();
  }
}

TEST_P(DeviceRunnerRunTest, ZooKernelsAndTheirDefaultSchedulesMatchTheInterpreter) {
  MeasureOptions options;
  options.target = "llvm -mtriple=" + GetParam().triple;
  options.timing.number = 1;
  options.timing.min_repeat_ms = 1;
  options.cache_dir = dir_.Sub("cache");
  options.build_jobs = 2;
  RemoteCpuMeasurer measurer(options, {.address = Address()});
  EXPECT_EQ(measurer.facts().triple, GetParam().triple);
  int measured = 0;
  for (const char* name : {"matmul", "softmax", "dense_bias_relu", "conv2d_stride2_pad1"}) {
    const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup(name);
    ir::PrimFunc workload = entry.build();
    std::vector<MeasureCandidate> candidates = {{workload, workload, entry.shape_vars}};
    // The default schedule: parallel loops (OpenMP) and GCC vectors, for the runner's cores
    // and NEON's 16 bytes.
    for (const search::Candidate& c :
         search::DefaultCpuSchedules(workload, {.num_cores = 2, .vector_bytes = 16})) {
      candidates.push_back({workload, c.scheduled, entry.shape_vars});
    }
    std::vector<MeasureResult> results = measurer.MeasureBatch(candidates);
    ASSERT_EQ(results.size(), candidates.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const MeasureResult& r = results[i];
      SCOPED_TRACE(std::string(name) + " candidate " + std::to_string(i));
      ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message;
      EXPECT_TRUE(r.correctness_checked);
      EXPECT_NE(r.reference.find("compared every element"), std::string::npos) << r.reference;
      EXPECT_GT(r.median_seconds, 0);
      EXPECT_EQ(r.message.find("emulated") != std::string::npos, GetParam().emulated) << r.message;
      ++measured;
    }
  }
  EXPECT_GE(measured, 8);
  // A build already checked is only timed.
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("matmul");
  ir::PrimFunc workload = entry.build();
  MeasureResult again = measurer.Measure({workload, workload, entry.shape_vars});
  ASSERT_TRUE(again.ok()) << again.message;
  EXPECT_NE(again.reference.find("matched it before"), std::string::npos) << again.reference;
}

// The device's outputs are compared element by element: a kernel whose outputs differ from the
// reference (here: the reference of one element moved) is a wrong result with no time.
TEST_P(DeviceRunnerRunTest, AWrongResultIsAnErrorNeverAFastOne) {
  MeasureOptions options;
  options.target = "llvm -mtriple=" + GetParam().triple;
  options.timing.number = 1;
  options.timing.min_repeat_ms = 1;
  options.cache_dir = dir_.Sub("cache");
  RemoteCpuMeasurer measurer(options, {.address = Address()});
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("relu");
  ir::PrimFunc workload = entry.build();
  ReferenceOptions reference_options;
  reference_options.cache_dir = dir_.Sub("cache");
  ReferenceStore store(reference_options);
  auto wrong = std::make_shared<Reference>(*store.Get(workload, entry.shape_vars, 1));
  wrong->key ^= 0x5eed;  // a reference's key is unique to its values
  int moved = 0;
  for (ReferenceParam& param : wrong->params) {
    if (!param.written) continue;
    param.expected = param.expected.Clone();
    static_cast<float*>(param.expected.data())[3] += 1.0f;
    ++moved;
  }
  ASSERT_EQ(moved, 1);
  MeasureResult r = measurer.Measure({workload, workload, entry.shape_vars, wrong});
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kWrongResult) << r.message;
  EXPECT_EQ(r.median_seconds, 0);
  EXPECT_TRUE(r.repeat_seconds.empty());
  EXPECT_NE(r.message.find("[0, 3]"), std::string::npos) << r.message;
  // The same kernel against the true reference is correct.
  MeasureResult right = measurer.Measure({workload, workload, entry.shape_vars});
  EXPECT_TRUE(right.ok()) << right.message;
}

TEST_P(DeviceRunnerRunTest, ACrashingKernelIsAResultAndTheRunnerGoesOn) {
  std::unique_ptr<RunnerConnection> c = RunnerConnection::Open(Address(), GetParam().triple, 30);
  std::string crash = BuildForRunner(
      KernelSource("k_crash", "  (void)a; (void)b; (void)n; *(volatile int*)0 = 1;"), c->facts());
  std::string code =
      BuildForRunner(KernelSource("k_code", "  (void)a; (void)b; (void)n; return 3;"), c->facts());
  std::string hang = BuildForRunner(
      KernelSource("k_hang", "  (void)a; (void)n; for (volatile int i = 0;; ) b[0] = (float)i;"),
      c->facts());
  std::string twice = BuildForRunner(
      KernelSource("k_twice", "  for (int64_t i = 0; i < n; ++i) b[i] = 2 * a[i];"), c->facts());
  std::vector<float> input = {1, -2, 3.5f, 4, 0.25f};

  RunResult crashed = c->Run(Request(1, "k_crash", crash, input), 60);
  EXPECT_EQ(crashed.status, RunStatus::kCrashed) << crashed.message;
  EXPECT_NE(crashed.message.find("signal 11"), std::string::npos) << crashed.message;

  RunResult returned = c->Run(Request(2, "k_code", code, input), 60);
  EXPECT_EQ(returned.status, RunStatus::kKernelError);
  EXPECT_NE(returned.message.find("returned code 3"), std::string::npos) << returned.message;

  RunRequest hang_request = Request(3, "k_hang", hang, input);
  hang_request.time_limit_s = 1;
  RunResult hung = c->Run(hang_request, 60);
  EXPECT_EQ(hung.status, RunStatus::kTimeout) << hung.message;

  // Past the early cutoff, a first run is stopped at kCutoffAbandonFactor times it.
  RunRequest slow_request = Request(6, "k_hang", hang, input);
  slow_request.timing.cutoff_seconds = 0.05;
  RunResult slow = c->Run(slow_request, 60);
  EXPECT_EQ(slow.status, RunStatus::kTimeout) << slow.message;
  EXPECT_EQ(slow.cutoff, Cutoff::kAbandoned);
  EXPECT_GE(slow.median_seconds, kCutoffAbandonFactor * 0.05);
  EXPECT_LT(slow.median_seconds, 10) << "stopped long before the time limit";
  EXPECT_NE(slow.message.find("abandoned by the early cutoff"), std::string::npos) << slow.message;

  RunResult missing = c->Run(Request(4, "k_absent", twice, input), 60);
  EXPECT_EQ(missing.status, RunStatus::kLoadError);
  EXPECT_NE(missing.message.find("no symbol k_absent"), std::string::npos) << missing.message;

  // The same session serves the next kernel, and its outputs come back.
  RunResult ok = c->Run(Request(5, "k_twice", twice, input), 60);
  ASSERT_EQ(ok.status, RunStatus::kOk) << ok.message;
  ASSERT_EQ(ok.outputs.size(), 2u);
  std::vector<float> out(input.size());
  ASSERT_EQ(ok.outputs[1].size(), out.size() * 4);
  std::memcpy(out.data(), ok.outputs[1].data(), ok.outputs[1].size());
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(out[i], 2 * input[i]);
  EXPECT_EQ(ok.outputs[0],
            std::string(reinterpret_cast<const char*>(input.data()), input.size() * 4));
  EXPECT_GT(ok.median_seconds, 0);
  EXPECT_EQ(ok.repeat_seconds.size(), 1u);
}

TEST_P(DeviceRunnerRunTest, ALibraryForAnotherMachineIsRefusedByName) {
  std::unique_ptr<RunnerConnection> c = RunnerConnection::Open(Address(), GetParam().triple, 30);
  // A library of the other of the two machines this test knows.
  std::string other_triple = GetParam().emulated ? HostTriple() : "aarch64-linux-gnu";
  CrossToolchain t;
  try {
    t = FindCrossToolchain(other_triple);
  } catch (const Error& e) {
    GTEST_SKIP() << "skipped: no compiler for " << other_triple << ": " << e.what();
  }
  if (!TriplesMatch(other_triple, HostTriple()) && FindProgram(t.compiler).empty()) {
    GTEST_SKIP() << "skipped: no " << t.compiler << " to build a library for " << other_triple;
  }
  BuildOptions b;
  b.compiler = t.compiler;
  b.flags = t.flags;
  for (const char* f : {"-O1", "-shared", "-fPIC", "-std=c11"}) b.flags.push_back(f);
  b.cache_dir = dir_.Sub("cache");
  BuildResult built = BuildCSource(KernelSource("k_other", "  (void)a; (void)b; (void)n;"), b);
  ASSERT_TRUE(built.ok) << built.error;
  RunResult r = c->Run(Request(1, "k_other", ReadWholeFile(built.library_path), {1.0f}), 60);
  EXPECT_EQ(r.status, RunStatus::kLoadError);
  EXPECT_NE(r.message.find("ELF for machine"), std::string::npos) << r.message;
}

TEST_P(DeviceRunnerRunTest, BadFramesGetAClearError) {
  std::string hello = EncodeFrame(FrameType::kHello, EncodeHello({kRunnerProtocolVersion, ""}));
  {
    // A malformed request in a whole frame: an error, and the session goes on.
    RawRunner runner(GetParam());
    runner.Send(hello);
    std::optional<Frame> facts = runner.Read();
    ASSERT_TRUE(facts && facts->type == FrameType::kFacts);
    runner.Send(EncodeFrame(FrameType::kRun, "\x01\x02\x03"));
    std::optional<Frame> error = runner.Read();
    ASSERT_TRUE(error && error->type == FrameType::kError);
    EXPECT_NE(DecodeError(error->payload, "error").find("truncated at id"), std::string::npos)
        << DecodeError(error->payload, "error");
    // Then a frame cut short by the end of the stream.
    std::string frame = EncodeFrame(FrameType::kRun, std::string(100, 'x'));
    runner.Send(frame.substr(0, 40));
    runner.CloseInput();
    error = runner.Read();
    ASSERT_TRUE(error && error->type == FrameType::kError);
    std::string message = DecodeError(error->payload, "error");
    EXPECT_NE(message.find("truncated frame"), std::string::npos) << message;
    EXPECT_FALSE(runner.Read().has_value()) << "the session ends after a broken frame";
  }
  {
    // Anything but hello first.
    RawRunner runner(GetParam());
    runner.Send(EncodeFrame(FrameType::kBye, ""));
    std::optional<Frame> error = runner.Read();
    ASSERT_TRUE(error && error->type == FrameType::kError);
    EXPECT_NE(DecodeError(error->payload, "error").find("expected a hello frame first"),
              std::string::npos);
  }
  {
    // Not the protocol at all.
    RawRunner runner(GetParam());
    runner.Send("GET / HTTP/1.1\r\nHost: phone\r\n\r\n");
    std::optional<Frame> error = runner.Read();
    ASSERT_TRUE(error && error->type == FrameType::kError);
    EXPECT_NE(DecodeError(error->payload, "error").find("KDR1"), std::string::npos);
  }
}

TEST_P(DeviceRunnerRunTest, TwoHostsAreServedSideBySideOverTcp) {
  int port = kiln::testing::FreePort();
  std::vector<std::string> argv = GetParam().command;
  argv.push_back("--listen");
  argv.push_back("127.0.0.1:" + std::to_string(port));
  // Under the scratch folder: a runner killed by the test leaves nothing behind.
  argv.push_back("--work-dir");
  argv.push_back(dir_.path().string());
  kiln::testing::Process runner(argv, dir_.Sub("runner.log"));
  std::string address = "127.0.0.1:" + std::to_string(port);
  std::unique_ptr<RunnerConnection> first, second;
  ASSERT_TRUE(kiln::testing::WaitFor(
      [&] {
        try {
          first = RunnerConnection::Open(address, GetParam().triple, 10);
          return true;
        } catch (const Error&) {
          return false;
        }
      },
      30))
      << kiln::testing::ReadText(dir_.Sub("runner.log"));
  // The first session stays open while a second host says hello.
  second = RunnerConnection::Open("tcp://" + address, GetParam().triple, 10);
  EXPECT_EQ(second->facts().triple, GetParam().triple);
  std::string twice =
      BuildForRunner(KernelSource("k_twice", "  for (int64_t i = 0; i < n; ++i) b[i] = 2 * a[i];"),
                     first->facts());
  EXPECT_EQ(second->Run(Request(1, "k_twice", twice, {1, 2}), 60).status, RunStatus::kOk);
  EXPECT_EQ(first->Run(Request(1, "k_twice", twice, {3, 4}), 60).status, RunStatus::kOk);
}

// `tune run` and `kiln-worker --device remote-cpu` find the runner through KILN_DEVICE_RUNNER;
// without it the probe says what to set.
TEST_P(DeviceRunnerRunTest, TheEnvironmentNamesTheRunnerOfTheRemoteCpuKind) {
  worker::RegisterDeviceProbe(kRemoteCpuDeviceKind, worker::ProbeDeviceRunnerFromEnvironment);
  unsetenv(kDeviceRunnerEnv);
  try {
    worker::ProbeDevice(kRemoteCpuDeviceKind);
    FAIL() << "a remote-cpu device was probed without a runner";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find(kDeviceRunnerEnv), std::string::npos) << e.what();
  }
  setenv(kDeviceRunnerEnv, Address().c_str(), 1);
  worker::ProbedDevice device = worker::ProbeDevice(kRemoteCpuDeviceKind);
  unsetenv(kDeviceRunnerEnv);
  EXPECT_EQ(device.kind, kRemoteCpuDeviceKind);
  EXPECT_EQ(device.target, "llvm -mtriple=" + GetParam().triple);
  EXPECT_EQ(device.key.rfind(GetParam().triple.substr(0, GetParam().triple.find('-')), 0), 0u)
      << device.key;
  EXPECT_EQ(device.key.find("-emulated") != std::string::npos, GetParam().emulated) << device.key;
  // The probe registered the measurer of that runner.
  MeasureOptions options;
  options.target = device.target;
  std::unique_ptr<Measurer> measurer = CreateMeasurer(kRemoteCpuDeviceKind, options);
  EXPECT_EQ(measurer->DeviceKind(), kRemoteCpuDeviceKind);
}

INSTANTIATE_TEST_SUITE_P(Runners, DeviceRunnerRunTest,
                         ::testing::Values(Native(), Aarch64UnderQemu()),
                         [](const ::testing::TestParamInfo<RunnerKind>& info) {
                           return info.param.name == "native" ? std::string("Native")
                                                              : std::string("Aarch64Qemu");
                         });

}  // namespace
}  // namespace kiln::runtime::remote_cpu
