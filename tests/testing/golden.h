// Golden files shared by every test: compare a printed text with a file under tests/, and
// rewrite the file when KILN_UPDATE_GOLDEN is set. An update run always fails (it says which
// files it rewrote), so a run with the variable set never passes silently; rerun without it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kiln::testing {

enum class GoldenMode {
  kCompare,  // a difference is a failure
  kUpdate,   // a difference rewrites the file; the check fails all the same
};

// kUpdate when the environment variable KILN_UPDATE_GOLDEN is set (to anything), else kCompare.
GoldenMode GoldenModeFromEnvironment();

// "" when the file at `path` holds exactly `actual`, else a message naming the file and the
// first line that differs. In kUpdate mode the file (and its folder) is written when it is
// missing or differs, and the message says so; the message is never "" in kUpdate mode.
std::string CheckGoldenFile(const std::filesystem::path& path, std::string_view actual,
                            GoldenMode mode = GoldenModeFromEnvironment());

// The whole file as bytes; "" when it cannot be read.
std::string ReadTextFile(const std::filesystem::path& path);

// A path inside the source tree: SourcePath("tests/ir/testdata") is absolute.
std::filesystem::path SourcePath(std::string_view relative);

}  // namespace kiln::testing
