// The hand-written matmul trace of bench_matmul_manual (bench/traces/matmul_1024.json)
// through the whole C path at small sizes: replayed from its JSON, lowered, emitted, built
// with runtime::BuildCSource and run, compared with the reference interpreter; and the IR
// after every lowering pass (and the C) compared with golden files under
// tests/codegen/testdata/matmul_trace/. KILN_UPDATE_GOLDEN=1 rewrites the golden files
// (and fails the run, naming them).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/matmul_manual.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "search/schedule/trace.h"
#include "tests/testing/golden.h"

namespace kiln::codegen {
namespace {

namespace fs = std::filesystem;
using namespace ir;

const fs::path kSourceDir = KILN_SOURCE_DIR;

std::string CommittedTraceText() {
  return kiln::testing::ReadTextFile(kSourceDir / "bench" / "traces" / "matmul_1024.json");
}

search::Trace CommittedTrace() {
  return search::Trace::FromJSON(nlohmann::json::parse(CommittedTraceText()));
}

// A private build cache per test process, removed at the end.
class TraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char dir[] = "/tmp/kiln_trace_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    cache_dir_ = dir;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(cache_dir_, ec);
  }
  static std::string cache_dir_;
};
std::string TraceTest::cache_dir_;

TEST_F(TraceTest, CommittedTraceIsWhatTheBenchScheduleRecords) {
  // The artifact and the code that wrote it must not drift apart.
  PrimFunc workload = bench::MatmulWorkload(1024, 1024, 1024);
  EXPECT_EQ(bench::FormatTraceJson(bench::ManualMatmulTrace(workload)), CommittedTraceText());
}

TEST_F(TraceTest, ReplayedAtSmallSizesAgreesWithTheInterpreter) {
  search::Trace trace = CommittedTrace();
  // Divisible by the tiles; and not (tails split off by PartitionLoops, kept predicated).
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{128, 96, 64}, {100, 70, 50}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    PrimFunc workload = bench::MatmulWorkload(m, n, k);
    PrimFunc scheduled = search::ReplayTrace(workload, trace);
    EmittedSource source = EmitC(Lower(scheduled), "kiln_matmul_test");
    runtime::BuildOptions options;
    options.cache_dir = cache_dir_;
    runtime::BuildResult built = runtime::BuildCSource(source.code, options);
    ASSERT_TRUE(built.ok) << built.error;
    // Kept mapped: the kernel's idle OpenMP workers need libgomp, which this binary does not
    // link.
    runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
    runtime::KernelFunction kernel = module.GetKernel(source.signature.symbol);

    const DataType f32 = DataType::Float(32);
    HostTensor a = HostTensor::Random(f32, {m, k}, 11, -1, 1);
    HostTensor b = HostTensor::Random(f32, {k, n}, 12, -1, 1);
    std::vector<ArgValue> expected = {a.Clone(), b.Clone(), HostTensor(f32, {m, n})};
    Interpret(workload, expected);
    std::vector<ArgValue> actual = {a.Clone(), b.Clone(), HostTensor(f32, {m, n})};
    std::vector<PackedValue> packed = runtime::PackArguments(source.signature, actual);
    runtime::CallKernel(kernel, source.signature, packed);
    Tolerance tol = DefaultTolerance(f32);
    TensorComparison cmp = CompareTensors(std::get<HostTensor>(expected[2]),
                                          std::get<HostTensor>(actual[2]), tol.rtol, tol.atol);
    EXPECT_TRUE(cmp.ok) << cmp.message;
  }
}

TEST_F(TraceTest, EveryPassMatchesItsGoldenFile) {
  const fs::path dir = kSourceDir / "tests" / "codegen" / "testdata" / "matmul_trace";
  PrimFunc scheduled = search::ReplayTrace(bench::MatmulWorkload(64, 64, 32), CommittedTrace());
  std::vector<std::pair<std::string, std::string>> outputs;
  outputs.emplace_back("00_Scheduled.tir", PrintPrimFunc(scheduled));
  LowerOptions options;
  options.after_pass = [&](std::string_view pass, const PrimFunc& f) {
    char name[64];
    std::snprintf(name, sizeof name, "%02zu_%s.tir", outputs.size(), std::string(pass).c_str());
    outputs.emplace_back(name, PrintPrimFunc(f));
  };
  PrimFunc lowered = Lower(scheduled, options);
  outputs.emplace_back("kernel.c", EmitC(lowered, "kiln_matmul").code);
  for (const auto& [name, text] : outputs) {
    EXPECT_EQ(kiln::testing::CheckGoldenFile(dir / name, text), "") << "after " << name;
  }
}

}  // namespace
}  // namespace kiln::codegen
