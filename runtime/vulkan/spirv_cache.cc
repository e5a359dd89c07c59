// CompileGlslCached: look up, else compile and store.
#include "runtime/vulkan/spirv_cache.h"

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "runtime/cpu_builder.h"
#include "runtime/file_util.h"
#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::runtime::vulkan {
namespace {

// Bump when the compiler's settings change (target environment, optimization).
constexpr int kSpirvCacheVersion = 1;
constexpr uint32_t kSpirvMagic = 0x07230203;

// 128 bits of key from two differently seeded hashes of the same input.
std::string Key(const std::string& glsl, const std::vector<std::string>& macros) {
  std::string key;
  for (int seed = 0; seed < 2; ++seed) {
    StableHasher h;
    h.Int(seed);
    h.Int(kSpirvCacheVersion);
    h.String(glsl);
    for (const std::string& m : macros) h.String(m);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.value()));
    key += hex;
  }
  return key;
}

}  // namespace

SpirvResult CompileGlslCached(const std::string& glsl, const std::string& name,
                              const std::vector<std::string>& macros,
                              const std::string& cache_dir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(cache_dir.empty() ? DefaultCacheDir() : cache_dir) / "spirv";
  fs::path path = dir / (Key(glsl, macros) + ".spv");
  try {
    std::string bytes = ReadWholeFile(path.string());
    uint32_t magic = 0;
    if (bytes.size() >= 20 && bytes.size() % 4 == 0) std::memcpy(&magic, bytes.data(), 4);
    if (magic == kSpirvMagic) {
      SpirvResult hit;
      hit.ok = true;
      hit.words.resize(bytes.size() / 4);
      std::memcpy(hit.words.data(), bytes.data(), bytes.size());
      return hit;
    }
  } catch (const Error&) {
    // Not there (or unreadable): compile.
  }
  SpirvResult result = CompileGlslToSpirv(glsl, name, macros);
  if (!result.ok) return result;
  try {
    std::error_code ec;
    fs::create_directories(dir, ec);
    WriteFileAtomically(path.string(),
                        std::string(reinterpret_cast<const char*>(result.words.data()),
                                    result.words.size() * sizeof(uint32_t)));
  } catch (const Error&) {
    // A read-only or full cache only costs the next compile.
  }
  return result;
}

}  // namespace kiln::runtime::vulkan
