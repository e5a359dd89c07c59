// Stage-III sparse kernels on the GPU backends: the "sparse-gpu" design space's sketches (rows
// to blocks, features or nonzeros to threads, the data-dependent nonzero loop serial per
// thread), lowered and emitted for Vulkan (GLSL), OpenCL and CUDA; run on lavapipe, PoCL,
// the WebGPU runner and Metal's CPU shim through the GPU measurers with the given naive-CSR
// reference (a changed expected value is a wrong result, so the measurers compare with it);
// CUDA compiled with NVRTC, and run where there is a CUDA device; a short tuning on lavapipe.
// The matrices have empty rows (the first, the last, every sixth) and a dense row.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <memory>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/gpu/lower_gpu.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/vulkan/glsl_emitter.h"
#include "compiler/sparse/sparse_reference_store.h"
#include "compiler/sparse/sparse_tuning.h"
#include "compiler/sparse/sparse_workloads.h"
#include "database/sqlite_database.h"
#include "ir/sparse/sparse_datasets.h"
#include "runtime/cuda/nvrtc.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/kernel_source.h"
#include "runtime/measurer.h"
#include "search/schedule/schedule.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "tests/compiler/sparse/test_devices.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::compiler::sparse {
namespace {

using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

// rows x cols, row 1 dense, rows 0, rows - 1 and every sixth row empty, ~15% of the others.
CsrMatrix Skewed(int64_t rows, int64_t cols) {
  std::vector<CooEntry> e;
  for (int64_t r = 1; r + 1 < rows; ++r) {
    if (r % 6 == 4) continue;
    for (int64_t c = 0; c < cols; ++c) {
      if (r == 1 || (r * 31 + c * 17) % 13 < 2) e.push_back({r, c, 1.0});
    }
  }
  return ir::sparse::CsrFromEntries(rows, cols, std::move(e));
}

// The matrix the kernel of `op` takes: SpMM's needs no empty row (sparse_workloads.h), so its
// empty rows hold one explicit zero each; SDDMM takes them as they are.
CsrMatrix For(SparseOp op, const CsrMatrix& a) {
  return op == SparseOp::kSpmm ? PadEmptyRows(a) : a;
}

struct Sampled {
  std::string sketch;  // which sketch, for messages
  ir::PrimFunc scheduled;
  std::string trace = {};  // as Python
};

// Every sketch of the "sparse-gpu" space of `w`, each with its decisions drawn `draws` times.
std::vector<Sampled> SampleSpace(const ir::PrimFunc& w, int draws, size_t* sketch_count) {
  search::TuneContext context;
  context.workload = w;
  context.target = "vulkan";
  search::DesignSpace space = search::MakeDesignSpace("sparse-gpu");
  space.Initialize(context);
  std::vector<search::Schedule> sketches = space.Sketches(context);
  *sketch_count = sketches.size();
  std::vector<Sampled> out;
  for (size_t s = 0; s < sketches.size(); ++s) {
    for (int seed = 1; seed <= draws; ++seed) {
      search::RandomEngine rng(static_cast<uint64_t>(seed * 101 + s));
      search::SampleStats stats;
      std::optional<search::Candidate> c =
          search::SampleCandidate(w, sketches[s].trace(), space.postprocs, rng, &stats);
      if (!c) {
        for (const auto& [why, count] : stats.failures) {
          ADD_FAILURE() << "sketch " << s << " draw " << seed << ": " << count << " x " << why
                        << "\n"
                        << sketches[s].trace().AsPython();
        }
        continue;
      }
      out.push_back({"sketch " + std::to_string(s) + " draw " + std::to_string(seed), c->scheduled,
                     c->trace.AsPython()});
    }
  }
  return out;
}

std::string OpName(const ::testing::TestParamInfo<SparseOp>& info) {
  return SparseOpName(info.param);
}

// ---- The design space and the lowering, no device needed ----

class SparseGpuSpace : public ::testing::TestWithParam<SparseOp> {};

// SpMM: {threads interleaved over the features, on contiguous runs} x {one row, a row group
// per block}, and one thread per row; SDDMM: {one row, a row group per block} with a thread
// per nonzero, and one thread per row. Every sample fits the "gpu" limits, runs on several
// threads, and lowers to its kernels (SpMM one; SDDMM two, the
// dot products and the scaling), the data-dependent loop left serial.
TEST_P(SparseGpuSpace, SketchesBindRowsToBlocksAndLowerToKernels) {
  CsrMatrix a = For(GetParam(), Skewed(70, 50));
  SparseProblem p = ProblemOf(GetParam(), a, 40);
  ir::PrimFunc w = CsrWorkload(p);
  size_t sketches = 0;
  std::vector<Sampled> samples = SampleSpace(w, 3, &sketches);
  EXPECT_EQ(sketches, GetParam() == SparseOp::kSpmm ? 5u : 3u);
  EXPECT_EQ(samples.size(), sketches * 3) << "every sketch samples a valid candidate";
  for (const Sampled& s : samples) {
    ir::PrimFunc lowered = codegen::Lower(s.scheduled, codegen::gpu::GpuLowerOptions());
    codegen::gpu::GpuProgram program =
        codegen::gpu::LowerToKernels(lowered, "k", search::PresetGpuLimits("gpu"));
    ASSERT_EQ(program.kernels.size(), GetParam() == SparseOp::kSpmm ? 1u : 2u) << s.sketch;
    if (GetParam() == SparseOp::kSpmm) {
      // Each thread accumulates in registers, zeroed before the nonzero loop.
      EXPECT_NE(s.trace.find("cache_write"), std::string::npos) << s.trace;
      EXPECT_NE(s.trace.find("decompose_reduction"), std::string::npos) << s.trace;
    }
    EXPECT_NE(s.trace.find("\"threadIdx.x\""), std::string::npos) << s.trace;
    for (const codegen::gpu::GpuKernel& k : program.kernels) {
      codegen::gpu::ConcreteLaunch launch = codegen::gpu::Concretize(k.launch, {});
      EXPECT_GT(launch.grid[0] * launch.block[0] * launch.block[1], 1)
          << s.sketch << ": " << codegen::gpu::DescribeLaunch(launch);
    }
  }
}

// The GPU lowering keeps a loop whose extent loads from a buffer (a_indptr) and every emitter
// prints it; NVRTC compiles the CUDA source (the compile half runs without a GPU).
TEST_P(SparseGpuSpace, DataDependentLoopIsEmittedForEveryTarget) {
  CsrMatrix a = For(GetParam(), Skewed(40, 30));
  SparseProblem p = ProblemOf(GetParam(), a, 16);
  ir::PrimFunc w = CsrWorkload(p);
  size_t sketches = 0;
  std::vector<Sampled> samples = SampleSpace(w, 1, &sketches);
  ASSERT_FALSE(samples.empty());
  samples.push_back({"default GPU schedule", search::DefaultGpuSchedule(w)});
  std::vector<std::string> cuda_sources;
  for (const Sampled& s : samples) {
    codegen::VulkanTarget vulkan;
    codegen::OpenCLTarget opencl;
    codegen::CudaTarget cuda;
    for (codegen::CodegenTarget* target :
         std::vector<codegen::CodegenTarget*>{&vulkan, &opencl, &cuda}) {
      runtime::GeneratedKernel k = runtime::GenerateKernel(s.scheduled, *target, "csr");
      EXPECT_NE(k.source.code.find("a_indptr"), std::string::npos)
          << target->Name() << ", " << s.sketch << ":\n"
          << k.source.code;
      if (target == &cuda) cuda_sources.push_back(k.source.code);
    }
  }
  std::string why;
  if (!runtime::cuda::NvrtcAvailable(&why)) {
    GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << "); the emission half ran";
  }
  for (const std::string& source : cuda_sources) {
    runtime::cuda::NvrtcOutput out = runtime::cuda::CompileWithNvrtc(source, "csr.cu");
    EXPECT_TRUE(out.ok) << out.log << "\n" << source;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, SparseGpuSpace, ::testing::Values(SparseOp::kSpmm, SparseOp::kSddmm),
                         OpName);

// ---- On the devices: lavapipe (vulkan), PoCL (opencl), a CUDA GPU where there is one ----

using testing::Device;
using testing::DeviceOf;

struct DeviceCase {
  std::string kind;
  SparseOp op;
};

class SparseGpuDevice : public ::testing::TestWithParam<DeviceCase> {
 protected:
  void SetUp() override {
    device_ = &DeviceOf(GetParam().kind);
    if (!device_->measurer) {
      GTEST_SKIP() << "skipped: no " << GetParam().kind << " device: " << device_->missing;
    }
  }
  runtime::Measurer& measurer() { return *device_->measurer; }
  Device* device_ = nullptr;
};

std::string Describe(const runtime::MeasureResult& r, const runtime::MeasureDetails& d) {
  return std::string(runtime::MeasureErrorKindName(r.error_kind)) + ": " + r.message + "\n" +
         d.source.code;
}

// Every sketch, with its decisions drawn three times, and the default GPU schedule run on
// the device and match the naive CSR reference element by element.
// Not on Metal's CPU shim: it runs each thread as a fiber, and the sketches with thousands of
// threads per row group ran past the 60 s run limit there (the default schedule runs: below).
class SparseGpuSampled : public SparseGpuDevice {};

TEST_P(SparseGpuSampled, EverySampledScheduleMatchesTheNaiveReference) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = For(GetParam().op, Skewed(150, 130));
  SparseProblem p = ProblemOf(GetParam().op, a, 40);
  ir::PrimFunc w = CsrWorkload(p);
  auto reference = SparseReference(w, p, a, 5, dir.path().string());
  size_t sketches = 0;
  std::vector<Sampled> samples = SampleSpace(w, 3, &sketches);
  ASSERT_EQ(samples.size(), sketches * 3);
  samples.push_back({"default GPU schedule", search::DefaultGpuSchedule(w)});
  for (const Sampled& s : samples) {
    runtime::MeasureDetails details;
    runtime::MeasureResult r = measurer().Measure({w, s.scheduled, {}, reference}, &details);
    EXPECT_TRUE(r.ok() && r.correctness_checked) << s.sketch << ": " << Describe(r, details);
    EXPECT_NE(r.reference.find("naive CSR"), std::string::npos) << r.reference;
    EXPECT_GT(r.median_seconds, 0) << s.sketch;
  }
}

// The measurer runs on the reference's inputs and compares with its expected output: the
// default schedule matches the naive reference (the measurer's own seeded inputs would hold
// random column indices), and matches no more once one expected element is changed.
TEST_P(SparseGpuDevice, TheGivenReferenceIsTheOneCompared) {
  runtime::testing::ScratchDir dir;
  CsrMatrix a = For(GetParam().op, Skewed(64, 48));
  SparseProblem p = ProblemOf(GetParam().op, a, 16);
  ir::PrimFunc w = CsrWorkload(p);
  ir::PrimFunc scheduled = search::DefaultGpuSchedule(w);
  auto given = SparseReference(w, p, a, 2, dir.path().string());
  runtime::MeasureResult ok = measurer().Measure({w, scheduled, {}, given});
  EXPECT_TRUE(ok.ok() && ok.correctness_checked) << ok.message;
  EXPECT_NE(ok.reference.find("naive CSR"), std::string::npos) << ok.reference;

  auto tampered = std::make_shared<runtime::Reference>(*given);
  tampered->key = given->key ^ 0x5a5a;  // a reference's key is unique to its contents
  runtime::ReferenceParam& out = tampered->params[CsrOutputParam(GetParam().op)];
  out.expected = out.expected.Clone();
  static_cast<float*>(out.expected.data())[out.expected.numel() / 2] += 1.0f;
  runtime::MeasureResult r = measurer().Measure({w, scheduled, {}, tampered});
  EXPECT_EQ(r.error_kind, runtime::MeasureErrorKind::kWrongResult) << r.message;
}

std::vector<DeviceCase> DeviceCases(std::vector<std::string> kinds) {
  std::vector<DeviceCase> cases;
  for (const std::string& kind : kinds) {
    for (SparseOp op : {SparseOp::kSpmm, SparseOp::kSddmm}) cases.push_back({kind, op});
  }
  return cases;
}

std::string DeviceCaseName(const ::testing::TestParamInfo<DeviceCase>& info) {
  return info.param.kind + "_" + SparseOpName(info.param.op);
}

INSTANTIATE_TEST_SUITE_P(Devices, SparseGpuSampled,
                         ::testing::ValuesIn(DeviceCases({"vulkan", "opencl", "cuda", "webgpu"})),
                         DeviceCaseName);
INSTANTIATE_TEST_SUITE_P(Devices, SparseGpuDevice,
                         ::testing::ValuesIn(DeviceCases({"vulkan", "opencl", "cuda", "webgpu",
                                                          "metal"})),
                         DeviceCaseName);

// ---- TuneSparse on a GPU ----

class SparseGpuTuning : public ::testing::TestWithParam<SparseOp> {};

// A short tuning on lavapipe finds a kernel that the final measurement checks again.
TEST_P(SparseGpuTuning, ShortTuningOnLavapipeFindsACorrectKernel) {
  if (!DeviceOf("vulkan").measurer) {
    GTEST_SKIP() << "skipped: no vulkan device: " << DeviceOf("vulkan").missing;
  }
  runtime::testing::ScratchDir dir;
  CsrMatrix a = Skewed(200, 160);
  SparseTuneOptions options;
  options.target = "vulkan";
  options.trials = 8;
  options.min_repeat_ms = 2;
  options.cache_dir = dir.path().string();
  options.database_path = dir.Sub("tuning.db");
  SparseTuneResult r = TuneSparse(a, GetParam(), 32, options);
  EXPECT_TRUE(r.correct) << r.failure;
  // Records are keyed by the device ("vulkan-llvmpipe"), not only its kind.
  database::SqliteDatabase db(options.database_path);
  std::vector<database::TuningRecord> records = db.History({});
  ASSERT_FALSE(records.empty());
  for (const database::TuningRecord& record : records) {
    EXPECT_EQ(record.device,
              dynamic_cast<runtime::gpu::GpuMeasurer&>(*DeviceOf("vulkan").measurer).device().key);
    EXPECT_EQ(record.device.rfind("vulkan-", 0), 0u) << record.device;
  }
  EXPECT_GT(r.untuned_seconds, 0);
  EXPECT_GT(r.best_seconds, 0);
  EXPECT_GT(r.trials, 0);
  // The best is a searched schedule (its trace binds threads), or, when none of the few trials
  // beat it, the default GPU schedule the untuned figure timed (no trace, the same latency).
  if (r.best_trace == "null") {
    EXPECT_DOUBLE_EQ(r.best_seconds, r.untuned_seconds);
  } else {
    EXPECT_NE(r.best_trace.find("Bind"), std::string::npos) << r.best_trace;
  }
  EXPECT_NE(r.best_source.find("gl_"), std::string::npos) << "GLSL:\n" << r.best_source;
}

INSTANTIATE_TEST_SUITE_P(Ops, SparseGpuTuning, ::testing::Values(SparseOp::kSpmm, SparseOp::kSddmm),
                         OpName);

}  // namespace
}  // namespace kiln::compiler::sparse
