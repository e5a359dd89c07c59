// Reading a whole file a user names (a model, IR text, a JSON file): the one reader every layer
// shares, with an error that names the file.
#pragma once

#include <string>

namespace kiln {

// The file's bytes. kiln::Error(kIO) "PATH: cannot open file (REASON)" when it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace kiln
