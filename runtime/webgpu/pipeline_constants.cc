// Override constants from a kernel's launch (pipeline_constants.h).
#include "runtime/webgpu/pipeline_constants.h"

#include <cctype>

#include "codegen/webgpu/webgpu_abi.h"

namespace kiln::runtime::webgpu {
namespace {

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `wgsl` has `override NAME` (any attributes before it, any spacing between).
bool DeclaresOverride(const std::string& wgsl, const std::string& name) {
  for (size_t at = wgsl.find(name); at != std::string::npos; at = wgsl.find(name, at + 1)) {
    size_t end = at + name.size();
    if (end < wgsl.size() && IsIdentifierChar(wgsl[end])) continue;
    size_t before = at;
    while (before > 0 && std::isspace(static_cast<unsigned char>(wgsl[before - 1]))) --before;
    if (before >= 8 && wgsl.compare(before - 8, 8, "override") == 0 &&
        (before == 8 || !IsIdentifierChar(wgsl[before - 9]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::pair<std::string, double>> PipelineConstants(
    const std::string& wgsl, const codegen::gpu::ConcreteLaunch& launch) {
  std::vector<std::pair<std::string, double>> constants;
  for (int d = 0; d < 3; ++d) {
    const std::string wg = codegen::webgpu::kWorkgroupSizeConstants[d];
    const std::string grid = codegen::webgpu::kGridConstants[d];
    if (DeclaresOverride(wgsl, wg)) constants.emplace_back(wg, launch.block[d]);
    if (DeclaresOverride(wgsl, grid)) constants.emplace_back(grid, launch.grid[d]);
  }
  return constants;
}

}  // namespace kiln::runtime::webgpu
