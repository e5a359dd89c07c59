// StableHasher: a 64-bit hash whose value depends only on the bytes fed to it, never on the
// platform, the build, pointer values or std::hash. Tuning records are keyed by hashes made
// with it, so a change to its algorithm orphans every stored record: don't.
// Algorithm: FNV-1a over a byte stream; integers are fed as 8 little-endian bytes, strings as
// their length followed by their bytes, so the stream is prefix-free.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace kiln {

class StableHasher {
 public:
  void Byte(uint8_t b) {
    state_ ^= b;
    state_ *= 0x100000001b3ULL;
  }
  void Int(int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(u >> (8 * i)));
  }
  void Double(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    Int(static_cast<int64_t>(bits));
  }
  void String(std::string_view s) {
    Int(static_cast<int64_t>(s.size()));
    for (char c : s) Byte(static_cast<uint8_t>(c));
  }
  uint64_t value() const { return state_; }

 private:
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace kiln
