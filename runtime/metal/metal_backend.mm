// MetalBackend: GpuBackend over Metal (Objective-C++, ARC). UNTESTED: no Mac has built or run
// this file yet; it is written against Apple's documented API and kept short so that the first
// Mac that builds it has little to fix.
#include "runtime/metal/metal_backend.h"

#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <cstring>
#include <string>
#include <vector>

#include "codegen/metal/metal_abi.h"
#include "runtime/metal/metal_device_key.h"
#include "support/error.h"

namespace kiln::runtime::metal {
namespace {

std::string Text(NSString* s) { return s ? std::string([s UTF8String]) : std::string(); }

class MetalBackend : public gpu::GpuBackend {
 public:
  explicit MetalBackend(id<MTLDevice> device) : device_(device), queue_([device newCommandQueue]) {
    KILN_CHECK(queue_ != nil, ErrorKind::kUnsupported,
               "Metal device " + Text(device.name) + " gave no command queue");
  }

  gpu::DeviceDescription Describe() override {
    gpu::DeviceDescription d;
    d.kind = "metal";
    d.name = Text(device_.name);
    d.key = MetalDeviceKey(d.name);
    d.driver_version = Text([[NSProcessInfo processInfo] operatingSystemVersionString]);
    d.platform = std::string(device_.hasUnifiedMemory ? "unified memory" : "discrete memory");
    d.limits = codegen::metal::MetalLimits();
    MTLSize threads = device_.maxThreadsPerThreadgroup;
    d.limits.max_block_extent = {static_cast<int64_t>(threads.width),
                                 static_cast<int64_t>(threads.height),
                                 static_cast<int64_t>(threads.depth)};
    d.limits.max_shared_bytes = static_cast<int64_t>(device_.maxThreadgroupMemoryLength);
    d.compute_units = 0;           // Metal does not report its GPU cores
    d.timer_resolution_ns = 1000;  // GPUStartTime / GPUEndTime: CFTimeInterval seconds
    d.emulated = false;
    return d;
  }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    pipelines_.clear();
    launches_ = kernels;
    MTLCompileOptions* options = [[MTLCompileOptions alloc] init];
    // NaN propagation and the interpreter's results need IEEE arithmetic (metal_abi.h).
    // fastMathEnabled is deprecated from macOS 15 (mathMode) but honoured, and exists on every
    // SDK this builds with.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    options.fastMathEnabled = NO;
#pragma clang diagnostic pop
    NSError* error = nil;
    id<MTLLibrary> library =
        [device_ newLibraryWithSource:[NSString stringWithUTF8String:source.c_str()]
                              options:options
                                error:&error];
    if (library == nil) {
      return "the MSL does not compile: " + Text(error.localizedDescription);
    }
    for (const codegen::gpu::ConcreteLaunch& launch : kernels) {
      id<MTLFunction> function =
          [library newFunctionWithName:[NSString stringWithUTF8String:launch.symbol.c_str()]];
      if (function == nil) return "the library has no kernel " + launch.symbol;
      id<MTLComputePipelineState> pipeline = [device_ newComputePipelineStateWithFunction:function
                                                                                    error:&error];
      if (pipeline == nil) {
        return "kernel " + launch.symbol + ": no pipeline: " + Text(error.localizedDescription);
      }
      int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
      if (threads > static_cast<int64_t>(pipeline.maxTotalThreadsPerThreadgroup)) {
        return "kernel " + launch.symbol + ": " + std::to_string(threads) +
               " threads per threadgroup exceed this pipeline's limit of " +
               std::to_string(pipeline.maxTotalThreadsPerThreadgroup);
      }
      pipelines_.push_back(pipeline);
    }
    return "";
  }

  int Allocate(size_t bytes) override {
    id<MTLBuffer> buffer = [device_ newBufferWithLength:bytes options:MTLResourceStorageModeShared];
    KILN_CHECK(buffer != nil, ErrorKind::kRuntime,
               "cannot allocate a " + std::to_string(bytes) + "-byte Metal buffer");
    buffers_.push_back(buffer);
    return static_cast<int>(buffers_.size()) - 1;
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    std::memcpy([At(buffer) contents], data, bytes);
  }

  void Download(int buffer, void* data, size_t bytes) override {
    std::memcpy(data, [At(buffer) contents], bytes);
  }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    std::vector<bool> is_buffer;
    for (const gpu::GpuArg& a : args) is_buffer.push_back(a.kind == gpu::GpuArgSpec::Kind::kBuffer);
    codegen::metal::MetalArgLayout layout = codegen::metal::LayoutOf(is_buffer);
    std::vector<uint8_t> packed(layout.args_bytes);
    for (size_t i = 0; i < args.size(); ++i) {
      if (is_buffer[i]) continue;
      codegen::metal::PackArgSlot(args[i].dtype, args[i].int_value, args[i].float_value,
                                  packed.data() + layout.args_offset[i]);
    }
    double seconds = 0;
    for (int r = 0; r < n; ++r) {
      for (size_t k = 0; k < pipelines_.size(); ++k) {
        // One dispatch per command buffer: its GPU times are this kernel's alone.
        id<MTLCommandBuffer> commands = [queue_ commandBuffer];
        id<MTLComputeCommandEncoder> encoder = [commands computeCommandEncoder];
        [encoder setComputePipelineState:pipelines_[k]];
        for (size_t i = 0; i < args.size(); ++i) {
          if (!is_buffer[i]) continue;
          [encoder setBuffer:At(args[i].buffer) offset:0 atIndex:layout.buffer_index[i]];
        }
        if (layout.args_bytes > 0) {
          [encoder setBytes:packed.data() length:packed.size() atIndex:layout.args_index];
        }
        const codegen::gpu::ConcreteLaunch& launch = launches_[k];
        [encoder
             dispatchThreadgroups:MTLSizeMake(launch.grid[0], launch.grid[1], launch.grid[2])
            threadsPerThreadgroup:MTLSizeMake(launch.block[0], launch.block[1], launch.block[2])];
        [encoder endEncoding];
        [commands commit];
        [commands waitUntilCompleted];
        if (commands.status != MTLCommandBufferStatusCompleted) {
          throw Error(ErrorKind::kRuntime, "kernel " + launch.symbol + " failed on the GPU: " +
                                               Text(commands.error.localizedDescription));
        }
        seconds += commands.GPUEndTime - commands.GPUStartTime;
      }
    }
    return seconds;
  }

 private:
  id<MTLBuffer> At(int buffer) {
    KILN_CHECK(buffer >= 0 && buffer < static_cast<int>(buffers_.size()), ErrorKind::kRuntime,
               "Metal buffer " + std::to_string(buffer) + " does not exist");
    return buffers_[buffer];
  }

  id<MTLDevice> device_;
  id<MTLCommandQueue> queue_;
  std::vector<id<MTLComputePipelineState>> pipelines_;
  std::vector<codegen::gpu::ConcreteLaunch> launches_;
  std::vector<id<MTLBuffer>> buffers_;
};

}  // namespace

std::unique_ptr<gpu::GpuBackend> OpenMetalDevice() {
  id<MTLDevice> device = MTLCreateSystemDefaultDevice();
  KILN_CHECK(device != nil, ErrorKind::kUnsupported, "no Metal device on this machine");
  return std::make_unique<MetalBackend>(device);
}

}  // namespace kiln::runtime::metal
