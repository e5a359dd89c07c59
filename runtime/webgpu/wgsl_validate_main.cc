// kiln-wgsl-validate: checks a WGSL file with naga (wgpu-native) and Tint (Dawn), as the
// tests do (runtime/webgpu/wgsl_validator.h). Usage:
//   kiln-wgsl-validate [--naga | --tint] FILE.wgsl [ENTRY=BX,BY,BZ/GX,GY,GZ ...]
// Each ENTRY is made into a pipeline with its workgroup size (B) and logical grid (G) as the
// override constants of codegen/webgpu/webgpu_abi.h; without entries only the module is checked.
// Exit status: 0 when every validator asked accepts, 1 when one rejects (its diagnostics on
// stdout), 2 for bad usage, 3 when a validator's library is missing.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/file_util.h"
#include "runtime/webgpu/wgsl_validator.h"
#include "support/error.h"

namespace {

using kiln::runtime::webgpu::WgslValidator;

// "matmul=8,8,1/6,4,1".
bool ParseEntry(const std::string& text, kiln::codegen::gpu::ConcreteLaunch& launch) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  launch.symbol = text.substr(0, eq);
  long long b[3], g[3];
  if (std::sscanf(text.c_str() + eq + 1, "%lld,%lld,%lld/%lld,%lld,%lld", &b[0], &b[1], &b[2],
                  &g[0], &g[1], &g[2]) != 6) {
    return false;
  }
  for (int d = 0; d < 3; ++d) {
    launch.block[d] = b[d];
    launch.grid[d] = g[d];
  }
  return true;
}

int Usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--naga | --tint] FILE.wgsl [ENTRY=BX,BY,BZ/GX,GY,GZ ...]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<WgslValidator> validators = {WgslValidator::kNaga, WgslValidator::kTint};
  std::string file;
  std::vector<kiln::codegen::gpu::ConcreteLaunch> kernels;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--naga") {
      validators = {WgslValidator::kNaga};
    } else if (arg == "--tint") {
      validators = {WgslValidator::kTint};
    } else if (file.empty() && arg.rfind("--", 0) != 0) {
      file = arg;
    } else {
      kiln::codegen::gpu::ConcreteLaunch launch;
      if (!ParseEntry(arg, launch)) return Usage(argv[0]);
      kernels.push_back(launch);
    }
  }
  if (file.empty()) return Usage(argv[0]);
  std::string source;
  try {
    source = kiln::runtime::ReadWholeFile(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  int status = 0;
  for (WgslValidator v : validators) {
    try {
      std::string report = kiln::runtime::webgpu::ValidateWgsl(v, source, kernels);
      // A report names its validator already.
      std::printf("%s\n",
                  report.empty()
                      ? (std::string(kiln::runtime::webgpu::WgslValidatorName(v)) + ": ok").c_str()
                      : report.c_str());
      if (!report.empty()) status = 1;
    } catch (const kiln::Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 3;
    }
  }
  return status;
}
