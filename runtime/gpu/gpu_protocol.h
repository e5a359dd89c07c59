// The request a GPU measurer hands its device's runner process (kiln-opencl-runner, ...) and
// the helpers both sides share. One format for every GPU API: the source file, the kernels
// with concrete launch extents, the device buffers (the function's tensors, filled from input
// files, and the workspace), the kernel arguments, the timing configuration and where to dump
// outputs. The runner answers with a SandboxResult (runtime/sandbox_protocol.h), so a GPU
// measurement reads back like a CPU one. JSON with `"version": kGpuProtocolVersion`;
// malformed files are kiln::Error(kParse) naming the file and field.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/launch.h"
#include "ir/dtype.h"
#include "runtime/timing.h"

namespace kiln::runtime::gpu {

// 2: cpu_limit_s (the runner is locked down for the timing, runtime/sandbox_lockdown.h).
inline constexpr int kGpuProtocolVersion = 2;

// The runner's exit status when no device of its kind can be opened (no driver, no device):
// the machine cannot serve this device kind at all.
inline constexpr int kNoDeviceExitStatus = 3;

struct GpuBufferSpec {
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<int64_t> shape;  // elements: the product
  std::string input_path;      // raw element bytes to upload; empty: uninitialized (workspace)
  int param_index = -1;        // the function parameter it holds; -1 for workspace
};

// One kernel argument: a buffer of the request, or a scalar in its dtype.
struct GpuArgSpec {
  enum class Kind { kBuffer, kInt, kFloat };
  Kind kind = Kind::kBuffer;
  int buffer = 0;  // index into GpuRunRequest::buffers
  ir::DataType dtype = ir::DataType::Int(64);
  int64_t int_value = 0;
  double float_value = 0;
};

struct GpuRunRequest {
  std::string source_path;
  std::vector<codegen::gpu::ConcreteLaunch> kernels;  // launched in order
  std::vector<GpuBufferSpec> buffers;
  std::vector<GpuArgSpec> args;  // the same for every kernel
  TimingConfig timing;
  bool time = true;           // false: run once and dump only
  bool dump_outputs = false;  // write every parameter buffer after one run
  std::string output_dir;
  double cpu_limit_s = 0;  // SandboxRequest::cpu_limit_s
};

std::string GpuRequestToJson(const GpuRunRequest& request);
GpuRunRequest GpuRequestFromJson(const std::string& text, const std::string& where);

// Elements of a buffer of `shape` (kiln::Error(kParse) on a negative or overflowing shape).
int64_t ElementCount(const std::vector<int64_t>& shape);

}  // namespace kiln::runtime::gpu
