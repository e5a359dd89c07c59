// Small file helpers the runtime shares: whole-file reads and writes that a concurrent
// reader (another process, a crashed writer) can never see half done, and private names.
#pragma once

#include <cstddef>
#include <string>

namespace kiln::runtime {

// Throws kiln::Error(kIO) naming the file.
std::string ReadWholeFile(const std::string& path);

// Writes to a private name beside `path` and renames it into place.
void WriteFileAtomically(const std::string& path, const std::string& contents);

// A file opened (created or truncated) now and written later: for a process that may open
// no more files once its setup is done (a locked-down runner, sandbox_lockdown.h). Not
// atomic: a reader must know that the writer finished (a client reads a runner's files only
// after the runner exited normally).
class PreopenedFile {
 public:
  // Throws kiln::Error(kIO) naming the file.
  explicit PreopenedFile(std::string path);
  PreopenedFile(PreopenedFile&& other) noexcept;
  PreopenedFile& operator=(PreopenedFile&& other) noexcept;
  PreopenedFile(const PreopenedFile&) = delete;
  PreopenedFile& operator=(const PreopenedFile&) = delete;
  ~PreopenedFile();

  // Writes all of it at the file's current end; throws kiln::Error(kIO) naming the file.
  void Write(const void* data, size_t bytes);
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// "PID-N": unique among the threads and processes of this machine at one time.
std::string UniqueSuffix();

}  // namespace kiln::runtime
