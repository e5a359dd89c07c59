// ZmtpStream: cuts one direction of a ZeroMQ connection (ZMTP 3) into the pieces the chaos
// proxy forwards: the 64-byte greeting and the handshake's commands go through as they are
// (raw), and each message (its frames up to the one without the MORE flag) comes out whole, so
// that a fault drops, repeats or reorders messages and never cuts the framing by accident.
// A frame's flags byte: 0x01 more frames follow, 0x02 an 8-byte big-endian size (else 1 byte),
// 0x04 a command. CurveZMQ's encrypted messages are MESSAGE commands and count as messages.
// A stream that is not ZMTP 3 (another signature, an older version, unknown flags, a frame
// over 256 MiB) is passed through raw from then on.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::tools {

struct ZmtpUnit {
  enum class Kind { kRaw, kMessage };
  Kind kind = Kind::kRaw;
  std::string bytes;
  // Where each frame's body lies in `bytes` (offset, length): what a corrupt fault may flip.
  std::vector<std::pair<size_t, size_t>> bodies;
};

class ZmtpStream {
 public:
  void Feed(const char* data, size_t size);
  // The next piece whose bytes have all arrived (greeting bytes come out as they arrive);
  // none until more are fed.
  std::optional<ZmtpUnit> Next();
  // True once the stream was found not to be ZMTP 3: every piece is raw from then on.
  bool raw() const { return raw_; }
  // Bytes fed and not yet returned.
  size_t buffered() const { return buffer_.size() - pos_; }

  static constexpr size_t kGreetingBytes = 64;
  static constexpr size_t kMaxFrameBytes = size_t{256} << 20;

 private:
  ZmtpUnit TakeRaw(size_t size);
  std::string buffer_;
  size_t pos_ = 0;
  size_t greeting_seen_ = 0;
  bool raw_ = false;
};

}  // namespace kiln::tools
