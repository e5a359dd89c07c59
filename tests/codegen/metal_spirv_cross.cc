// CompareWithSpirvCross: MSL emitter vs. GLSL -> SPIR-V -> spirv-cross, kernel by kernel.
#include "tests/codegen/metal_spirv_cross.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "codegen/lower.h"
#include "codegen/metal/metal_abi.h"
#include "codegen/metal/msl_emitter.h"
#include "codegen/vulkan/glsl_emitter.h"
#include "codegen/vulkan/vulkan_abi.h"
#include "runtime/vulkan/spirv_compiler.h"

namespace kiln::codegen::testing {

std::string SpirvCrossPath() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
    std::string path = std::string(dir) + "/spirv-cross";
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

std::vector<std::string> KernelsOf(const std::string& msl) {
  std::vector<std::string> kernels;
  for (size_t at = msl.find("kernel void "); at != std::string::npos;) {
    size_t next = msl.find("kernel void ", at + 1);
    kernels.push_back(msl.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return kernels;
}

KernelShape ShapeOf(const std::string& kernel) {
  KernelShape shape;
  static const std::regex array(R"(threadgroup (\w+) \w+\[(\d+)\];)");
  for (auto it = std::sregex_iterator(kernel.begin(), kernel.end(), array);
       it != std::sregex_iterator(); ++it) {
    std::string type = (*it)[1];
    // The MSL target stores bool as uchar; GLSL's shared bool becomes MSL's bool.
    if (type == "uchar" || type == "bool") type = "bool or uchar";
    shape.threadgroup_arrays.insert(type + "[" + std::string((*it)[2]) + "]");
  }
  shape.barriers = kernel.find("threadgroup_barrier(") != std::string::npos;
  return shape;
}

namespace {

std::string Describe(const KernelShape& shape) {
  std::string s = "{";
  for (const std::string& a : shape.threadgroup_arrays) s += a + " ";
  return s + (shape.barriers ? "barriers}" : "no barriers}");
}

// spirv-cross --msl of each of `glsl`'s kernels, in launch order; "" and `error` on failure.
std::vector<std::string> Translate(const EmittedSource& glsl, const std::string& tool,
                                   std::string& error) {
  std::vector<std::string> kernels;
  std::filesystem::path dir = std::filesystem::temp_directory_path();
  for (const gpu::KernelLaunch& k : glsl.launch->kernels) {
    runtime::vulkan::SpirvResult spirv = runtime::vulkan::CompileGlslToSpirv(
        glsl.code, k.symbol + ".comp", {vulkan::EntryMacro(k.symbol)}, /*optimize=*/false);
    if (!spirv.ok) {
      error = "GLSL of " + k.symbol + " does not compile: " + spirv.error;
      return {};
    }
    std::string stem = (dir / ("kiln-metal-" + std::to_string(getpid()) + "-" + k.symbol)).string();
    {
      std::ofstream out(stem + ".spv", std::ios::binary);
      out.write(reinterpret_cast<const char*>(spirv.words.data()),
                static_cast<std::streamsize>(spirv.words.size() * 4));
    }
    // MSL 2.2: the first with 64-bit integers, which the bundled models' indices use.
    std::string command = tool + " --msl --msl-version 20200 " + stem + ".spv --output " + stem +
                          ".metal > " + stem + ".log 2>&1";
    int status = std::system(command.c_str());
    auto read = [](const std::string& path) {
      std::ifstream in(path);
      return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    std::string msl = read(stem + ".metal");
    std::string log = read(stem + ".log");
    for (const char* ext : {".spv", ".metal", ".log"}) std::filesystem::remove(stem + ext);
    if (status != 0 || msl.empty()) {
      error = "spirv-cross failed on " + k.symbol + " (" + command + "): " + log;
      return {};
    }
    std::vector<std::string> one = KernelsOf(msl);
    if (one.size() != 1) {
      error = "spirv-cross made " + std::to_string(one.size()) + " kernels of " + k.symbol;
      return {};
    }
    kernels.push_back(one[0]);
  }
  return kernels;
}

}  // namespace

std::string CompareWithSpirvCross(const ir::PrimFunc& scheduled, const std::string& tool,
                                  SpirvCrossTally& tally) {
  MslEmitOptions msl_options;
  MetalTarget metal(msl_options);
  std::string symbol = "kiln_" + scheduled->name;
  std::string ours = metal.Emit(Lower(scheduled, metal.DefaultLowerOptions()), symbol).code;
  GlslEmitOptions glsl_options;
  glsl_options.limits = metal::MetalLimits();
  VulkanTarget vulkan(glsl_options);
  EmittedSource glsl = vulkan.Emit(Lower(scheduled, vulkan.DefaultLowerOptions()), symbol);
  std::string error;
  std::vector<std::string> theirs = Translate(glsl, tool, error);
  if (!error.empty()) return error;
  std::vector<std::string> our_kernels = KernelsOf(ours);
  if (our_kernels.size() != theirs.size()) {
    return std::to_string(our_kernels.size()) + " MSL kernels, " + std::to_string(theirs.size()) +
           " from spirv-cross:\n" + ours;
  }
  std::string differences;
  for (size_t k = 0; k < theirs.size(); ++k) {
    KernelShape a = ShapeOf(our_kernels[k]), b = ShapeOf(theirs[k]);
    if (a.threadgroup_arrays != b.threadgroup_arrays || a.barriers != b.barriers) {
      differences += "kernel " + std::to_string(k) + ": ours " + Describe(a) + ", spirv-cross's " +
                     Describe(b) + "\n" + our_kernels[k] + "\n----\n" + theirs[k] + "\n";
    }
    ++tally.kernels;
    tally.threadgroup_arrays += static_cast<int>(a.threadgroup_arrays.size());
    tally.kernels_with_barriers += a.barriers ? 1 : 0;
  }
  return differences;
}

}  // namespace kiln::codegen::testing
