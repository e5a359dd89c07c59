// Compiling many emitted CUDA sources with one NVRTC call, for tests that check that whole
// collections compile (the zoo, the models' tasks): each source goes into its own namespace of
// one translation unit, its #include lines hoisted to the top, so that NVRTC's fixed cost is
// paid once. A failure is then retried source by source to name the one at fault.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cuda/nvrtc.h"

namespace kiln::codegen::testing {

struct NamedSource {
  std::string name;
  std::string code;  // kernels must have distinct symbols across the batch
};

// "" when every source compiles for sm_90, else each failing source's name, log and code.
inline std::string CompileAllForSm90(const std::vector<NamedSource>& sources) {
  std::string includes, body;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::istringstream lines(sources[i].code);
    std::string line;
    body += "namespace unit" + std::to_string(i) + " {\n";
    while (std::getline(lines, line)) {
      if (line.rfind("#include", 0) == 0) {
        if (includes.find(line) == std::string::npos) includes += line + "\n";
      } else {
        body += line + "\n";
      }
    }
    body += "}\n";
  }
  if (runtime::cuda::CompileWithNvrtc(includes + body, "batch.cu", {.arch = "sm_90"}).ok) {
    return "";
  }
  std::string failures;
  for (const NamedSource& s : sources) {
    runtime::cuda::NvrtcOutput out =
        runtime::cuda::CompileWithNvrtc(s.code, s.name + ".cu", {.arch = "sm_90"});
    if (!out.ok) failures += s.name + ":\n" + out.log + "\n" + s.code + "\n";
  }
  return failures.empty() ? "the batch failed but every source compiles alone" : failures;
}

}  // namespace kiln::codegen::testing
