// Every task of the bundled models through the CUDA target and NVRTC for sm_90, twice: under
// the default GPU schedule (what an untuned model runs) and as a candidate sampled from each
// sketch of the "cuda" design space (what tuning measures). Compile-only: what the kernels
// compute is checked on a GPU by the CUDA measurer's tests and the GPU property test; here the
// emitter must print, and NVRTC accept, every kernel the models give.
#include <gtest/gtest.h>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/lower.h"
#include "ir/frontend/onnx/import.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "runtime/cuda/nvrtc.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "tests/codegen/cuda_batch_compile.h"

namespace kiln {
namespace {

// Emits `f` into `sources` under a symbol of its own; false (a test failure) when it cannot.
bool Emit(const ir::PrimFunc& f, const std::string& name,
          std::vector<codegen::testing::NamedSource>& sources) {
  codegen::CudaTarget target;
  try {
    std::string symbol = "kiln_k" + std::to_string(sources.size());
    codegen::EmittedSource source =
        target.Emit(codegen::Lower(f, target.DefaultLowerOptions()), symbol);
    sources.push_back({name, source.code});
    return true;
  } catch (const Error& e) {
    ADD_FAILURE() << name << ": " << e.what();
    return false;
  }
}

TEST(CudaModelTasksTest, EveryTaskCompilesForSm90UntunedAndSampled) {
  std::string why;
  if (!runtime::cuda::NvrtcAvailable(&why)) {
    GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")";
  }
  search::DesignSpace space = search::MakeDesignSpace("cuda");
  search::RandomEngine rng(14);
  int tasks = 0, sampled = 0;
  std::vector<codegen::testing::NamedSource> sources;
  for (const char* model : {"mlp", "cnn", "transformer_block"}) {
    ir::frontend::onnx::ImportOptions options;
    options.dim_values = {{"batch", 2}, {"seq_len", 8}};
    ir::relax::IRModule module = ir::frontend::onnx::ImportOnnx(
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx", options);
    ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(module);
    for (const ir::relax::transform::ExtractedTask& task :
         ir::relax::transform::ExtractTasks(prepared)) {
      std::string name = std::string(model) + "/" + task.name;
      SCOPED_TRACE(name);
      ++tasks;
      Emit(search::DefaultGpuSchedule(task.func), name + " (default schedule)", sources);

      search::TuneContext context;
      context.workload = task.func;
      context.task_name = task.name;
      context.target = "cuda";
      space.Initialize(context);
      for (const search::Schedule& sketch : space.Sketches(context)) {
        std::optional<search::Candidate> c;
        for (int attempt = 0; attempt < 20 && !c; ++attempt) {
          c = search::SampleCandidate(task.func, sketch.trace(), space.postprocs, rng, nullptr);
        }
        if (!c) continue;
        ++sampled;
        Emit(c->scheduled, name + " (candidate " + c->postprocessed.AsPython() + ")", sources);
      }
    }
  }
  EXPECT_EQ(codegen::testing::CompileAllForSm90(sources), "");
  EXPECT_GE(tasks, 6);
  EXPECT_GE(sampled, tasks);
  std::cout << "[ models ] " << tasks << " tasks and " << sampled
            << " sampled candidates compiled for sm_90\n";
}

}  // namespace
}  // namespace kiln
