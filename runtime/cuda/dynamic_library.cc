// dlopen / dlsym / dladdr behind the three helpers of dynamic_library.h.
#include "runtime/cuda/dynamic_library.h"

#include <dlfcn.h>

namespace kiln::runtime::cuda {

void* LoadFirstLibrary(const std::vector<std::string>& candidates, std::string* why) {
  std::string reasons;
  for (const std::string& name : candidates) {
    if (name.empty()) continue;
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* error = dlerror();
    reasons += (reasons.empty() ? "" : "; ") + (error ? std::string(error) : name + ": not found");
  }
  if (why) *why = reasons;
  return nullptr;
}

void* FindSymbol(void* handle, const char* name) {
  return handle == nullptr ? nullptr : dlsym(handle, name);
}

std::string LibraryPath(void* handle, const char* any_symbol) {
  void* address = FindSymbol(handle, any_symbol);
  Dl_info info{};
  if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

}  // namespace kiln::runtime::cuda
