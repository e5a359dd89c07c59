// ZmtpStream: the greeting, frame headers and message boundaries of ZMTP 3.
#include "tools/chaos_proxy/zmtp_stream.h"

#include <cstdint>

namespace kiln::tools {
namespace {

constexpr uint8_t kMore = 0x01;
constexpr uint8_t kLong = 0x02;
constexpr uint8_t kCommand = 0x04;

}  // namespace

void ZmtpStream::Feed(const char* data, size_t size) {
  if (pos_ > 0 && pos_ >= buffer_.size() / 2) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  buffer_.append(data, size);
}

ZmtpUnit ZmtpStream::TakeRaw(size_t size) {
  ZmtpUnit unit;
  unit.bytes = buffer_.substr(pos_, size);
  pos_ += size;
  return unit;
}

std::optional<ZmtpUnit> ZmtpStream::Next() {
  size_t available = buffer_.size() - pos_;
  if (available == 0) return std::nullopt;
  if (raw_) return TakeRaw(available);
  if (greeting_seen_ < kGreetingBytes) {
    // Peers send the greeting in parts and wait for each other's: it is forwarded as it comes.
    size_t n = std::min(available, kGreetingBytes - greeting_seen_);
    for (size_t i = 0; i < n; ++i) {
      auto byte = static_cast<uint8_t>(buffer_[pos_ + i]);
      size_t at = greeting_seen_ + i;
      if ((at == 0 && byte != 0xff) || (at == 9 && byte != 0x7f) || (at == 10 && byte < 3)) {
        raw_ = true;
      }
    }
    greeting_seen_ += n;
    return TakeRaw(raw_ ? available : n);
  }
  // Frames from pos_ up to the end of a message (or one command).
  ZmtpUnit unit;
  size_t at = pos_;
  while (true) {
    if (buffer_.size() - at < 2) return std::nullopt;
    auto flags = static_cast<uint8_t>(buffer_[at]);
    if (flags & ~(kMore | kLong | kCommand)) {
      raw_ = true;
      return TakeRaw(available);
    }
    size_t header = (flags & kLong) ? 9 : 2;
    if (buffer_.size() - at < header) return std::nullopt;
    uint64_t size = 0;
    if (flags & kLong) {
      for (size_t i = 1; i <= 8; ++i) size = (size << 8) | static_cast<uint8_t>(buffer_[at + i]);
    } else {
      size = static_cast<uint8_t>(buffer_[at + 1]);
    }
    if (size > kMaxFrameBytes) {
      raw_ = true;
      return TakeRaw(available);
    }
    if (buffer_.size() - at - header < size) return std::nullopt;
    size_t body = at + header - pos_;
    if (flags & kCommand) {
      // A command is one frame. CurveZMQ's MESSAGE command carries a message; the others
      // (READY, HELLO, PING, ...) are the connection's own and pass untouched.
      bool message = size >= 8 && buffer_.compare(at + header, 8, "\x07MESSAGE") == 0;
      if (at == pos_) {
        unit = TakeRaw(header + size);
        if (message) {
          unit.kind = ZmtpUnit::Kind::kMessage;
          unit.bodies.emplace_back(header, size);
        }
        return unit;
      }
      // A command inside a message breaks the framing rules: stop parsing.
      raw_ = true;
      return TakeRaw(available);
    }
    unit.bodies.emplace_back(body, size);
    at += header + size;
    if (!(flags & kMore)) break;
  }
  std::vector<std::pair<size_t, size_t>> bodies = std::move(unit.bodies);
  unit = TakeRaw(at - pos_);
  unit.kind = ZmtpUnit::Kind::kMessage;
  unit.bodies = std::move(bodies);
  return unit;
}

}  // namespace kiln::tools
