// Fuzzes the reader of TensorIR functions from TVM's JSON object graph (the workloads of TVM's
// JSON tuning database, ir/tvm_json/prim_func_graph.h). Any input must either read or fail with
// kiln::Error; a crash, a sanitizer report, a hang or another exception is a bug. A function
// that reads must also write back to a graph that reads to a structurally equal function, and
// writing that one again must give the same text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ir/structural.h"
#include "ir/tvm_json/prim_func_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln::ir;  // NOLINT(google-build-using-namespace)
  std::string_view text(reinterpret_cast<const char*>(data), size);
  PrimFunc func;
  try {
    func = tvm_json::ReadPrimFuncJson(text, "<fuzz>");
  } catch (const kiln::Error&) {
    return 0;
  }
  std::string written, rewritten;
  PrimFunc back;
  try {
    written = tvm_json::WritePrimFuncModuleJson(func);
    back = tvm_json::ReadPrimFuncJson(written, "<written>");
    rewritten = tvm_json::WritePrimFuncModuleJson(back);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "a function that read does not write and read back: %s\n", e.what());
    std::abort();
  }
  if (!StructuralEqual(func, back) || rewritten != written) {
    std::fprintf(stderr, "the round trip changed the function:\n%s\n---\n%s\n",
                 CanonicalForm(func).c_str(), CanonicalForm(back).c_str());
    std::abort();
  }
  return 0;
}
