// Fuzzes the Relax text parser, TVM's metadata section and JSON graph reader included. Any input
// must either parse or fail with kiln::Error; a crash, a sanitizer report or another exception is
// a bug. A module that parses must also print and parse back to a structurally equal module with
// the same printed text, in both dialects (TVM 0.24+ and up to 0.23).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ir/relax/structural.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"

namespace {

void CheckRoundTrip(const kiln::ir::relax::IRModule& module, kiln::ir::TirDialect dialect) {
  using namespace kiln::ir::relax;  // NOLINT(google-build-using-namespace)
  PrintOptions options;
  options.dialect = dialect;
  // Small enough that short constants exercise the metadata section too.
  options.max_inline_constant_elements = 2;
  std::string printed = PrintModule(module, options);
  IRModule again;
  try {
    again = ParseModule(printed, "<printed>");
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "printed module does not parse: %s\n%s\n", e.what(), printed.c_str());
    std::abort();
  }
  std::string reprinted = PrintModule(again, options);
  if (!StructuralEqual(module, again) || reprinted != printed) {
    std::fprintf(stderr, "round trip changed the module:\n%s\n---\n%s\n", printed.c_str(),
                 reprinted.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kiln::ir::relax::IRModule module;
  try {
    module = kiln::ir::relax::ParseModule(text, "<fuzz>");
  } catch (const kiln::Error&) {
    // A standalone function is the other entry point.
    try {
      kiln::ir::relax::ParseRelaxFunction(text, "<fuzz>");
    } catch (const kiln::Error&) {
    }
    return 0;
  }
  CheckRoundTrip(module, kiln::ir::TirDialect::kTvm024);
  CheckRoundTrip(module, kiln::ir::TirDialect::kTvm023);
  return 0;
}
