// Fuzzes the carve index reader (validate/carve.h, carve.json): every fault must be a
// kiln::Error naming the field. A crash, a sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "support/error.h"
#include "validate/carve.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kiln::validate::Carve carve = kiln::validate::ParseCarve(text, "fuzz/carve.json");
    (void)carve.calls.size();
  } catch (const kiln::Error&) {
  }
  return 0;
}
