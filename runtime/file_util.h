// Small file helpers the runtime shares: whole-file reads and writes that a concurrent
// reader (another process, a crashed writer) can never see half done, and private names.
#pragma once

#include <string>

namespace kiln::runtime {

// Throws kiln::Error(kIO) naming the file.
std::string ReadWholeFile(const std::string& path);

// Writes to a private name beside `path` and renames it into place.
void WriteFileAtomically(const std::string& path, const std::string& contents);

// "PID-N": unique among the threads and processes of this machine at one time.
std::string UniqueSuffix();

}  // namespace kiln::runtime
