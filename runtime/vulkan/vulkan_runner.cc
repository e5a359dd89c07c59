// RunVulkanRequest: compile, check limits, upload, run once and dump, time.
#include "runtime/vulkan/vulkan_runner.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "codegen/vulkan/vulkan_abi.h"
#include "runtime/file_util.h"
#include "runtime/kernel_args.h"
#include "runtime/timing.h"
#include "runtime/vulkan/spirv_compiler.h"
#include "runtime/vulkan/vulkan_device.h"
#include "runtime/vulkan/vulkan_kernel.h"
#include "runtime/vulkan/vulkan_program.h"
#include "support/error.h"

namespace kiln::runtime::vulkan {
namespace {

SandboxResult Failure(MeasureErrorKind kind, std::string message, SandboxResult result) {
  result.error_kind = kind;
  result.message = std::move(message);
  return result;
}

// The push-constant block of codegen/vulkan/vulkan_abi.h for the packed slot values.
std::vector<uint8_t> PushConstants(const codegen::KernelSignature& signature,
                                   const codegen::vulkan::VulkanArgLayout& layout,
                                   const std::vector<codegen::PackedValue>& packed) {
  std::vector<uint8_t> bytes(layout.push_bytes, 0);
  for (size_t i = 0; i < signature.slots.size(); ++i) {
    const codegen::ArgSlot& slot = signature.slots[i];
    int offset = layout.push_offset[i];
    if (offset < 0) continue;
    bool wide = codegen::vulkan::IsWidePushSlot(slot.dtype);
    if (slot.kind == codegen::SlotKind::kScalarFloat) {
      if (wide) {
        std::memcpy(&bytes[offset], &packed[i].f, 8);
      } else {
        float value = static_cast<float>(packed[i].f);
        std::memcpy(&bytes[offset], &value, 4);
      }
    } else if (wide) {
      std::memcpy(&bytes[offset], &packed[i].i, 8);
    } else {
      int32_t value = static_cast<int32_t>(packed[i].i);
      std::memcpy(&bytes[offset], &value, 4);
    }
  }
  return bytes;
}

}  // namespace

SandboxResult RunVulkanRequest(const SandboxRequest& request) {
  SandboxResult result;
  KILN_CHECK(!request.source_path.empty(), ErrorKind::kParse,
             "a Vulkan sandbox request needs source_path: the Vulkan program file");
  VulkanProgram program = ProgramFromJson(ReadWholeFile(request.source_path), request.source_path);

  std::vector<CompiledKernel> kernels;
  for (const VulkanKernelSpec& spec : program.kernels) {
    SpirvResult spirv = CompileGlslToSpirv(spec.glsl, spec.name + ".comp");
    result.build_seconds += spirv.compile_seconds;
    if (!spirv.ok) {
      return Failure(MeasureErrorKind::kBuildError,
                     "GLSL of kernel " + spec.name + " does not compile: " + spirv.error, result);
    }
    kernels.push_back({spec, std::move(spirv.words)});
  }
  if (request.phase == SandboxPhase::kBuild) return result;

  // No device is the machine's fault, not the candidate's: it throws.
  std::unique_ptr<VulkanContext> context = VulkanContext::Create(DefaultVulkanDevice().index);
  for (const CompiledKernel& k : kernels) {
    std::string violation = LimitViolation(context->info(), k.spec);
    if (!violation.empty()) return Failure(MeasureErrorKind::kBuildError, violation, result);
  }

  const codegen::KernelSignature& signature = request.signature;
  std::vector<ir::ArgValue> args = MaterializeArgs(request.args);
  std::vector<codegen::PackedValue> packed = PackArguments(signature, args);
  codegen::vulkan::VulkanArgLayout layout = codegen::vulkan::LayoutOf(signature);

  std::vector<std::unique_ptr<VulkanBuffer>> buffers;
  std::vector<ir::HostTensor*> tensors;  // per argument buffer
  std::vector<std::unique_ptr<VulkanBuffer>> workspace;
  std::unique_ptr<VulkanExecutable> executable;
  try {
    for (size_t i = 0; i < signature.slots.size(); ++i) {
      if (layout.binding[i] < 0) continue;
      auto& tensor = std::get<ir::HostTensor>(args[signature.slots[i].param_index]);
      buffers.push_back(std::make_unique<VulkanBuffer>(*context, tensor.nbytes()));
      tensors.push_back(&tensor);
    }
    std::vector<const VulkanBuffer*> bound;
    for (const auto& b : buffers) bound.push_back(b.get());
    // Scratch buffers, after the arguments; their contents are never read back.
    for (uint64_t bytes : program.workspace_bytes) {
      workspace.push_back(std::make_unique<VulkanBuffer>(*context, bytes));
      bound.push_back(workspace.back().get());
    }
    executable = std::make_unique<VulkanExecutable>(*context, kernels, bound,
                                                    PushConstants(signature, layout, packed));
  } catch (const Error& e) {
    // A buffer or an argument block past a device limit, or a pipeline the driver refuses.
    if (e.kind() != ErrorKind::kUnsupported && e.kind() != ErrorKind::kRuntime) throw;
    return Failure(MeasureErrorKind::kBuildError, e.what(), result);
  }

  try {
    for (size_t b = 0; b < buffers.size(); ++b) buffers[b]->Upload(tensors[b]->data());
    bool dumped = request.phase == SandboxPhase::kRunOnce || request.dump_outputs;
    if (dumped) {
      executable->Run(1);
      for (size_t b = 0; b < buffers.size(); ++b) buffers[b]->Download(tensors[b]->data());
      for (size_t i = 0; i < args.size(); ++i) {
        const auto* tensor = std::get_if<ir::HostTensor>(&args[i]);
        if (tensor == nullptr) continue;
        TensorFileRef out;
        out.param_index = static_cast<int>(i);
        out.dtype = tensor->dtype();
        out.shape = tensor->shape();
        out.path =
            (std::filesystem::path(request.output_dir) / ("param" + std::to_string(i) + ".bin"))
                .string();
        WriteTensorFile(*tensor, out.path);
        result.outputs.push_back(std::move(out));
      }
    }
    if (request.phase == SandboxPhase::kTime) {
      // The driver may compile the shader at its first dispatch (lavapipe does): at least
      // one run before timing, which the dumped run already was.
      TimingConfig timing = request.timing;
      timing.warmup = dumped ? std::max(0, timing.warmup - 1) : std::max(1, timing.warmup);
      // Caches of a GPU are not the host's: no host cache flush between repeats.
      TimingResult timed =
          TimeKernel([&](int n) { return executable->TimeRuns(n); }, timing, [] {});
      result.repeat_seconds = timed.seconds_per_run;
      result.median_seconds = timed.median_seconds;
      result.number = timed.number;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kRuntime) throw;
    return Failure(MeasureErrorKind::kRuntimeError, e.what(), result);
  }
  return result;
}

}  // namespace kiln::runtime::vulkan
