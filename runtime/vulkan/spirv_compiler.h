// GLSL compute shaders to SPIR-V at run time, with shaderc (statically linked with glslang
// and SPIRV-Tools: Debian's shared libshaderc is unusable, see runtime/vulkan/CMakeLists.txt).
// A shader the compiler rejects is the candidate's fault and comes back as a message, never
// as an exception.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime::vulkan {

struct SpirvResult {
  bool ok = false;
  std::vector<uint32_t> words;  // the SPIR-V module when ok
  std::string error;            // the compiler's messages (with line numbers) otherwise
  double compile_seconds = 0;
};

// Compiles `glsl` (a complete compute shader with its #version line) for Vulkan 1.1 /
// SPIR-V 1.3. `name` appears in the compiler's messages ("kernel.comp:12: error: ...").
// Each of `macros` is defined (as #define NAME) before the source. `optimize` runs
// SPIRV-Tools' performance passes over the module.
SpirvResult CompileGlslToSpirv(const std::string& glsl, const std::string& name,
                               const std::vector<std::string>& macros = {}, bool optimize = true);

}  // namespace kiln::runtime::vulkan
