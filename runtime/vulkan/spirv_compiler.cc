// CompileGlslToSpirv over shaderc's C++ interface.
#include "runtime/vulkan/spirv_compiler.h"

#include <chrono>
#include <shaderc/shaderc.hpp>

namespace kiln::runtime::vulkan {

SpirvResult CompileGlslToSpirv(const std::string& glsl, const std::string& name,
                               const std::vector<std::string>& macros, bool optimize) {
  auto start = std::chrono::steady_clock::now();
  shaderc::Compiler compiler;
  shaderc::CompileOptions options;
  options.SetSourceLanguage(shaderc_source_language_glsl);
  options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  options.SetTargetSpirv(shaderc_spirv_version_1_3);
  for (const std::string& macro : macros) options.AddMacroDefinition(macro);
  options.SetOptimizationLevel(optimize ? shaderc_optimization_level_performance
                                        : shaderc_optimization_level_zero);
  shaderc::SpvCompilationResult compiled = compiler.CompileGlslToSpv(
      glsl.data(), glsl.size(), shaderc_compute_shader, name.c_str(), "main", options);
  SpirvResult result;
  if (compiled.GetCompilationStatus() == shaderc_compilation_status_success) {
    result.ok = true;
    result.words.assign(compiled.cbegin(), compiled.cend());
  } else {
    result.error = compiled.GetErrorMessage();
    if (result.error.empty()) {
      result.error = name + ": the GLSL compiler failed (status " +
                     std::to_string(static_cast<int>(compiled.GetCompilationStatus())) + ")";
    }
  }
  result.compile_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace kiln::runtime::vulkan
