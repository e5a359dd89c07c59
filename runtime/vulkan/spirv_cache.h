// A content-addressed cache of compiled SPIR-V on disk: glslang spends about half a second
// per process before it compiles anything (its built-in symbol tables), and a candidate is
// compiled more than once (MeasureBatch's warm-up run, then the timed run; the same schedule
// drawn again). Keyed by the GLSL text, the macros and the compiler settings; a file that is
// unreadable or not SPIR-V counts as a miss, and a cache that cannot be written is skipped.
#pragma once

#include <string>
#include <vector>

#include "runtime/vulkan/spirv_compiler.h"

namespace kiln::runtime::vulkan {

// CompileGlslToSpirv(glsl, name, macros) through the cache under `cache_dir`/spirv (empty:
// DefaultCacheDir()). Compiler errors are never cached.
SpirvResult CompileGlslCached(const std::string& glsl, const std::string& name,
                              const std::vector<std::string>& macros,
                              const std::string& cache_dir = "");

}  // namespace kiln::runtime::vulkan
