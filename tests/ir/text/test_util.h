// Helpers shared by the text format tests: the corpus folder and file reading.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::ir::testing {

inline std::filesystem::path CorpusDir() {
  return std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "ir" / "testdata" / "tir";
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kiln::ir::testing
