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
#include "tests/codegen/cuda_batch_compile.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::codegen {
namespace {

TEST(CudaZooTest, EveryZooFunctionCompilesForSm90) {
  std::string why;
  if (!runtime::cuda::NvrtcAvailable(&why)) {
    GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")";
  }
  std::vector<testing::NamedSource> sources;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    ir::PrimFunc f = search::DefaultGpuSchedule(entry.build());
    CudaTarget target;
    try {
      EmittedSource source =
          target.Emit(Lower(f, target.DefaultLowerOptions()), "kiln_" + entry.name);
      sources.push_back({entry.name, source.code});
    } catch (const Error& e) {
      ADD_FAILURE() << entry.name << ": " << e.what();
    }
  }
  EXPECT_EQ(sources.size(), ir::zoo::Zoo().size());
  EXPECT_EQ(testing::CompileAllForSm90(sources), "");
}

}  // namespace
}  // namespace kiln::codegen
