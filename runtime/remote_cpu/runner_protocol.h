// The wire protocol between a host that builds kernels (remote_cpu_measurer.h) and
// kiln-device-runner, the runner-only process on a phone or board (worker/device_runner/).
// It is the one definition both sides compile: the runner is built for the device from this
// file, runtime/timing.cc, runtime/cpu_wait.cc and support/error.cc alone (the C++ standard
// library and POSIX; no ZeroMQ, Cap'n Proto, SQLite, compiler or kiln_runtime).
//
// A stream (a TCP connection, or a child's stdin and stdout) carries frames:
//   "KDR1" | type: u32 | payload length: u64 | payload
// all integers little-endian. The host opens with kHello (the protocol version and the triple
// it builds for); the runner answers kFacts (what the device is), or kError and closes when
// the version or the triple is not its own. Then, per candidate, kRun (the shared object's
// bytes, entry symbol, argument buffers and slots, timing) is answered by one kResult; a
// request the runner cannot carry out at all is answered by kError. kBye ends the session.
// Every read is validated: a truncated or malformed frame is kiln::Error(kParse) naming the
// frame and the field, never a crash or an unbounded allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/timing.h"

namespace kiln::runtime::remote_cpu {

// 1: the first version.
inline constexpr uint32_t kRunnerProtocolVersion = 1;
inline constexpr std::string_view kFrameMagic = "KDR1";
inline constexpr size_t kFrameHeaderBytes = 16;
// A frame's payload is refused past this: a length read from a corrupted stream must not
// allocate gigabytes.
inline constexpr uint64_t kMaxFramePayloadBytes = uint64_t{1} << 31;

enum class FrameType : uint32_t {
  kHello = 1,   // host -> runner: Hello
  kFacts = 2,   // runner -> host: RunnerFacts
  kRun = 3,     // host -> runner: RunRequest
  kResult = 4,  // runner -> host: RunResult
  kError = 5,   // either way: a message; the request (or the session) was refused
  kBye = 6,     // host -> runner: end of session (empty payload)
};
// "hello", "facts", ...; "frame type N" for an unknown one.
std::string FrameTypeName(FrameType type);

struct Frame {
  FrameType type = FrameType::kBye;
  std::string payload;
};

struct Hello {
  uint32_t version = kRunnerProtocolVersion;
  // The triple the host's kernels are built for ("aarch64-linux-gnu"); empty: the host only
  // asks for the facts, to choose its toolchain by them.
  std::string triple;
};

// What the runner reports of its device. Travels as name/value pairs so that a later runner
// may add facts an older host ignores.
struct RunnerFacts {
  uint32_t version = kRunnerProtocolVersion;
  std::string triple;     // the code it loads: "aarch64-linux-gnu", "aarch64-linux-android"
  std::string os;         // "Linux 6.1.0-rpi7" or "Android 14 (API 34)"
  std::string kernel;     // uname's release
  std::string model;      // "Raspberry Pi 5 Model B Rev 1.0", "Google Pixel 8"; may be empty
  std::string cpu;        // "cortex-a76x4", "cortex-x3x1+cortex-a715x4+cortex-a510x3"
  std::string features;   // HWCAP names, space-separated: "fp asimd ... asimddp sve"
  int cores = 0;          // online processors
  int64_t page_size = 0;  // bytes
  bool emulated = false;  // runs under an emulator: timings are not the device's
  std::string emulation;  // why it is thought emulated ("qemu-user: /proc/cpuinfo ...")
};

// One packed argument slot (codegen/kernel_abi.h): a buffer's data pointer, or a value.
struct WireSlot {
  enum class Kind : uint8_t { kBuffer = 0, kInt = 1, kFloat = 2 };
  Kind kind = Kind::kBuffer;
  uint32_t buffer = 0;  // kBuffer: index into RunRequest::buffers
  int64_t int_value = 0;
  double float_value = 0;
};

struct RunRequest {
  uint64_t id = 0;
  std::string symbol;                // the kernel's exported C symbol
  std::string library;               // the shared object's bytes
  std::vector<std::string> buffers;  // each buffer's initial bytes (inputs and outputs alike)
  std::vector<WireSlot> slots;
  bool dump_outputs = false;  // return every buffer after the checked run
  bool time = true;           // false: run once only
  TimingConfig timing = {};
  double time_limit_s = 30;  // the run as a whole: load, checked run, timing
  int num_threads = 0;       // OMP_NUM_THREADS of the kernel; 0: the runner's default
};

enum class RunStatus : uint8_t {
  kOk = 0,
  kLoadError = 1,    // the shared object did not load or lacks the symbol (wrong machine, ...)
  kKernelError = 2,  // the kernel returned a non-zero code
  kCrashed = 3,      // the kernel's process died of a signal (the message names it)
  kTimeout = 4,      // past time_limit_s; the process was killed
};
// "ok", "load_error", ...
std::string RunStatusName(RunStatus status);

struct RunResult {
  uint64_t id = 0;
  RunStatus status = RunStatus::kOk;
  std::string message;
  double load_seconds = 0;       // writing and loading the shared object
  double first_run_seconds = 0;  // the checked run
  std::vector<double> repeat_seconds;
  double median_seconds = 0;
  int32_t number = 0;
  Cutoff cutoff = Cutoff::kNone;
  double contention = 0;
  double kernel_seconds = 0;         // every run of the kernel, warm-up and timing included
  std::vector<std::string> outputs;  // every buffer after the checked run, when dumped
};

// Payload encoding of each message. Decoding throws kiln::Error(kParse) naming `where`, the
// field and the offset when the payload is truncated, too long or holds an invalid value.
std::string EncodeHello(const Hello& hello);
Hello DecodeHello(std::string_view payload, const std::string& where);
std::string EncodeFacts(const RunnerFacts& facts);
RunnerFacts DecodeFacts(std::string_view payload, const std::string& where);
std::string EncodeRunRequest(const RunRequest& request);
RunRequest DecodeRunRequest(std::string_view payload, const std::string& where);
std::string EncodeRunResult(const RunResult& result);
RunResult DecodeRunResult(std::string_view payload, const std::string& where);
std::string EncodeError(const std::string& message);
std::string DecodeError(std::string_view payload, const std::string& where);

// The header and payload of one frame.
std::string EncodeFrame(FrameType type, std::string_view payload);

// Frames over a file descriptor (a socket or a pipe). WriteFrame writes it whole (retrying
// short writes and EINTR) or throws kiln::Error(kIO). ReadFrame returns the next frame, or
// nothing when the stream ends cleanly before a frame begins; a stream that ends inside a
// frame, a wrong magic, an unknown type or an oversized length is kiln::Error(kParse), and a
// read error or `timeout_s` (> 0) passing is kiln::Error(kIO). `where` names the stream.
void WriteFrame(int fd, FrameType type, std::string_view payload, const std::string& where);
std::optional<Frame> ReadFrame(int fd, double timeout_s, const std::string& where);

// Whether code built for `built_for` runs on a runner of `runner_triple`: the same
// architecture, system and environment, ignoring an Android API level suffix
// ("aarch64-linux-android29" runs on "aarch64-linux-android").
bool TriplesMatch(std::string_view built_for, std::string_view runner_triple);

}  // namespace kiln::runtime::remote_cpu
