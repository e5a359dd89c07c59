// ReadFile.
#include "support/file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace kiln {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::kIO, path + ": cannot open file (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::kIO, path + ": cannot read file");
  return text.str();
}

}  // namespace kiln
