// The device runner's wire protocol (runtime/remote_cpu/runner_protocol.h): every message
// survives a round trip field for field, frames cross a pipe, and what is malformed -- a
// truncated payload or frame, a wrong magic, an unknown type or slot kind, a buffer index past
// the buffers, an oversized length, another protocol version -- is a kiln::Error(kParse) that
// names the field, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "runtime/remote_cpu/runner_protocol.h"
#include "support/error.h"

namespace kiln::runtime::remote_cpu {
namespace {

// The error kind and message of `f`, which must throw kiln::Error.
template <typename F>
std::pair<ErrorKind, std::string> ErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  ADD_FAILURE() << "no kiln::Error was thrown";
  return {ErrorKind::kInternal, ""};
}

RunRequest SampleRequest() {
  RunRequest q;
  q.id = 42;
  q.symbol = "kiln_matmul";
  q.library = std::string(
      "\x7f"
      "ELF\0\1\2",
      7);
  q.buffers = {std::string(16, '\x01'), std::string("\0\0\x80\x3f", 4), ""};
  q.slots = {{WireSlot::Kind::kBuffer, 0, 0, 0},
             {WireSlot::Kind::kInt, 0, -7, 0},
             {WireSlot::Kind::kFloat, 0, 0, 2.5},
             {WireSlot::Kind::kBuffer, 2, 0, 0}};
  q.dump_outputs = true;
  q.time = true;
  q.timing.number = 5;
  q.timing.repeat = 3;
  q.timing.min_repeat_ms = 2.5;
  q.timing.flush_cache = true;
  q.timing.warmup = 2;
  q.timing.cutoff_seconds = 0.125;
  q.time_limit_s = 7;
  q.num_threads = 4;
  return q;
}

TEST(DeviceRunnerProtocolTest, EveryMessageRoundTrips) {
  Hello hello{kRunnerProtocolVersion, "aarch64-linux-gnu"};
  Hello h = DecodeHello(EncodeHello(hello), "hello");
  EXPECT_EQ(h.version, kRunnerProtocolVersion);
  EXPECT_EQ(h.triple, "aarch64-linux-gnu");

  RunnerFacts facts;
  facts.triple = "aarch64-linux-android";
  facts.os = "Android 14 (API 34)";
  facts.kernel = "5.15.110";
  facts.model = "Google Pixel 8";
  facts.cpu = "cortex-x3x1+cortex-a715x4+cortex-a510x4";
  facts.features = "fp asimd asimddp";
  facts.cores = 9;
  facts.page_size = 16384;
  facts.emulated = true;
  facts.emulation = "qemu-user";
  RunnerFacts f = DecodeFacts(EncodeFacts(facts), "facts");
  EXPECT_EQ(f.triple, facts.triple);
  EXPECT_EQ(f.os, facts.os);
  EXPECT_EQ(f.kernel, facts.kernel);
  EXPECT_EQ(f.model, facts.model);
  EXPECT_EQ(f.cpu, facts.cpu);
  EXPECT_EQ(f.features, facts.features);
  EXPECT_EQ(f.cores, 9);
  EXPECT_EQ(f.page_size, 16384);
  EXPECT_TRUE(f.emulated);
  EXPECT_EQ(f.emulation, "qemu-user");

  RunRequest q = SampleRequest();
  RunRequest r = DecodeRunRequest(EncodeRunRequest(q), "run");
  EXPECT_EQ(r.id, 42u);
  EXPECT_EQ(r.symbol, q.symbol);
  EXPECT_EQ(r.library, q.library);
  EXPECT_EQ(r.buffers, q.buffers);
  ASSERT_EQ(r.slots.size(), 4u);
  EXPECT_EQ(r.slots[0].kind, WireSlot::Kind::kBuffer);
  EXPECT_EQ(r.slots[1].int_value, -7);
  EXPECT_EQ(r.slots[2].float_value, 2.5);
  EXPECT_EQ(r.slots[3].buffer, 2u);
  EXPECT_TRUE(r.dump_outputs);
  EXPECT_EQ(r.timing.number, 5);
  EXPECT_EQ(r.timing.repeat, 3);
  EXPECT_EQ(r.timing.min_repeat_ms, 2.5);
  EXPECT_TRUE(r.timing.flush_cache);
  EXPECT_EQ(r.timing.warmup, 2);
  EXPECT_EQ(r.timing.cutoff_seconds, 0.125);
  EXPECT_EQ(r.time_limit_s, 7);
  EXPECT_EQ(r.num_threads, 4);

  RunResult result;
  result.id = 42;
  result.status = RunStatus::kCrashed;
  result.message = "signal 11";
  result.load_seconds = 0.01;
  result.first_run_seconds = 0.002;
  result.repeat_seconds = {1e-3, 2e-3};
  result.median_seconds = 1.5e-3;
  result.number = 17;
  result.cutoff = Cutoff::kNextRun;
  result.contention = 0.25;
  result.kernel_seconds = 0.5;
  result.outputs = {"abc", std::string(3, '\0')};
  RunResult s = DecodeRunResult(EncodeRunResult(result), "result");
  EXPECT_EQ(s.status, RunStatus::kCrashed);
  EXPECT_EQ(s.message, "signal 11");
  EXPECT_EQ(s.repeat_seconds, result.repeat_seconds);
  EXPECT_EQ(s.median_seconds, 1.5e-3);
  EXPECT_EQ(s.number, 17);
  EXPECT_EQ(s.cutoff, Cutoff::kNextRun);
  EXPECT_EQ(s.contention, 0.25);
  EXPECT_EQ(s.outputs, result.outputs);

  EXPECT_EQ(DecodeError(EncodeError("no such symbol"), "error"), "no such symbol");
}

// The bytes of the format, pinned: a change to them is a new protocol version (a runner on a
// phone and the host that drives it may be built months apart).
TEST(DeviceRunnerProtocolTest, TheFormatIsPinnedToItsVersion) {
  EXPECT_EQ(kRunnerProtocolVersion, 1u);
  std::string hello = EncodeFrame(FrameType::kHello, EncodeHello({1, "aarch64-linux-gnu"}));
  std::string expected = std::string("KDR1") + std::string("\x01\0\0\0", 4) +
                         std::string("\x1d\0\0\0\0\0\0\0", 8) + std::string("\x01\0\0\0", 4) +
                         std::string("\x11\0\0\0\0\0\0\0", 8) + "aarch64-linux-gnu";
  EXPECT_EQ(hello, expected);
  // id, symbol, library, three buffers, four slots, the flags, the timing, the limit, threads.
  EXPECT_EQ(EncodeRunRequest(SampleRequest()).size(),
            8u + (8 + 11) + (8 + 7) + 8 + (8 + 16) + (8 + 4) + (8 + 0) + 8 + (1 + 4) + (1 + 8) +
                (1 + 8) + (1 + 4) + 2 + 41 + 8 + 8);
}

TEST(DeviceRunnerProtocolTest, MalformedPayloadsNameTheField) {
  std::string run = EncodeRunRequest(SampleRequest());
  // Every cut short of the whole payload is refused, each naming where it stopped.
  for (size_t cut = 0; cut < run.size(); cut += 7) {
    auto [kind, message] = ErrorOf([&] { DecodeRunRequest(run.substr(0, cut), "run request"); });
    EXPECT_EQ(kind, ErrorKind::kParse) << cut;
    EXPECT_NE(message.find("run request"), std::string::npos) << message;
  }
  auto [kind, message] = ErrorOf([&] { DecodeRunRequest(run + "x", "run request"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("left over"), std::string::npos) << message;

  RunRequest bad_buffer = SampleRequest();
  bad_buffer.slots[3].buffer = 9;
  std::tie(kind, message) =
      ErrorOf([&] { DecodeRunRequest(EncodeRunRequest(bad_buffer), "run request"); });
  EXPECT_NE(message.find("names buffer 9 of 3"), std::string::npos) << message;

  RunRequest bad_timing = SampleRequest();
  bad_timing.timing.repeat = 0;
  std::tie(kind, message) =
      ErrorOf([&] { DecodeRunRequest(EncodeRunRequest(bad_timing), "run request"); });
  EXPECT_NE(message.find("repeat"), std::string::npos) << message;

  // A slot kind past the three there are.
  RunRequest one_slot = SampleRequest();
  one_slot.slots = {{WireSlot::Kind::kInt, 0, 1, 0}};
  std::string one = EncodeRunRequest(one_slot);
  // After the slot: its int (8), dump and time flags (2), the timing (41), the limit and the
  // threads (16).
  size_t slot_kind_at = one.size() - 8 - 2 - 41 - 16 - 1;
  ASSERT_EQ(one[slot_kind_at], 1);
  one[slot_kind_at] = 7;
  std::tie(kind, message) = ErrorOf([&] { DecodeRunRequest(one, "run request"); });
  EXPECT_NE(message.find("kind 7"), std::string::npos) << message;

  Hello old{kRunnerProtocolVersion + 1, "aarch64-linux-gnu"};
  std::tie(kind, message) = ErrorOf([&] { DecodeHello(EncodeHello(old), "hello"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("protocol version"), std::string::npos) << message;
}

// Frames written to one end of a pipe, read at the other.
class DeviceRunnerPipeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(pipe(fds_), 0); }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  void Write(const std::string& bytes) {
    ASSERT_EQ(write(fds_[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void CloseWriter() {
    close(fds_[1]);
    fds_[1] = -1;
  }
  int fds_[2] = {-1, -1};
};

TEST_F(DeviceRunnerPipeTest, FramesCrossAPipeAndTheEndIsClean) {
  std::string big(3 << 20, 'k');  // several of the reader's chunks
  std::thread writer([&] {
    WriteFrame(fds_[1], FrameType::kRun, big, "pipe");
    WriteFrame(fds_[1], FrameType::kBye, "", "pipe");
  });
  std::optional<Frame> run = ReadFrame(fds_[0], 10, "pipe");
  writer.join();
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->type, FrameType::kRun);
  EXPECT_EQ(run->payload, big);
  std::optional<Frame> bye = ReadFrame(fds_[0], 10, "pipe");
  ASSERT_TRUE(bye.has_value());
  EXPECT_EQ(bye->type, FrameType::kBye);
  CloseWriter();
  EXPECT_FALSE(ReadFrame(fds_[0], 10, "pipe").has_value());
}

TEST_F(DeviceRunnerPipeTest, ATruncatedFrameIsAParseError) {
  std::string frame = EncodeFrame(FrameType::kRun, EncodeRunRequest(SampleRequest()));
  Write(frame.substr(0, frame.size() - 5));
  CloseWriter();
  auto [kind, message] = ErrorOf([&] { ReadFrame(fds_[0], 10, "the host's stream"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("truncated frame"), std::string::npos) << message;
}

TEST_F(DeviceRunnerPipeTest, AHeaderCutShortIsAParseError) {
  Write(std::string(kFrameMagic) + "\x03");
  CloseWriter();
  auto [kind, message] = ErrorOf([&] { ReadFrame(fds_[0], 10, "stream"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("5 bytes of a 16-byte header"), std::string::npos) << message;
}

TEST_F(DeviceRunnerPipeTest, AWrongMagicIsAParseError) {
  Write("GET / HTTP/1.1\r\n\r\n");
  auto [kind, message] = ErrorOf([&] { ReadFrame(fds_[0], 10, "stream"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("KDR1"), std::string::npos) << message;
}

TEST_F(DeviceRunnerPipeTest, AnUnknownTypeAndAnOversizedLengthAreRefused) {
  std::string frame = EncodeFrame(FrameType::kBye, "");
  frame[4] = 99;
  Write(frame);
  auto [kind, message] = ErrorOf([&] { ReadFrame(fds_[0], 10, "stream"); });
  EXPECT_NE(message.find("unknown frame type 99"), std::string::npos) << message;

  std::string huge = EncodeFrame(FrameType::kRun, "");
  for (int i = 8; i < 16; ++i) huge[i] = '\x7f';
  Write(huge);
  std::tie(kind, message) = ErrorOf([&] { ReadFrame(fds_[0], 10, "stream"); });
  EXPECT_EQ(kind, ErrorKind::kParse);
  EXPECT_NE(message.find("past the limit"), std::string::npos) << message;
}

TEST_F(DeviceRunnerPipeTest, SilenceIsATimeout) {
  auto [kind, message] = ErrorOf([&] { ReadFrame(fds_[0], 0.05, "the runner"); });
  EXPECT_EQ(kind, ErrorKind::kIO);
  EXPECT_NE(message.find("time limit"), std::string::npos) << message;
}

TEST(DeviceRunnerProtocolTest, TriplesMatchIgnoringTheAndroidApiLevel) {
  EXPECT_TRUE(TriplesMatch("aarch64-linux-gnu", "aarch64-linux-gnu"));
  EXPECT_TRUE(TriplesMatch("aarch64-linux-android29", "aarch64-linux-android"));
  EXPECT_FALSE(TriplesMatch("x86_64-linux-gnu", "aarch64-linux-gnu"));
  EXPECT_FALSE(TriplesMatch("aarch64-linux-gnu", "aarch64-linux-android"));
  EXPECT_FALSE(TriplesMatch("", "aarch64-linux-gnu"));
}

}  // namespace
}  // namespace kiln::runtime::remote_cpu
