// ReadWholeFile, WriteFileAtomically, UniqueSuffix.
#include "runtime/file_util.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace kiln::runtime {

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.is_open(), ErrorKind::kIO, "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  KILN_CHECK(!in.bad(), ErrorKind::kIO, "cannot read " + path);
  return text.str();
}

void WriteFileAtomically(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp-" + UniqueSuffix();
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    KILN_CHECK(out.good(), ErrorKind::kIO, "cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::string reason = ec.message();
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorKind::kIO, "cannot rename " + tmp + " to " + path + ": " + reason);
  }
}

std::string UniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  return std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

}  // namespace kiln::runtime
