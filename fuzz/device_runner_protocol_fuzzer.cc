// Fuzzes the device runner's wire protocol (runtime/remote_cpu/runner_protocol.h), the edge
// where bytes from the network enter kiln-device-runner on a phone and the worker that fronts
// it: the input, as the payload of each message and as a stream of frames, must decode or fail
// with kiln::Error(kParse) (kIO only for a stream's read); a crash, a sanitizer report or
// another exception is a bug. A payload that decodes must encode to bytes that decode alike.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/remote_cpu/runner_protocol.h"
#include "support/error.h"

namespace {

using namespace kiln::runtime::remote_cpu;

template <typename F>
void Expect(F f, const char* what) {
  try {
    f();
  } catch (const kiln::Error& e) {
    if (e.kind() != kiln::ErrorKind::kParse) {
      std::fprintf(stderr, "%s: unexpected error kind %s: %s\n", what,
                   std::string(kiln::ErrorKindName(e.kind())).c_str(), e.what());
      std::abort();
    }
  }
}

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "%s: re-encoded message differs\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  Expect(
      [&] {
        Hello h = DecodeHello(bytes, "hello");
        Check(EncodeHello(h) == bytes, "hello");
      },
      "hello");
  Expect(
      [&] {
        RunnerFacts f = DecodeFacts(bytes, "facts");
        RunnerFacts g = DecodeFacts(EncodeFacts(f), "facts again");
        Check(g.triple == f.triple && g.cpu == f.cpu && g.cores == f.cores, "facts");
      },
      "facts");
  Expect(
      [&] {
        RunRequest q = DecodeRunRequest(bytes, "run");
        Check(EncodeRunRequest(q) == bytes, "run");
      },
      "run");
  Expect(
      [&] {
        RunResult r = DecodeRunResult(bytes, "result");
        Check(EncodeRunResult(r) == bytes, "result");
      },
      "result");
  Expect([&] { DecodeError(bytes, "error"); }, "error");
  // As a stream of frames, through a pipe (its buffer holds a small input whole).
  if (size <= 4096) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    if (write(fds[1], data, size) != static_cast<ssize_t>(size)) std::abort();
    close(fds[1]);
    Expect(
        [&] {
          while (ReadFrame(fds[0], 0, "stream")) {
          }
        },
        "stream");
    close(fds[0]);
  }
  return 0;
}
