// Fuzzes wire message decoding, the edge where bytes from the network enter the coordinator
// and the worker: any input must decode or fail with kiln::Error (kParse, or kUnsupported
// for another protocol version); a crash, a sanitizer report or another exception is a bug.
// A frame that decodes must encode again and decode to the same kind of message.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "schemas/convert.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kiln::Error;
  using kiln::ErrorKind;
  try {
    kiln::schemas::Message message = kiln::schemas::Decode(data, size);
    kiln::schemas::Message again = kiln::schemas::Decode(kiln::schemas::Encode(message));
    if (again.index() != message.index()) {
      std::fprintf(stderr, "re-encoded %s decodes as %s\n", kiln::schemas::MessageName(message),
                   kiln::schemas::MessageName(again));
      std::abort();
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kParse && e.kind() != ErrorKind::kUnsupported) {
      std::fprintf(stderr, "unexpected error kind %s: %s\n",
                   std::string(kiln::ErrorKindName(e.kind())).c_str(), e.what());
      std::abort();
    }
  }
  return 0;
}
