// Fuzzes the TensorIR text parser. Any input must either parse or fail with kiln::Error; a
// crash, a sanitizer report or another exception is a bug. A function that parses must also
// print and parse back to an equal structure with the same printed text, in both dialects.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<kiln::ir::PrimFunc> funcs;
  try {
    funcs = kiln::ir::ParsePrimFuncs(text, "<fuzz>");
  } catch (const kiln::Error&) {
    return 0;
  }
  for (const kiln::ir::PrimFunc& f : funcs) {
    // Both dialects (TVM 0.24+, the default, and 0.23) must read back to the same function.
    for (kiln::ir::TirDialect dialect :
         {kiln::ir::TirDialect::kTvm024, kiln::ir::TirDialect::kTvm023}) {
      kiln::ir::TirPrintOptions options{dialect};
      std::string printed = kiln::ir::PrintPrimFunc(f, options);
      kiln::ir::PrimFunc again;
      try {
        again = kiln::ir::ParsePrimFunc(printed, "<printed>");
      } catch (const kiln::Error& e) {
        std::fprintf(stderr, "printed function does not parse: %s\n%s\n", e.what(),
                     printed.c_str());
        std::abort();
      }
      if (!kiln::ir::StructuralEqual(f, again) ||
          kiln::ir::PrintPrimFunc(again, options) != printed) {
        std::fprintf(stderr, "round trip changed the function:\n%s\n---\n%s\n", printed.c_str(),
                     kiln::ir::PrintPrimFunc(again, options).c_str());
        std::abort();
      }
    }
  }
  return 0;
}
