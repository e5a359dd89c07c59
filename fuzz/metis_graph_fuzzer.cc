// Fuzzes the METIS graph reader (ir/sparse/metis_graph.h): every fault must be a kiln::Error
// naming the line, and every graph read must satisfy the CSR invariants, be square, and hold 2m
// nonzeros less the repeated neighbours. A crash, a sanitizer report, another exception or a
// broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ir/sparse/metis_graph.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kiln::ir::sparse::MetisGraphInfo info;
    kiln::ir::sparse::CsrMatrix m = kiln::ir::sparse::ParseMetisGraph(text, "fuzz.graph", &info);
    if (!m.Check().empty() || m.rows != m.cols || m.rows != info.vertices) std::abort();
    if (m.nnz() != 2 * info.edges - info.duplicates) std::abort();
  } catch (const kiln::Error&) {
  }
  return 0;
}
