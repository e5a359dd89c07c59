// Loading wgpu-native and Dawn into one function table (webgpu_api.h).
#include "runtime/webgpu/webgpu_api.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "runtime/cuda/dynamic_library.h"
#include "support/error.h"

// The build's copies (runtime/webgpu/CMakeLists.txt).
#ifndef KILN_WGPU_NATIVE_LIBRARY
#define KILN_WGPU_NATIVE_LIBRARY "libwgpu_native-release.so"
#endif
#ifndef KILN_DAWN_LIBRARY
#define KILN_DAWN_LIBRARY "libwebgpu_dawn_x86_64.so"
#endif

namespace kiln::runtime::webgpu {
namespace {

// Resolves every function of the table; the names of those missing.
std::string ResolveAll(void* handle, WebGpuApi& api, bool native) {
  std::string missing;
  auto resolve = [&](const char* name, auto& fn) {
    // Dawn (2025) exports the callback-info form of an asynchronous call, the one webgpu.h
    // declares, under a "2" suffix; its unsuffixed name still takes a bare callback.
    if (cuda::Resolve(handle, (std::string(name) + "2").c_str(), fn)) return;
    if (!cuda::Resolve(handle, name, fn))
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
#define KILN_WEBGPU_RESOLVE(f) resolve("wgpu" #f, api.f);
  KILN_WEBGPU_FUNCTIONS(KILN_WEBGPU_RESOLVE)
  if (native) {
    KILN_WGPU_NATIVE_FUNCTIONS(KILN_WEBGPU_RESOLVE)
  }
#undef KILN_WEBGPU_RESOLVE
  return missing;
}

std::string FromEnvironment(const char* variable, const std::string& default_path) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : default_path;
}

struct Loaded {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<WebGpuApi>> apis;  // by path
};

Loaded& GetLoaded() {
  static Loaded* loaded = new Loaded;
  return *loaded;
}

const WebGpuApi& Load(const std::string& path, bool native, const char* what) {
  Loaded& loaded = GetLoaded();
  std::lock_guard lock(loaded.mutex);
  auto it = loaded.apis.find(path);
  if (it != loaded.apis.end()) return *it->second;
  KILN_CHECK(!path.empty(), ErrorKind::kUnsupported,
             std::string("no ") + what +
                 ": this build found none (deploy/install-deps.sh unpacks it; see docs/webgpu.md)");
  std::string why;
  void* handle = cuda::LoadFirstLibrary({path}, &why);
  if (handle == nullptr) {
    throw Error(ErrorKind::kUnsupported,
                std::string("no ") + what + ": cannot load " + path + ": " + why +
                    " (deploy/install-deps.sh unpacks it; see docs/webgpu.md)");
  }
  auto api = std::make_unique<WebGpuApi>();
  api->library = path;
  api->native = native;
  std::string missing = ResolveAll(handle, *api, native);
  if (!missing.empty()) {
    throw Error(ErrorKind::kUnsupported, std::string("no ") + what + ": " + path +
                                             " lacks the webgpu.h functions " + missing);
  }
  if (native) {
    api->version = api->GetVersion();
    if (api->version != kPinnedWgpuNativeVersion) {
      throw Error(ErrorKind::kUnsupported,
                  "no wgpu-native: " + path + " is version " + VersionString(api->version) +
                      ", Kiln is built for " + VersionString(kPinnedWgpuNativeVersion) +
                      " (the wgpu wheel deploy/install-deps.sh pins)");
    }
    api->name = "wgpu-native " + VersionString(api->version);
  } else {
    api->name = "Dawn";
  }
  return *loaded.apis.emplace(path, std::move(api)).first->second;
}

}  // namespace

std::string VersionString(uint32_t version) {
  return std::to_string(version >> 24) + "." + std::to_string((version >> 16) & 0xff) + "." +
         std::to_string((version >> 8) & 0xff) + "." + std::to_string(version & 0xff);
}

const WebGpuApi& LoadWgpuNative() {
  return Load(FromEnvironment("KILN_WGPU_NATIVE", KILN_WGPU_NATIVE_LIBRARY), true, "wgpu-native");
}

const WebGpuApi& LoadDawn() {
  return Load(FromEnvironment("KILN_DAWN_LIBRARY", KILN_DAWN_LIBRARY), false, "Dawn");
}

std::string ToString(WGPUStringView view) {
  if (view.data == nullptr) return "";
  if (view.length == WGPU_STRLEN) return std::string(view.data);
  return std::string(view.data, view.length);
}

}  // namespace kiln::runtime::webgpu
