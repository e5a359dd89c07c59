// Golden-file comparison and update for the tests (see golden.h).
#include "tests/testing/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::testing {
namespace {

// The first line (1-based) where the texts differ, with both lines, for the failure message.
std::string FirstDifference(std::string_view expected, std::string_view actual) {
  size_t line = 1;
  size_t line_begin = 0;
  for (size_t i = 0; i < expected.size() && i < actual.size() && expected[i] == actual[i]; ++i) {
    if (expected[i] == '\n') {
      ++line;
      line_begin = i + 1;
    }
  }
  auto line_of = [line_begin](std::string_view text) {
    if (line_begin >= text.size()) return std::string("<end of text>");
    size_t end = text.find('\n', line_begin);
    return std::string(text.substr(
        line_begin, end == std::string_view::npos ? std::string_view::npos : end - line_begin));
  };
  return "line " + std::to_string(line) + ":\n  expected: " + line_of(expected) +
         "\n  actual:   " + line_of(actual);
}

}  // namespace

GoldenMode GoldenModeFromEnvironment() {
  return std::getenv("KILN_UPDATE_GOLDEN") ? GoldenMode::kUpdate : GoldenMode::kCompare;
}

std::string ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path SourcePath(std::string_view relative) {
  return std::filesystem::path(KILN_SOURCE_DIR) / relative;
}

std::string CheckGoldenFile(const std::filesystem::path& path, std::string_view actual,
                            GoldenMode mode) {
  std::error_code ec;
  bool exists = std::filesystem::is_regular_file(path, ec);
  std::string expected = exists ? ReadTextFile(path) : "";
  bool same = exists && expected == actual;
  if (mode == GoldenMode::kUpdate) {
    if (same) {
      return "golden file " + path.string() +
             " already matches; KILN_UPDATE_GOLDEN is set, so the check fails: rerun without it";
    }
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << actual;
    out.close();
    if (!out) return "golden file " + path.string() + " could not be written";
    return "golden file " + path.string() + (exists ? " rewritten" : " created") +
           " (KILN_UPDATE_GOLDEN is set): review the diff, then rerun without it";
  }
  if (!exists) {
    return "missing golden file " + path.string() + " (run with KILN_UPDATE_GOLDEN=1 to create it)";
  }
  if (same) return "";
  return "the text differs from golden file " + path.string() + " at " +
         FirstDifference(expected, actual) +
         "\n(run with KILN_UPDATE_GOLDEN=1 to rewrite it after an intended change); the whole "
         "text:\n" +
         std::string(actual);
}

}  // namespace kiln::testing
