// The device runner's frames: little-endian payload writer and bounds-checked reader, and
// frame I/O over a file descriptor with an optional deadline.
#include "runtime/remote_cpu/runner_protocol.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

#include "support/error.h"

namespace kiln::runtime::remote_cpu {
namespace {

// Counts in a payload are bounded by what the payload can hold; this bounds them further
// (buffers and slots of one kernel, repeats of one timing, facts).
constexpr uint64_t kMaxCount = 1 << 20;

class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) { Little(v, 4); }
  void U64(uint64_t v) { Little(v, 8); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    U64(bits);
  }
  void Bytes(std::string_view v) {
    U64(v.size());
    out_.append(v.data(), v.size());
  }
  std::string Take() { return std::move(out_); }

 private:
  void Little(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view data, const std::string& where) : data_(data), where_(where) {}

  uint8_t U8(const char* field) { return static_cast<uint8_t>(Take(1, field)[0]); }
  uint32_t U32(const char* field) { return static_cast<uint32_t>(Little(Take(4, field))); }
  uint64_t U64(const char* field) { return Little(Take(8, field)); }
  int64_t I64(const char* field) { return static_cast<int64_t>(U64(field)); }
  double F64(const char* field) {
    uint64_t bits = U64(field);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  // A non-negative finite number.
  double Seconds(const char* field) {
    double v = F64(field);
    KILN_CHECK(std::isfinite(v) && v >= 0, ErrorKind::kParse,
               where_ + ": " + field + " must be a non-negative number, got " + std::to_string(v));
    return v;
  }
  std::string Bytes(const char* field) {
    size_t at = pos_;
    uint64_t n = U64(field);
    KILN_CHECK(n <= data_.size() - pos_, ErrorKind::kParse,
               where_ + ": " + field + " at offset " + std::to_string(at) + " says " +
                   std::to_string(n) + " bytes, but only " + std::to_string(data_.size() - pos_) +
                   " follow (truncated)");
    return std::string(Take(n, field));
  }
  uint64_t Count(const char* field) {
    uint64_t n = U64(field);
    KILN_CHECK(n <= kMaxCount && n <= data_.size() - pos_, ErrorKind::kParse,
               where_ + ": " + field + " count " + std::to_string(n) +
                   " is more than the payload can hold (truncated or corrupt)");
    return n;
  }
  bool Bool(const char* field) {
    uint8_t v = U8(field);
    KILN_CHECK(v <= 1, ErrorKind::kParse,
               where_ + ": " + field + " must be 0 or 1, got " + std::to_string(v));
    return v == 1;
  }
  void Done() {
    KILN_CHECK(pos_ == data_.size(), ErrorKind::kParse,
               where_ + ": " + std::to_string(data_.size() - pos_) +
                   " bytes left over after the last field");
  }

 private:
  std::string_view Take(uint64_t n, const char* field) {
    KILN_CHECK(n <= data_.size() - pos_, ErrorKind::kParse,
               where_ + ": truncated at " + field + " (offset " + std::to_string(pos_) +
                   ": needs " + std::to_string(n) + " bytes, " +
                   std::to_string(data_.size() - pos_) + " left)");
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  static uint64_t Little(std::string_view bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
    }
    return v;
  }

  std::string_view data_;
  const std::string& where_;
  size_t pos_ = 0;
};

void CheckVersion(uint32_t version, const std::string& where) {
  KILN_CHECK(version == kRunnerProtocolVersion, ErrorKind::kParse,
             where + ": protocol version " + std::to_string(version) + ", but this side speaks " +
                 std::to_string(kRunnerProtocolVersion) +
                 " (build the runner and the host from the same sources)");
}

void WriteTiming(Writer& w, const TimingConfig& t) {
  w.I64(t.number);
  w.I64(t.repeat);
  w.F64(t.min_repeat_ms);
  w.U8(t.flush_cache ? 1 : 0);
  w.I64(t.warmup);
  w.F64(t.cutoff_seconds);
}

TimingConfig ReadTiming(Reader& r, const std::string& where) {
  TimingConfig t;
  int64_t number = r.I64("timing.number");
  int64_t repeat = r.I64("timing.repeat");
  t.min_repeat_ms = r.Seconds("timing.min_repeat_ms");
  t.flush_cache = r.Bool("timing.flush_cache");
  int64_t warmup = r.I64("timing.warmup");
  t.cutoff_seconds = r.Seconds("timing.cutoff_seconds");
  KILN_CHECK(number >= 1 && number <= (1 << 30) && repeat >= 1 && repeat <= 10000 && warmup >= 0 &&
                 warmup <= 10000,
             ErrorKind::kParse,
             where +
                 ": timing needs number in 1..2^30, repeat in 1..10000, warmup in 0..10000; "
                 "got number " +
                 std::to_string(number) + ", repeat " + std::to_string(repeat) + ", warmup " +
                 std::to_string(warmup));
  t.number = static_cast<int>(number);
  t.repeat = static_cast<int>(repeat);
  t.warmup = static_cast<int>(warmup);
  return t;
}

std::string ErrnoText() { return std::strerror(errno); }

// A write that reports a reader gone as EPIPE and never raises SIGPIPE, whose default action
// would end the process: send's flag on a socket; on a pipe, SIGPIPE blocked for this thread
// and a pending one taken back.
ssize_t WriteSome(int fd, const char* data, size_t size) {
  ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
  if (n >= 0 || errno != ENOTSOCK) return n;
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  n = ::write(fd, data, size);
  int saved = errno;
  if (n < 0 && saved == EPIPE) {
    timespec zero{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return n;
}

}  // namespace

std::string FrameTypeName(FrameType type) {
  switch (type) {
    case FrameType::kHello:
      return "hello";
    case FrameType::kFacts:
      return "facts";
    case FrameType::kRun:
      return "run";
    case FrameType::kResult:
      return "result";
    case FrameType::kError:
      return "error";
    case FrameType::kBye:
      return "bye";
  }
  return "frame type " + std::to_string(static_cast<uint32_t>(type));
}

std::string RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kLoadError:
      return "load_error";
    case RunStatus::kKernelError:
      return "kernel_error";
    case RunStatus::kCrashed:
      return "crashed";
    case RunStatus::kTimeout:
      return "timeout";
  }
  return "status " + std::to_string(static_cast<int>(status));
}

std::string EncodeHello(const Hello& hello) {
  Writer w;
  w.U32(hello.version);
  w.Bytes(hello.triple);
  return w.Take();
}

Hello DecodeHello(std::string_view payload, const std::string& where) {
  Reader r(payload, where);
  Hello h;
  h.version = r.U32("version");
  CheckVersion(h.version, where);
  h.triple = r.Bytes("triple");
  r.Done();
  return h;
}

std::string EncodeFacts(const RunnerFacts& f) {
  std::vector<std::pair<std::string, std::string>> entries = {
      {"triple", f.triple},
      {"os", f.os},
      {"kernel", f.kernel},
      {"model", f.model},
      {"cpu", f.cpu},
      {"features", f.features},
      {"cores", std::to_string(f.cores)},
      {"page_size", std::to_string(f.page_size)},
      {"emulated", f.emulated ? "1" : "0"},
      {"emulation", f.emulation},
  };
  Writer w;
  w.U32(f.version);
  w.U64(entries.size());
  for (const auto& [name, value] : entries) {
    w.Bytes(name);
    w.Bytes(value);
  }
  return w.Take();
}

RunnerFacts DecodeFacts(std::string_view payload, const std::string& where) {
  Reader r(payload, where);
  RunnerFacts f;
  f.version = r.U32("version");
  CheckVersion(f.version, where);
  uint64_t n = r.Count("facts");
  auto number = [&](const std::string& name, const std::string& value) {
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    KILN_CHECK(!value.empty() && end && *end == '\0' && v >= 0, ErrorKind::kParse,
               where + ": fact " + name + " must be a non-negative integer, got '" + value + "'");
    return static_cast<int64_t>(v);
  };
  const std::map<std::string, std::string*> texts = {
      {"triple", &f.triple},      {"os", &f.os},   {"kernel", &f.kernel},
      {"model", &f.model},        {"cpu", &f.cpu}, {"features", &f.features},
      {"emulation", &f.emulation}};
  for (uint64_t i = 0; i < n; ++i) {
    std::string name = r.Bytes("fact name");
    std::string value = r.Bytes("fact value");
    if (auto it = texts.find(name); it != texts.end()) {
      *it->second = value;
    } else if (name == "cores") {
      f.cores = static_cast<int>(std::min<int64_t>(number(name, value), 1 << 20));
    } else if (name == "page_size") {
      f.page_size = number(name, value);
    } else if (name == "emulated") {
      f.emulated = number(name, value) != 0;
    }
    // An unknown fact is from a newer runner: ignored.
  }
  r.Done();
  KILN_CHECK(!f.triple.empty(), ErrorKind::kParse, where + ": the runner sent no triple");
  return f;
}

std::string EncodeRunRequest(const RunRequest& q) {
  Writer w;
  w.U64(q.id);
  w.Bytes(q.symbol);
  w.Bytes(q.library);
  w.U64(q.buffers.size());
  for (const std::string& b : q.buffers) w.Bytes(b);
  w.U64(q.slots.size());
  for (const WireSlot& s : q.slots) {
    w.U8(static_cast<uint8_t>(s.kind));
    switch (s.kind) {
      case WireSlot::Kind::kBuffer:
        w.U32(s.buffer);
        break;
      case WireSlot::Kind::kInt:
        w.I64(s.int_value);
        break;
      case WireSlot::Kind::kFloat:
        w.F64(s.float_value);
        break;
    }
  }
  w.U8(q.dump_outputs ? 1 : 0);
  w.U8(q.time ? 1 : 0);
  WriteTiming(w, q.timing);
  w.F64(q.time_limit_s);
  w.I64(q.num_threads);
  return w.Take();
}

RunRequest DecodeRunRequest(std::string_view payload, const std::string& where) {
  Reader r(payload, where);
  RunRequest q;
  q.id = r.U64("id");
  q.symbol = r.Bytes("symbol");
  KILN_CHECK(!q.symbol.empty() && q.symbol.find('\0') == std::string::npos, ErrorKind::kParse,
             where + ": the symbol must be a non-empty C name");
  q.library = r.Bytes("library");
  KILN_CHECK(!q.library.empty(), ErrorKind::kParse, where + ": the library is empty");
  uint64_t buffers = r.Count("buffers");
  for (uint64_t i = 0; i < buffers; ++i) q.buffers.push_back(r.Bytes("buffer"));
  uint64_t slots = r.Count("slots");
  for (uint64_t i = 0; i < slots; ++i) {
    WireSlot s;
    uint8_t kind = r.U8("slot kind");
    KILN_CHECK(kind <= 2, ErrorKind::kParse,
               where + ": slot " + std::to_string(i) + " has kind " + std::to_string(kind) +
                   " (0 buffer, 1 int, 2 float expected)");
    s.kind = static_cast<WireSlot::Kind>(kind);
    if (s.kind == WireSlot::Kind::kBuffer) {
      s.buffer = r.U32("slot buffer");
      KILN_CHECK(s.buffer < q.buffers.size(), ErrorKind::kParse,
                 where + ": slot " + std::to_string(i) + " names buffer " +
                     std::to_string(s.buffer) + " of " + std::to_string(q.buffers.size()));
    } else if (s.kind == WireSlot::Kind::kInt) {
      s.int_value = r.I64("slot int");
    } else {
      s.float_value = r.F64("slot float");
    }
    q.slots.push_back(s);
  }
  q.dump_outputs = r.Bool("dump_outputs");
  q.time = r.Bool("time");
  q.timing = ReadTiming(r, where);
  q.time_limit_s = r.Seconds("time_limit_s");
  KILN_CHECK(q.time_limit_s > 0, ErrorKind::kParse, where + ": time_limit_s must be above 0");
  int64_t threads = r.I64("num_threads");
  KILN_CHECK(threads >= 0 && threads <= 4096, ErrorKind::kParse,
             where + ": num_threads must be in 0..4096, got " + std::to_string(threads));
  q.num_threads = static_cast<int>(threads);
  r.Done();
  return q;
}

std::string EncodeRunResult(const RunResult& s) {
  Writer w;
  w.U64(s.id);
  w.U8(static_cast<uint8_t>(s.status));
  w.Bytes(s.message);
  w.F64(s.load_seconds);
  w.F64(s.first_run_seconds);
  w.U64(s.repeat_seconds.size());
  for (double v : s.repeat_seconds) w.F64(v);
  w.F64(s.median_seconds);
  w.I64(s.number);
  w.U8(static_cast<uint8_t>(s.cutoff));
  w.F64(s.contention);
  w.F64(s.kernel_seconds);
  w.U64(s.outputs.size());
  for (const std::string& o : s.outputs) w.Bytes(o);
  return w.Take();
}

RunResult DecodeRunResult(std::string_view payload, const std::string& where) {
  Reader r(payload, where);
  RunResult s;
  s.id = r.U64("id");
  uint8_t status = r.U8("status");
  KILN_CHECK(status <= static_cast<uint8_t>(RunStatus::kTimeout), ErrorKind::kParse,
             where + ": unknown status " + std::to_string(status));
  s.status = static_cast<RunStatus>(status);
  s.message = r.Bytes("message");
  s.load_seconds = r.Seconds("load_seconds");
  s.first_run_seconds = r.Seconds("first_run_seconds");
  uint64_t repeats = r.Count("repeat_seconds");
  for (uint64_t i = 0; i < repeats; ++i) s.repeat_seconds.push_back(r.Seconds("repeat_seconds"));
  s.median_seconds = r.Seconds("median_seconds");
  int64_t number = r.I64("number");
  KILN_CHECK(number >= 0 && number <= (int64_t{1} << 31) - 1, ErrorKind::kParse,
             where + ": number " + std::to_string(number) + " out of range");
  s.number = static_cast<int32_t>(number);
  uint8_t cutoff = r.U8("cutoff");
  KILN_CHECK(cutoff <= static_cast<uint8_t>(Cutoff::kAbandoned), ErrorKind::kParse,
             where + ": unknown cutoff " + std::to_string(cutoff));
  s.cutoff = static_cast<Cutoff>(cutoff);
  s.contention = r.Seconds("contention");
  s.kernel_seconds = r.Seconds("kernel_seconds");
  uint64_t outputs = r.Count("outputs");
  for (uint64_t i = 0; i < outputs; ++i) s.outputs.push_back(r.Bytes("output"));
  r.Done();
  return s;
}

std::string EncodeError(const std::string& message) {
  Writer w;
  w.Bytes(message);
  return w.Take();
}

std::string DecodeError(std::string_view payload, const std::string& where) {
  Reader r(payload, where);
  std::string message = r.Bytes("message");
  r.Done();
  return message;
}

std::string EncodeFrame(FrameType type, std::string_view payload) {
  Writer w;
  std::string out(kFrameMagic);
  w.U32(static_cast<uint32_t>(type));
  w.U64(payload.size());
  out += w.Take();
  out.append(payload.data(), payload.size());
  return out;
}

void WriteFrame(int fd, FrameType type, std::string_view payload, const std::string& where) {
  std::string frame = EncodeFrame(type, payload);
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = WriteSome(fd, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    KILN_CHECK(n > 0, ErrorKind::kIO,
               where + ": cannot write a " + FrameTypeName(type) +
                   " frame: " + (n < 0 ? ErrnoText() : std::string("nothing written")));
    done += static_cast<size_t>(n);
  }
}

namespace {

// Reads exactly `n` bytes into `out`; returns how many arrived before the stream ended.
size_t ReadFull(int fd, char* out, size_t n, std::chrono::steady_clock::time_point deadline,
                bool has_deadline, const std::string& where) {
  size_t done = 0;
  while (done < n) {
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      KILN_CHECK(left > 0, ErrorKind::kIO, where + ": no answer within the time limit");
      pollfd p{fd, POLLIN, 0};
      int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
      if (ready < 0 && errno == EINTR) continue;
      KILN_CHECK(ready >= 0, ErrorKind::kIO, where + ": poll failed: " + ErrnoText());
      if (ready == 0) continue;
    }
    ssize_t got = ::read(fd, out + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    KILN_CHECK(got >= 0, ErrorKind::kIO, where + ": read failed: " + ErrnoText());
    if (got == 0) return done;
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

std::optional<Frame> ReadFrame(int fd, double timeout_s, const std::string& where) {
  bool has_deadline = timeout_s > 0;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(has_deadline ? timeout_s : 0));
  char header[kFrameHeaderBytes];
  size_t got = ReadFull(fd, header, sizeof header, deadline, has_deadline, where);
  if (got == 0) return std::nullopt;
  KILN_CHECK(got == sizeof header, ErrorKind::kParse,
             where + ": truncated frame: the stream ended after " + std::to_string(got) +
                 " bytes of a " + std::to_string(kFrameHeaderBytes) + "-byte header");
  KILN_CHECK(std::string_view(header, 4) == kFrameMagic, ErrorKind::kParse,
             where + ": not a device runner frame (the first 4 bytes are not \"KDR1\")");
  Reader r(std::string_view(header + 4, sizeof header - 4), where);
  uint32_t type = r.U32("frame type");
  uint64_t length = r.U64("frame length");
  KILN_CHECK(type >= static_cast<uint32_t>(FrameType::kHello) &&
                 type <= static_cast<uint32_t>(FrameType::kBye),
             ErrorKind::kParse, where + ": unknown frame type " + std::to_string(type));
  KILN_CHECK(length <= kMaxFramePayloadBytes, ErrorKind::kParse,
             where + ": a " + FrameTypeName(static_cast<FrameType>(type)) + " frame of " +
                 std::to_string(length) + " bytes is past the limit of " +
                 std::to_string(kMaxFramePayloadBytes));
  Frame frame;
  frame.type = static_cast<FrameType>(type);
  // Grown as bytes arrive: a corrupt length ends in a truncation error, not a huge allocation.
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  got = 0;
  while (got < length) {
    size_t part = static_cast<size_t>(std::min(kChunk, length - got));
    frame.payload.resize(got + part);
    size_t n = ReadFull(fd, frame.payload.data() + got, part, deadline, has_deadline, where);
    got += n;
    if (n < part) break;
  }
  KILN_CHECK(got == length, ErrorKind::kParse,
             where + ": truncated frame: a " + FrameTypeName(frame.type) + " frame of " +
                 std::to_string(length) + " bytes ended after " + std::to_string(got));
  return frame;
}

bool TriplesMatch(std::string_view built_for, std::string_view runner_triple) {
  auto strip = [](std::string_view t) {
    while (!t.empty() && t.back() >= '0' && t.back() <= '9') t.remove_suffix(1);
    return t;
  };
  return !built_for.empty() && strip(built_for) == strip(runner_triple);
}

}  // namespace kiln::runtime::remote_cpu
