// Loading a shared library that may be absent (the CUDA driver, NVRTC) and resolving its
// symbols, for the CUDA runtime's loaders: the build never links them, so Kiln's binaries
// start on machines without a GPU or the toolkit and say what is missing instead.
#pragma once

#include <string>
#include <vector>

namespace kiln::runtime::cuda {

// The first of `candidates` (names for the loader's search path, or paths) that dlopen loads,
// kept loaded for the life of the process; nullptr when none does, with `why` listing each
// candidate's dlerror.
void* LoadFirstLibrary(const std::vector<std::string>& candidates, std::string* why);

// The address of `name` in `handle`, or nullptr.
void* FindSymbol(void* handle, const char* name);

// The file a loaded library came from ("" when unknown).
std::string LibraryPath(void* handle, const char* any_symbol);

// Resolves `name` into `fn`; false when the library lacks it.
template <typename Fn>
bool Resolve(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(FindSymbol(handle, name));
  return fn != nullptr;
}

}  // namespace kiln::runtime::cuda
