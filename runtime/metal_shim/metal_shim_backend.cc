// MetalShimBackend: MSL -> C++20 shared object -> fibers on the CPU.
#include "runtime/metal_shim/metal_shim_backend.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

#include "codegen/metal/metal_abi.h"
#include "runtime/cpu_builder.h"
#include "runtime/metal/metal_device_key.h"
#include "runtime/metal_shim/metal_stdlib_text.h"
#include "runtime/metal_shim/threadgroup_executor.h"
#include "support/error.h"

namespace kiln::runtime::metal_shim {
namespace {

// The entry point of kernel `index` in the shared object: one thread of one threadgroup.
using ThreadEntry = void (*)(void* const* buffers, const void* args, const unsigned* group,
                             const unsigned* local);

std::string EntryName(size_t index) { return "kiln_shim_entry_" + std::to_string(index); }

// C++20, with what MSL means by its types: a signed char, wrapping integers (as the
// interpreter's), no contraction of a * b + c into one rounding, no fast math. Unknown
// attributes ([[buffer(0)]]) and pragmas (#pragma unroll) are MSL's, not errors.
std::vector<std::string> ShimFlags() {
  return {"-std=c++20",
          "-O2",
          "-fPIC",
          "-shared",
          "-fwrapv",
          "-fsigned-char",
          "-fno-strict-aliasing",
          "-ffp-contract=off",
          "-fno-fast-math",
          "-Wno-attributes",
          "-Wno-unknown-pragmas",
          "-x",
          "c++"};
}

void* AlignedAllocate(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  KILN_CHECK(p != nullptr, ErrorKind::kRuntime,
             "cannot allocate a " + std::to_string(bytes) + "-byte Metal shim buffer");
  std::memset(p, 0, rounded);
  return p;
}

struct Kernel {
  codegen::gpu::ConcreteLaunch launch;
  ThreadEntry entry = nullptr;
  bool launched = false;
  bool has_barriers = true;  // until a first launch passes none
};

class MetalShimBackend : public gpu::GpuBackend {
 public:
  MetalShimBackend() = default;
  ~MetalShimBackend() override {
    // The library stays loaded: a threadgroup array is a thread_local of it, whose
    // destructor registration must outlive the process's last use.
    for (void* b : buffers_) std::free(b);
  }

  gpu::DeviceDescription Describe() override {
    gpu::DeviceDescription d;
    d.kind = "metal";
    d.name = "Metal (CPU shim)";
    d.key = metal::kMetalShimDeviceKey;
    d.driver_version = CompilerIdentity(ShimCompiler());
    d.platform =
        "CPU emulation: MSL compiled as C++20 with Kiln's metal_stdlib shim, threadgroups as "
        "fibers; not a Metal GPU";
    d.limits = codegen::metal::MetalLimits();
    d.compute_units = 1;
    d.timer_resolution_ns = 1;
    d.emulated = true;
    return d;
  }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    kernels_.clear();
    const codegen::gpu::GpuLimits limits = codegen::metal::MetalLimits();
    std::vector<std::string> symbols;
    int64_t max_threads = 1;
    for (const codegen::gpu::ConcreteLaunch& launch : kernels) {
      int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
      for (int d = 0; d < 3; ++d) {
        if (launch.grid[d] < 1 || launch.grid[d] > limits.max_grid_extent[d] ||
            launch.block[d] < 1 || launch.block[d] > limits.max_block_extent[d]) {
          return "kernel " + launch.symbol + ": launch " + codegen::gpu::DescribeLaunch(launch) +
                 " is outside what Metal dispatches";
        }
      }
      if (threads > limits.max_threads_per_block) {
        return "kernel " + launch.symbol + ": " + std::to_string(threads) +
               " threads per threadgroup exceed Metal's limit of " +
               std::to_string(limits.max_threads_per_block);
      }
      max_threads = std::max(max_threads, threads);
      symbols.push_back(launch.symbol);
    }
    BuildOptions options;
    options.compiler = ShimCompiler();
    options.flags = ShimFlags();
    BuildResult built = BuildCSource(ShimTranslationUnit(source, symbols), options);
    if (!built.ok) return "the MSL does not compile as C++ with the Metal shim: " + built.error;
    void* library = dlopen(built.library_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library == nullptr) {
      return "cannot load " + built.library_path + ": " + std::string(dlerror());
    }
    auto** hook = reinterpret_cast<void (**)()>(dlsym(library, "kiln_shim_barrier_hook"));
    if (hook == nullptr) return built.library_path + " has no kiln_shim_barrier_hook";
    *hook = &ThreadgroupExecutor::Barrier;
    for (size_t k = 0; k < kernels.size(); ++k) {
      Kernel kernel;
      kernel.launch = kernels[k];
      kernel.entry = reinterpret_cast<ThreadEntry>(dlsym(library, EntryName(k).c_str()));
      if (kernel.entry == nullptr) return built.library_path + " has no " + EntryName(k);
      kernels_.push_back(kernel);
    }
    // Stacks now: the timed runs happen locked down.
    executor_.Reserve(static_cast<int>(max_threads));
    return "";
  }

  int Allocate(size_t bytes) override {
    buffers_.push_back(AlignedAllocate(bytes));
    sizes_.push_back(bytes);
    return static_cast<int>(buffers_.size()) - 1;
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    std::memcpy(At(buffer, bytes), data, bytes);
  }

  void Download(int buffer, void* data, size_t bytes) override {
    std::memcpy(data, At(buffer, bytes), bytes);
  }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    std::vector<bool> is_buffer;
    for (const gpu::GpuArg& a : args) is_buffer.push_back(a.kind == gpu::GpuArgSpec::Kind::kBuffer);
    codegen::metal::MetalArgLayout layout = codegen::metal::LayoutOf(is_buffer);
    std::vector<void*> pointers;
    std::vector<uint8_t> packed(std::max<uint32_t>(layout.args_bytes, 8));
    for (size_t i = 0; i < args.size(); ++i) {
      const gpu::GpuArg& a = args[i];
      if (a.kind == gpu::GpuArgSpec::Kind::kBuffer) {
        pointers.push_back(At(a.buffer, 0));
      } else {
        codegen::metal::PackArgSlot(a.dtype, a.int_value, a.float_value,
                                    packed.data() + layout.args_offset[i]);
      }
    }
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < n; ++r) {
      for (Kernel& kernel : kernels_) Launch(kernel, pointers.data(), packed.data());
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  void* At(int buffer, size_t bytes) {
    KILN_CHECK(buffer >= 0 && buffer < static_cast<int>(buffers_.size()) && bytes <= sizes_[buffer],
               ErrorKind::kRuntime,
               "Metal shim buffer " + std::to_string(buffer) +
                   " does not exist or is smaller than " + std::to_string(bytes) + " bytes");
    return buffers_[buffer];
  }

  // One dispatch: every threadgroup of the grid in order, its threads as fibers -- or, once a
  // first launch has shown the kernel passes no barrier, as plain calls.
  void Launch(Kernel& kernel, void* const* buffers, const void* args) {
    const auto& grid = kernel.launch.grid;
    const auto& block = kernel.launch.block;
    int threads = static_cast<int>(block[0] * block[1] * block[2]);
    unsigned group[3];
    auto thread = [&](int t) {
      unsigned l[3] = {static_cast<unsigned>(t % block[0]),
                       static_cast<unsigned>(t / block[0] % block[1]),
                       static_cast<unsigned>(t / (block[0] * block[1]))};
      kernel.entry(buffers, args, group, l);
    };
    std::function<void(int)> body = thread;
    int64_t barriers = 0;
    for (int64_t z = 0; z < grid[2]; ++z) {
      for (int64_t y = 0; y < grid[1]; ++y) {
        for (int64_t x = 0; x < grid[0]; ++x) {
          group[0] = static_cast<unsigned>(x);
          group[1] = static_cast<unsigned>(y);
          group[2] = static_cast<unsigned>(z);
          if (kernel.launched && !kernel.has_barriers) {
            for (int t = 0; t < threads; ++t) thread(t);
          } else {
            barriers += executor_.Run(threads, body);
          }
        }
      }
    }
    if (!kernel.launched) {
      kernel.launched = true;
      kernel.has_barriers = barriers > 0;
    }
  }

  std::vector<void*> buffers_;
  std::vector<size_t> sizes_;
  std::vector<Kernel> kernels_;
  ThreadgroupExecutor executor_;
};

}  // namespace

std::string ShimCompiler() {
  const char* env = std::getenv("KILN_METAL_SHIM_CXX");
  return env && *env ? env : "g++";
}

std::string ShimTranslationUnit(const std::string& msl, const std::vector<std::string>& kernels) {
  std::string shim = kMetalStdlibText;
  // Put in front of the source, not included: once-only is moot, and GCC warns about it.
  if (size_t once = shim.find("#pragma once\n"); once != std::string::npos) shim.erase(once, 13);
  std::ostringstream tu;
  tu << "// Kiln's Metal shim: MSL compiled as C++20 for the CPU (runtime/metal_shim/).\n"
     << shim << "\n#line 1 \"kernel.metal\"\n";
  std::istringstream lines(msl);
  std::string line;
  while (std::getline(lines, line)) {
    // The shim above is <metal_stdlib>; the line stays (as a comment) so line numbers hold.
    if (line.rfind("#include <metal_stdlib>", 0) == 0) line = "// " + line;
    tu << line << "\n";
  }
  tu << "\n// The runner's entry points, one thread of one threadgroup each.\n";
  for (size_t k = 0; k < kernels.size(); ++k) {
    tu << "extern \"C\" __attribute__((visibility(\"default\"))) void " << EntryName(k)
       << "(void* const* buffers, const void* args, const unsigned* group, const unsigned* "
          "local) {\n  kiln_shim::Launch("
       << kernels[k] << ", buffers, args, group, local);\n}\n";
  }
  return tu.str();
}

std::unique_ptr<gpu::GpuBackend> OpenMetalShimDevice() {
  try {
    CompilerIdentity(ShimCompiler());
  } catch (const Error& e) {
    throw Error(ErrorKind::kUnsupported,
                std::string("no C++ compiler for the Metal CPU shim: ") + e.what());
  }
  return std::make_unique<MetalShimBackend>();
}

}  // namespace kiln::runtime::metal_shim
