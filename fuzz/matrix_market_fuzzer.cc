// Fuzzes the Matrix Market reader (ir/sparse/matrix_market.h): every fault must be a kiln::Error
// naming the line, and every matrix read must satisfy the CSR invariants. A crash, a sanitizer
// report, another exception or a broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/sparse/matrix_market.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kiln::ir::sparse::CsrMatrix m = kiln::ir::sparse::ParseMatrixMarket(text, "fuzz.mtx");
    if (!m.Check().empty()) std::abort();
  } catch (const kiln::Error&) {
  }
  return 0;
}
