// ReadWholeFile, WriteFileAtomically, PreopenedFile, UniqueSuffix.
#include "runtime/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

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

PreopenedFile::PreopenedFile(std::string path) : path_(std::move(path)) {
  fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  KILN_CHECK(fd_ >= 0, ErrorKind::kIO, "cannot create " + path_ + ": " + std::strerror(errno));
}

PreopenedFile::PreopenedFile(PreopenedFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

PreopenedFile& PreopenedFile::operator=(PreopenedFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

PreopenedFile::~PreopenedFile() {
  if (fd_ >= 0) close(fd_);
}

void PreopenedFile::Write(const void* data, size_t bytes) {
  const char* next = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = write(fd_, next, bytes);
    if (n < 0 && errno == EINTR) continue;
    KILN_CHECK(n > 0, ErrorKind::kIO, "cannot write " + path_ + ": " + std::strerror(errno));
    next += n;
    bytes -= static_cast<size_t>(n);
  }
}

std::string UniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  return std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

}  // namespace kiln::runtime
