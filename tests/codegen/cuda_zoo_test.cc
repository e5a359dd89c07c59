// Every function of the zoo, under the default GPU schedule (each top-level block bound to
// blockIdx/threadIdx), through the CUDA target and NVRTC for sm_90: the emitter's spelling of
// every expression the zoo holds (integer and float types, casts, intrinsics, selects, floor
// division, reductions) compiles. What the kernels compute is checked on a GPU by
// runtime_cuda_measure_test and the GPU property test.
#include <gtest/gtest.h>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/lower.h"
#include "runtime/cuda/nvrtc.h"
#include "search/space/thread_binding.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::codegen {
namespace {

TEST(CudaZooTest, EveryZooFunctionCompilesForSm90) {
  std::string why;
  if (!runtime::cuda::NvrtcAvailable(&why)) {
    GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")";
  }
  int compiled = 0;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    SCOPED_TRACE(entry.name);
    ir::PrimFunc f = search::DefaultGpuSchedule(entry.build());
    CudaTarget target;
    EmittedSource source;
    try {
      source = target.Emit(Lower(f, target.DefaultLowerOptions()), "kiln_" + entry.name);
    } catch (const Error& e) {
      ADD_FAILURE() << entry.name << ": " << e.what();
      continue;
    }
    runtime::cuda::NvrtcOutput out =
        runtime::cuda::CompileWithNvrtc(source.code, entry.name + ".cu", {.arch = "sm_90"});
    EXPECT_TRUE(out.ok) << entry.name << ":\n" << out.log << "\n" << source.code;
    compiled += out.ok ? 1 : 0;
  }
  std::cout << "[ zoo ] " << compiled << " of " << ir::zoo::Zoo().size()
            << " functions compiled for sm_90\n";
}

}  // namespace
}  // namespace kiln::codegen
