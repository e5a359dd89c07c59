// Conversion between the wire messages (messages.h) and Cap'n Proto bytes (kiln.capnp). Decode
// is the edge where bytes from the network enter Kiln: it copies them into word-aligned memory
// (a ZeroMQ frame has no alignment guarantee and Cap'n Proto refuses unaligned buffers),
// enforces size, traversal and nesting limits, checks the protocol version and every field a
// later layer relies on, and throws kiln::Error for anything malformed; it never crashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "schemas/messages.h"

namespace kiln::schemas {

// The version every envelope carries (kiln.capnp's protocolVersion); pinned by a test.
uint32_t ProtocolVersion();

struct DecodeLimits {
  size_t max_bytes = size_t{64} << 20;           // a whole message
  uint64_t traversal_limit_words = 16ull << 20;  // words Cap'n Proto may read (128 MiB)
  int nesting_limit = 16;
};

// The message as one flat Cap'n Proto frame with protocol version `version` (the default is
// this build's; tests send others).
std::string Encode(const Message& message, uint32_t version = ProtocolVersion());

// Reads one frame. kiln::Error(kUnsupported) "protocol version N, this build speaks M" for
// another version; kiln::Error(kParse) naming the field or the limit for anything malformed.
Message Decode(const void* data, size_t size, const DecodeLimits& limits = {});
inline Message Decode(const std::string& bytes, const DecodeLimits& limits = {}) {
  return Decode(bytes.data(), bytes.size(), limits);
}

}  // namespace kiln::schemas
