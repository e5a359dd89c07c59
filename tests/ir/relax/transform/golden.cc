// Golden file comparison for the transform tests.
#include "tests/ir/relax/transform/golden.h"

#include <filesystem>

#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"
#include "tests/testing/golden.h"

namespace kiln::ir::relax::testing {

namespace {

std::filesystem::path TestDataDir() {
  return std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "ir" / "relax" / "transform" /
         "testdata";
}

}  // namespace

std::string CheckGoldenText(const std::string& name, const std::string& text) {
  std::filesystem::path path = TestDataDir() / name;
  return kiln::testing::CheckGoldenFile(path, text);
}

std::string CheckGolden(const std::string& name, const IRModule& module) {
  std::string printed = PrintModule(module);
  std::string diff = CheckGoldenText(name, printed);
  if (!diff.empty()) return diff;
  std::string reprinted = PrintModule(ParseModule(printed, name));
  if (reprinted != printed) return "testdata/" + name + " does not print back the same";
  return "";
}

}  // namespace kiln::ir::relax::testing
