// CpuModule: dlopen, dlsym, dlclose.
#include "runtime/cpu_module.h"

#include <dlfcn.h>

#include <utility>

#include "support/error.h"

namespace kiln::runtime {
namespace {

std::string LastDlError() {
  const char* e = dlerror();
  return e ? e : "unknown reason";
}

}  // namespace

CpuModule CpuModule::Load(const std::string& path, bool keep_loaded) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | (keep_loaded ? RTLD_NODELETE : 0));
  KILN_CHECK(handle != nullptr, ErrorKind::kIO, "cannot load " + path + ": " + LastDlError());
  return CpuModule(handle, path);
}

CpuModule::CpuModule(CpuModule&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

CpuModule& CpuModule::operator=(CpuModule&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

CpuModule::~CpuModule() {
  if (handle_) dlclose(handle_);
}

KernelFunction CpuModule::GetKernel(const std::string& symbol) const {
  KILN_CHECK(handle_ != nullptr, ErrorKind::kInternal, "GetKernel on an unloaded module");
  dlerror();
  void* address = dlsym(handle_, symbol.c_str());
  KILN_CHECK(address != nullptr, ErrorKind::kIO,
             "no kernel '" + symbol + "' in " + path_ + ": " + LastDlError());
  return reinterpret_cast<KernelFunction>(address);
}

void CpuModule::StartOpenMpThreads() {
  // Loaded already when a kernel library pulled it in; never loaded here.
  void* runtime = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) return;
  using Parallel = void (*)(void (*)(void*), void*, unsigned num_threads, unsigned flags);
  auto parallel = reinterpret_cast<Parallel>(dlsym(runtime, "GOMP_parallel"));
  // 0 threads: the default team, the one a kernel's parallel loops get.
  if (parallel != nullptr) parallel([](void*) {}, nullptr, 0, 0);
  dlclose(runtime);
}

}  // namespace kiln::runtime
