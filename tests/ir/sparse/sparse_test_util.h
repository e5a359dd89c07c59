// Helpers of the SparseTIR tests: SparseTIR's own scripts (data/sparsetir/, as its repository
// writes them) and the golden stage-II / stage-III texts (data/golden/).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "tests/testing/golden.h"

namespace kiln::ir::sparse::testing {

inline std::filesystem::path ScriptPath(const std::string& name) {
  return kiln::testing::SourcePath("tests/ir/sparse/data/sparsetir/" + name + ".py");
}

inline std::filesystem::path GoldenPath(const std::string& name, const std::string& stage) {
  return kiln::testing::SourcePath("tests/ir/sparse/data/golden/" + name + "." + stage + ".py");
}

inline PrimFunc LoadScript(const std::string& name) {
  std::filesystem::path path = ScriptPath(name);
  return ParsePrimFunc(kiln::testing::ReadTextFile(path), path.filename().string());
}

// `f` printed against the golden file of `name` at `stage` ("stage2", "stage3"), and the
// golden text parsed back against `f` structurally. KILN_UPDATE_GOLDEN=1 rewrites the file.
inline void ExpectGolden(const PrimFunc& f, const std::string& name, const std::string& stage) {
  std::filesystem::path path = GoldenPath(name, stage);
  std::string text = PrintPrimFunc(f);
  EXPECT_EQ(kiln::testing::CheckGoldenFile(path, text), "");
  std::string golden = kiln::testing::ReadTextFile(path);
  if (golden.empty()) return;
  PrimFunc g = ParsePrimFunc(golden, path.filename().string());
  if (StructuralEqual(f, g)) return;
  // Where the canonical forms part, for the reader of the failure.
  std::string a = CanonicalForm(f), b = CanonicalForm(g);
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  size_t from = at > 200 ? at - 200 : 0;
  ADD_FAILURE() << "the golden " << path.filename() << " does not read back to the lowered "
                << "function; lowered: ..." << a.substr(from, 300) << "\ngolden:  ..."
                << b.substr(from, 300);
}

}  // namespace kiln::ir::sparse::testing
