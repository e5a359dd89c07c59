// CpuModule: a shared object built from generated C, loaded with dlopen and unloaded when
// the module is destroyed, and the kernels found in it.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/kernel_abi.h"

namespace kiln::runtime {

// The C signature every generated kernel has (codegen/kernel_abi.h).
using KernelFunction = int32_t (*)(const codegen::PackedValue* args, int32_t num_args);

class CpuModule {
 public:
  // Loads `path` (RTLD_NOW | RTLD_LOCAL, so that missing symbols fail here, not mid-run).
  // Throws kiln::Error(kIO) naming the file and dlerror's reason. With `keep_loaded` the
  // library (and what it pulled in) stays mapped after the module is destroyed
  // (RTLD_NODELETE): a kernel that ran parallel loops leaves the OpenMP runtime's idle
  // worker threads behind, and unmapping that runtime under them crashes the process.
  static CpuModule Load(const std::string& path, bool keep_loaded = false);

  CpuModule(CpuModule&& other) noexcept;
  CpuModule& operator=(CpuModule&& other) noexcept;
  CpuModule(const CpuModule&) = delete;
  CpuModule& operator=(const CpuModule&) = delete;
  ~CpuModule();

  // The kernel `symbol`; throws kiln::Error(kIO) naming the file and the symbol when absent.
  KernelFunction GetKernel(const std::string& symbol) const;
  const std::string& path() const { return path_; }

  // Starts the thread pool of the OpenMP runtime the library uses (when it uses one) by
  // running an empty parallel region, none of the library's code: a process that will start
  // no threads it can see afterwards (a locked-down runner, sandbox_lockdown.h) knows them
  // all before a kernel runs. A parallel kernel then finds the pool started.
  static void StartOpenMpThreads();

 private:
  CpuModule(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace kiln::runtime
