// kiln-vulkan-sandbox: compiles and runs one Vulkan candidate in its own process, so that a
// crash, a hang or a lost device takes down only this process. Usage:
// kiln-vulkan-sandbox REQUEST.json RESULT.json, with the request and result of
// runtime/sandbox_protocol.h (source_path names the Vulkan program file). As kiln-sandbox, it
// writes the result file only when the request was carried out, and exits with
// kSandboxFaultExitStatus when it could not carry it out (no device, malformed request).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <exception>

#include "runtime/file_util.h"
#include "runtime/sandbox_protocol.h"
#include "runtime/vulkan/vulkan_runner.h"

int main(int argc, char** argv) {
  using namespace kiln::runtime;
  if (argc != 3) {
    std::fprintf(stderr, "usage: kiln-vulkan-sandbox REQUEST.json RESULT.json\n");
    return kSandboxFaultExitStatus;
  }
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    close(null_fd);
  }
  try {
    SandboxRequest request = RequestFromJson(ReadWholeFile(argv[1]), argv[1]);
    SandboxResult result = vulkan::RunVulkanRequest(request);
    WriteFileAtomically(argv[2], ResultToJson(result));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln-vulkan-sandbox: %s\n", e.what());
    return kSandboxFaultExitStatus;
  }
  return 0;
}
