// Randomly drawn BLAS-style schedules of matmul at odd sizes (tiles that do not divide,
// packed and unpacked operands, register accumulators or not, vectorized, unrolled, parallel)
// through the whole C path, each kernel compared with the reference interpreter. This is what
// holds the lowering passes that move, shrink and split things (PlaceAllocations,
// CompactBuffers, PartitionLoops) and register promotion to the interpreter's semantics.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "bench/matmul_manual.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "search/schedule/schedule.h"

namespace kiln::codegen {
namespace {

namespace fs = std::filesystem;
using namespace ir;
using search::BlockRV;
using search::LoopRV;
using search::Schedule;

struct Draw {
  int64_t m, n, k;
  int64_t tile_i, tile_j;
  int pack_b;       // 0: no, 1: at the column tile, 2: at the row tile
  bool pack_a;      // cache_read of A at the row tile
  bool accumulate;  // cache_write of C at the row tile
  bool decompose;
  bool vectorize, unroll, parallel;
  std::string Describe() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " tiles " +
           std::to_string(tile_i) + "x" + std::to_string(tile_j) + " pack_b " +
           std::to_string(pack_b) + " pack_a " + std::to_string(pack_a) + " accumulate " +
           std::to_string(accumulate) + " decompose " + std::to_string(decompose) + " vectorize " +
           std::to_string(vectorize) + " unroll " + std::to_string(unroll) + " parallel " +
           std::to_string(parallel);
  }
};

PrimFunc ScheduleDraw(const PrimFunc& workload, const Draw& d) {
  Schedule sch(workload);
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, d.tile_i});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, d.tile_j});
  sch.Reorder({j[0], i[0], loops[2], i[1], j[1]});
  if (d.pack_b) sch.ComputeAt(sch.CacheRead(c, 1, "global"), d.pack_b == 1 ? j[0] : i[0]);
  if (d.pack_a) sch.ComputeAt(sch.CacheRead(c, 0, "global"), i[0]);
  if (d.accumulate) sch.ReverseComputeAt(sch.CacheWrite(c, 0, "local"), i[0]);
  if (d.decompose) sch.DecomposeReduction(c, loops[2]);
  if (d.vectorize) sch.Vectorize(j[1]);
  if (d.unroll) sch.Unroll(i[1]);
  if (d.parallel) sch.Parallel(j[0]);
  return sch.func();
}

TEST(RandomScheduleCodegenTest, KernelsAgreeWithTheInterpreter) {
  char dir_template[] = "/tmp/kiln_random_codegen_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  runtime::BuildOptions build;
  build.cache_dir = dir_template;
  // KILN_RANDOM_SEED and KILN_RANDOM_ROUNDS widen the search when hunting a bug.
  const char* seed = std::getenv("KILN_RANDOM_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261123);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const DataType f32 = DataType::Float(32);
  const int rounds =
      std::getenv("KILN_RANDOM_ROUNDS") ? std::atoi(std::getenv("KILN_RANDOM_ROUNDS")) : 8;
  for (int round = 0; round < rounds; ++round) {
    Draw d;
    d.m = pick(5, 40);
    d.n = pick(5, 40);
    d.k = pick(1, 24);
    d.tile_i = pick(1, 6);
    d.tile_j = int64_t{1} << pick(1, 4);
    d.pack_b = static_cast<int>(pick(0, 2));
    d.pack_a = pick(0, 1);
    d.accumulate = pick(0, 1);
    d.decompose = pick(0, 1);
    d.vectorize = pick(0, 1);
    d.unroll = pick(0, 1);
    d.parallel = pick(0, 1);
    SCOPED_TRACE(d.Describe());
    PrimFunc workload = bench::MatmulWorkload(d.m, d.n, d.k);
    PrimFunc scheduled = ScheduleDraw(workload, d);
    EmittedSource source = EmitC(Lower(scheduled), "kiln_random_" + std::to_string(round));
    runtime::BuildResult built = runtime::BuildCSource(source.code, build);
    ASSERT_TRUE(built.ok) << built.error << "\n" << PrintPrimFunc(scheduled);
    // Kept mapped: idle OpenMP workers would lose libgomp (see matmul_trace_test.cc).
    runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
    HostTensor a = HostTensor::Random(f32, {d.m, d.k}, 100 + round, -1, 1);
    HostTensor b = HostTensor::Random(f32, {d.k, d.n}, 200 + round, -1, 1);
    // The output starts as garbage, so a kernel that skips the init is caught.
    HostTensor c0 = HostTensor::Random(f32, {d.m, d.n}, 300 + round, -9, 9);
    std::vector<ArgValue> expected = {a.Clone(), b.Clone(), c0.Clone()};
    Interpret(workload, expected);
    std::vector<ArgValue> actual = {a.Clone(), b.Clone(), c0.Clone()};
    std::vector<PackedValue> packed = runtime::PackArguments(source.signature, actual);
    runtime::CallKernel(module.GetKernel(source.signature.symbol), source.signature, packed);
    Tolerance tol = DefaultTolerance(f32);
    TensorComparison cmp = CompareTensors(std::get<HostTensor>(expected[2]),
                                          std::get<HostTensor>(actual[2]), tol.rtol, tol.atol);
    EXPECT_TRUE(cmp.ok) << cmp.message << "\n" << PrintPrimFunc(scheduled) << source.code;
  }
  std::error_code ec;
  fs::remove_all(dir_template, ec);
}

}  // namespace
}  // namespace kiln::codegen
