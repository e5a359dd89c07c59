// ZMTP 3 bytes for the chaos proxy's tests: a NULL-mechanism greeting and frames (short or
// long, with the MORE and COMMAND flags), as a ZeroMQ peer writes them.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::tools::testing {

inline std::string Greeting() {
  std::string g(64, '\0');
  g[0] = '\xff';
  g[9] = '\x7f';
  g[10] = 3;
  g.replace(12, 4, "NULL");
  return g;
}

inline std::string Frame(const std::string& body, bool more = false, bool command = false) {
  std::string out;
  uint8_t flags = (more ? 0x01 : 0) | (command ? 0x04 : 0) | (body.size() > 255 ? 0x02 : 0);
  out += static_cast<char>(flags);
  if (body.size() > 255) {
    for (int i = 7; i >= 0; --i) out += static_cast<char>((body.size() >> (8 * i)) & 0xff);
  } else {
    out += static_cast<char>(body.size());
  }
  return out + body;
}

// The handshake's READY command.
inline std::string Ready() { return Frame("\x05READY", false, true); }

}  // namespace kiln::tools::testing
