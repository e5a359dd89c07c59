// Golden file comparison for the schedule tests.
#include "tests/search/golden.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/testing/golden.h"

namespace kiln::search::testing {

namespace {

std::filesystem::path TestDataDir() {
  return std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "search" / "testdata";
}

}  // namespace

std::string ReadTestData(const std::string& name) {
  std::ifstream in(TestDataDir() / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string CheckGolden(const std::string& name, const ir::PrimFunc& before,
                        const ir::PrimFunc& after) {
  std::string printed = ir::PrintPrimFunc(before) + "\n" + ir::PrintPrimFunc(after);
  std::string file = name + ".tir";
  std::string diff = kiln::testing::CheckGoldenFile(TestDataDir() / file, printed);
  if (!diff.empty()) return diff;
  std::vector<ir::PrimFunc> parsed;
  try {
    parsed = ir::ParsePrimFuncs(printed, file);
  } catch (const Error& e) {
    return std::string("the golden text does not parse back: ") + e.what();
  }
  if (parsed.size() != 2)
    return "the golden text holds " + std::to_string(parsed.size()) + " functions, expected 2";
  if (!ir::StructuralEqual(parsed[0], before)) return "the parsed 'before' function differs";
  if (!ir::StructuralEqual(parsed[1], after)) return "the parsed 'after' function differs";
  return "";
}

}  // namespace kiln::search::testing
