// Design spaces and their presets.
#include "search/space/design_space.h"

#include <algorithm>

#include "codegen/metal/metal_abi.h"
#include "codegen/webgpu/webgpu_abi.h"
#include "search/space/mutators/mutators.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/rules/rules.h"
#include "search/space/space_generator.h"
#include "support/error.h"

namespace kiln::search {

void DesignSpace::Initialize(const TuneContext& context) {
  for (auto& rule : rules) rule->Initialize(context);
  for (auto& postproc : postprocs) postproc->Initialize(context);
  for (auto& m : mutators) m.mutator->Initialize(context);
}

std::vector<Schedule> DesignSpace::Sketches(const TuneContext& context) const {
  return GenerateSketches(context.workload, rules, context.seed);
}

DesignSpace DesignSpace::Clone() const {
  DesignSpace copy;
  copy.preset = preset;
  for (const auto& rule : rules) copy.rules.push_back(rule->Clone());
  for (const auto& postproc : postprocs) copy.postprocs.push_back(postproc->Clone());
  for (const auto& m : mutators) copy.mutators.push_back({m.mutator->Clone(), m.probability});
  return copy;
}

namespace {

// MetaSchedule's llvm defaults. Two departures: the reduction blocks are decomposed before
// the parallel/vectorize rewrite, so that init blocks get their own vector loops; the write
// cache is "local" (a register tile the C emitter promotes) and the reused operand may be
// packed (the hand-written GEMM's panel of B).
DesignSpace CpuSpace() {
  DesignSpace space;
  space.preset = "cpu";
  space.rules.push_back(MakeAutoInline());
  space.rules.push_back(MakeAddRFactor());
  space.rules.push_back(MakeMultiLevelTiling());
  space.rules.push_back(MakeParallelVectorizeUnroll());
  space.rules.push_back(MakeRandomComputeLocation());
  space.postprocs.push_back(MakeDisallowDynamicLoop());
  space.postprocs.push_back(MakeRewriteReductionBlock());
  space.postprocs.push_back(MakeRewriteParallelVectorizeUnroll());
  space.postprocs.push_back(MakeVerify());
  space.mutators.push_back({MakeMutateTileSize(), 0.90});
  space.mutators.push_back({MakeMutateComputeLocation(), 0.05});
  space.mutators.push_back({MakeMutateUnroll(), 0.03});
  space.mutators.push_back({MakeMutateParallel(), 0.02});
  return space;
}

// Stage-III sparse kernels on the CPU (compiler/sparse/): the dense rules refuse their
// data-dependent loops, so one rule schedules every block (rules.h: sparse_tiling) and the
// tile sizes are what the search mutates.
DesignSpace SparseCpuSpace() {
  DesignSpace space;
  space.preset = "sparse-cpu";
  space.rules.push_back(MakeSparseTiling());
  space.postprocs.push_back(MakeVerify());
  space.mutators.push_back({MakeMutateTileSize(), 1.0});
  return space;
}

// MetaSchedule's cuda defaults, for every GPU API (TVM's Vulkan, Metal and OpenCL targets
// reuse them), sized by `limits`: tiling "SSSRRSRS" with shared-memory reads and a local
// write cache, cross-thread reduction, auto-bind, unroll up to 1024. Departures: the vthread
// level is fused into the threads (Kiln's GPU lowering runs virtual threads as serial
// loops), cross-thread reductions go through rfactor and shared memory (no allreduce in the
// lowering), cooperative fetches vectorize by at most 4 (GLSL's widest vector).
DesignSpace GpuSpace(const std::string& preset, const codegen::gpu::GpuLimits& limits) {
  DesignSpace space;
  space.preset = preset;
  AutoBindConfig bind;
  CrossThreadReductionConfig reduction;
  auto within = [&](std::vector<int64_t>& extents) {
    std::erase_if(extents, [&](int64_t t) { return t > limits.max_threads_per_block; });
  };
  within(bind.thread_extents);
  within(reduction.thread_extents);
  ParallelVectorizeUnrollConfig unroll;
  unroll.max_jobs_per_core = 0;
  unroll.max_vectorize_extent = 0;
  unroll.unroll_max_steps = {0, 16, 64, 512, 1024};
  space.rules.push_back(MakeAutoInline());
  space.rules.push_back(MakeMultiLevelTilingGpu());
  space.rules.push_back(MakeCrossThreadReduction(reduction));
  space.rules.push_back(MakeParallelVectorizeUnroll(unroll));
  space.rules.push_back(MakeAutoBind(bind));
  space.postprocs.push_back(MakeDisallowDynamicLoop());
  space.postprocs.push_back(MakeRewriteCooperativeFetch());
  space.postprocs.push_back(
      MakeRewriteUnboundBlock(std::min<int64_t>(256, limits.max_threads_per_block)));
  space.postprocs.push_back(MakeRewriteParallelVectorizeUnroll());
  space.postprocs.push_back(MakeRewriteReductionBlock());
  space.postprocs.push_back(MakeVerifyGpuCode(limits));
  space.mutators.push_back({MakeMutateTileSize(), 0.90});
  space.mutators.push_back({MakeMutateUnroll(), 0.08});
  space.mutators.push_back({MakeMutateThreadBinding(), 0.02});
  return space;
}

// Stage-III sparse kernels on a GPU (compiler/sparse/), sized by `limits` as the "gpu" preset:
// one rule binds every block (rules.h: sparse_gpu_binding); blocks it leaves unbound get the
// usual binding; verify_gpu_code checks the device's limits. No disallow_dynamic_loop: the
// nonzero loop is data-dependent by nature.
DesignSpace SparseGpuSpace(const codegen::gpu::GpuLimits& limits) {
  DesignSpace space;
  space.preset = "sparse-gpu";
  SparseGpuBindingConfig bind;
  bind.max_threads_per_block = limits.max_threads_per_block;
  space.rules.push_back(MakeSparseGpuBinding(bind));
  space.postprocs.push_back(
      MakeRewriteUnboundBlock(std::min<int64_t>(256, limits.max_threads_per_block)));
  space.postprocs.push_back(MakeVerifyGpuCode(limits));
  space.mutators.push_back({MakeMutateTileSize(), 0.7});
  space.mutators.push_back({MakeMutateThreadBinding(), 0.3});
  return space;
}

}  // namespace

codegen::gpu::GpuLimits PresetGpuLimits(std::string_view name) {
  codegen::gpu::GpuLimits limits;  // CUDA's: 1024 threads, 48 KiB shared memory per block
  if (name == "gpu" || name == "vulkan" || name == "opencl") {
    // TVM's Vulkan and OpenCL target defaults; what lavapipe and PoCL also allow.
    limits.max_threads_per_block = 256;
    limits.max_block_extent = {256, 256, 64};
    limits.max_grid_extent = {65535, 65535, 65535};
    limits.max_shared_bytes = 32 * 1024;
  }
  // Every Metal GPU's: 1024 threads and 32 KiB of threadgroup memory, simdgroups of 32, no fp64.
  if (name == "metal") limits = codegen::metal::MetalLimits();
  // WebGPU's defaults, what every browser grants: 256 invocations, 16 KiB of workgroup storage,
  // no f16, f64 or i64 (a worker that registers its device's own limits overrides them).
  if (name == "webgpu") limits = codegen::webgpu::DefaultWebGpuLimits().gpu;
  return limits;
}

DesignSpace MakeDesignSpace(std::string_view name) {
  if (name == "cpu" || name == "llvm" || name == "c") return CpuSpace();
  if (name == "sparse-cpu") return SparseCpuSpace();
  if (name == "sparse-gpu") return SparseGpuSpace(PresetGpuLimits("gpu"));
  if (name == "cuda") return GpuSpace("cuda", PresetGpuLimits(name));
  if (name == "metal") return GpuSpace("metal", PresetGpuLimits(name));
  if (name == "webgpu") return GpuSpace("webgpu", PresetGpuLimits(name));
  if (name == "gpu" || name == "vulkan" || name == "opencl") {
    return GpuSpace("gpu", PresetGpuLimits(name));
  }
  std::string known;
  for (const std::string& preset : DesignSpacePresets())
    known += (known.empty() ? "" : ", ") + preset;
  throw Error(ErrorKind::kUnsupported,
              "design space: no preset named \"" + std::string(name) + "\" (known: " + known + ")");
}

bool IsGpuPreset(std::string_view name) {
  return name == "cuda" || name == "gpu" || name == "vulkan" || name == "opencl" ||
         name == "metal" || name == "webgpu" || name == "sparse-gpu";
}

std::vector<std::string> DesignSpacePresets() {
  return {"cpu", "llvm",   "c",      "sparse-cpu", "sparse-gpu", "cuda",
          "gpu", "vulkan", "opencl", "metal",      "webgpu"};
}

}  // namespace kiln::search
