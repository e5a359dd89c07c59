// Vectorized transcendental epilogues and innermost reductions through the whole C path:
// GELU (erf and tanh forms) and softmax with their exp / erf loops vectorized by hand as the
// cpu design space's vectorize decision does, and candidates the cpu space samples for them.
// Every kernel is built with the measurer's flags, run on random inputs and compared with the
// reference interpreter; the hand-scheduled ones must use the vector math helpers and print
// their row reductions as SIMD reductions.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "runtime/measure_result.h"
#include "search/schedule/schedule.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/testing/kernel_check.h"

namespace kiln::codegen {
namespace {

using namespace ir;

class SpaceVectorizeCodegenTest : public ::testing::Test {
 protected:
  // Builds `scheduled` and runs it and the interpreter on `workload` with the same random
  // inputs (wide enough to reach erf's and tanh's saturation); the C source, with a test
  // failure for any disagreement.
  std::string BuildAndCompare(const PrimFunc& workload, const PrimFunc& scheduled) {
    std::string symbol = "kiln_space_vectorize_" + std::to_string(count_++);
    EmittedSource source = EmitC(Lower(scheduled, CTarget().DefaultLowerOptions()), symbol);
    EXPECT_EQ(kiln::testing::BuildRunAndCompare(workload, source, scratch_.options(),
                                                {.seed = 7, .low = -5, .high = 5}),
              "")
        << source.code;
    return source.code;
  }

  kiln::testing::ScratchBuild scratch_{"kiln_space_vectorize"};
  int count_ = 0;
};

// The innermost loop of `block` split by 16 and vectorized, its outer loops parallel.
void VectorizeInnermost(search::Schedule& sch, const std::string& block) {
  std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock(block));
  std::vector<search::LoopRV> split = sch.Split(loops.back(), {std::nullopt, 16});
  sch.Vectorize(split[1]);
}

TEST_F(SpaceVectorizeCodegenTest, GeluLoopsVectorizeWithTheVectorHelpers) {
  for (const auto& [name, helper] : {std::pair<const char*, const char*>{"gelu_erf", "kiln_erf_"},
                                     {"gelu_tanh", "kiln_tanh_"}}) {
    SCOPED_TRACE(name);
    PrimFunc f = zoo::ZooLookup(name).build();
    search::Schedule sch(f);
    VectorizeInnermost(sch, "B");
    sch.Parallel(sch.GetLoops(sch.GetBlock("B"))[0]);
    std::string code = BuildAndCompare(f, sch.func());
    EXPECT_NE(code.find(std::string(helper) + "float32x16("), std::string::npos) << code;
  }
}

TEST_F(SpaceVectorizeCodegenTest, SoftmaxExpVectorizesAndItsRowReductionsAreSimd) {
  PrimFunc f = zoo::ZooLookup("softmax").build();
  search::Schedule sch(f);
  VectorizeInnermost(sch, "T_softmax_exp");
  VectorizeInnermost(sch, "T_softmax_norm");
  std::string code = BuildAndCompare(f, sch.func());
  EXPECT_NE(code.find("kiln_exp_float32x16("), std::string::npos) << code;
  EXPECT_NE(code.find("#pragma omp simd reduction(max:"), std::string::npos) << code;
  EXPECT_NE(code.find("#pragma omp simd reduction(+:"), std::string::npos) << code;
}

TEST_F(SpaceVectorizeCodegenTest, SampledCandidatesOfTheCpuSpaceAgreeWithTheInterpreter) {
  search::DesignSpace space = search::MakeDesignSpace("cpu");
  search::RandomEngine rng(20261125);
  for (const char* name : {"gelu_erf", "softmax", "layer_norm"}) {
    PrimFunc f = zoo::ZooLookup(name).build();
    search::TuneContext context;
    context.workload = f;
    context.task_name = name;
    context.num_cores = 2;
    context.vector_bytes = 64;
    space.Initialize(context);
    std::vector<search::Schedule> sketches = space.Sketches(context);
    ASSERT_FALSE(sketches.empty()) << name;
    search::SampleStats stats;
    for (size_t s : std::set<size_t>{0, sketches.size() - 1}) {
      std::optional<search::Candidate> c;
      for (int attempt = 0; attempt < 20 && !c; ++attempt) {
        c = search::SampleCandidate(f, sketches[s].trace(), space.postprocs, rng, &stats);
      }
      ASSERT_TRUE(c.has_value()) << name << " sketch " << s;
      SCOPED_TRACE(std::string(name) + " sketch " + std::to_string(s) + ":\n" +
                   c->postprocessed.AsPython());
      BuildAndCompare(f, c->scheduled);
    }
  }
}

}  // namespace
}  // namespace kiln::codegen
