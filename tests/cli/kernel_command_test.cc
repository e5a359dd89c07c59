// `tune kernel` run as a user runs it: the built binary on temporary .tir and trace files.
// The summary and the --json line report a checked, timed kernel; unusable input (a
// malformed file or trace, a trace that does not fit, a missing --dim) exits with code 2
// and a message that says where.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ir/text/parser.h"
#include "runtime/subprocess.h"
#include "search/schedule/schedule.h"
#include "support/error.h"
#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kMatmul[] = R"(# from tvm.script import tir as T
@T.prim_func
def mm(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "mm", "tir.noalias": True})
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

constexpr char kSymbolic[] = R"(
@T.prim_func
def double_it(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 8), "float32")
    B = T.match_buffer(b, (n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
)";

class KernelCommandTest : public testing::TuneProcessTest {
 protected:
  runtime::ProcessResult Tune(std::vector<std::string> args) {
    return RunTune("kernel", std::move(args), {"OMP_NUM_THREADS=1"}, 120);
  }
};

const std::vector<std::string> kQuickTiming = {"--number",        "1", "--repeat", "2",
                                               "--min-repeat-ms", "1"};

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_F(KernelCommandTest, JsonReportsACheckedTimedKernel) {
  std::string file = Write("mm.tir", kMatmul);
  runtime::ProcessResult run = Tune(With({file, "--target", "llvm", "--json"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  json out = LastJson(run);
  EXPECT_EQ(out["correct"], true) << out.dump();
  EXPECT_EQ(out["error_kind"], "ok");
  EXPECT_LT(out["max_rel_error"].get<double>(), 1e-3);
  EXPECT_GT(out["build_s"].get<double>(), 0);
  EXPECT_GT(out["median_s"].get<double>(), 0);
  EXPECT_EQ(out["repeats_s"].size(), 2u);
  EXPECT_EQ(out["flops"].get<double>(), 2.0 * 32 * 32 * 32);
  EXPECT_NEAR(out["gflops"].get<double>(),
              out["flops"].get<double>() / out["median_s"].get<double>() / 1e9, 1e-9);
  EXPECT_EQ(out["reference"].get<std::string>().rfind("interpreter, full", 0), 0u);
  EXPECT_EQ(out["hash"], out["scheduled_hash"]);
  EXPECT_FALSE(out.contains("c")) << "texts only when --show is given";
  // Only the JSON object on stdout: the output is one line.
  EXPECT_EQ(run.output.find('\n'), run.output.size() - 1) << run.output;
}

TEST_F(KernelCommandTest, TraceIsReplayedAndEveryStageShown) {
  std::string file = Write("mm.tir", kMatmul);
  ir::PrimFunc f = ir::ParsePrimFunc(kMatmul, file);
  search::Schedule sch(f, 3);
  search::BlockRV c = sch.GetBlock("C");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::ExprRV> tiles = sch.SamplePerfectTile(loops[1], 2, 16);
  std::vector<search::LoopRV> j = sch.Split(loops[1], {tiles[0], tiles[1]});
  sch.Reorder({loops[0], j[0], loops[2], j[1]});
  sch.Parallel(loops[0]);
  sch.Vectorize(j[1]);
  std::string trace = Write("trace.json", sch.trace().ToJSON().dump());

  runtime::ProcessResult run = Tune(With({file, "--trace", trace, "--threads", "2"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  for (const char* part : {"== scheduled TensorIR (", "T.parallel", "T.vectorized",
                           "== lowered ==", "== generated C (kiln_mm) ==", "#pragma omp parallel",
                           "== measurement ==", "correctness  ok", "GFLOP/s", "build  "}) {
    EXPECT_NE(run.output.find(part), std::string::npos) << part << " in:\n" << run.output;
  }

  run = Tune(With({file, "--trace", trace, "--json", "--show", "c"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  json out = LastJson(run);
  EXPECT_EQ(out["correct"], true);
  EXPECT_NE(out["hash"], out["scheduled_hash"]);
  EXPECT_NE(out["c"].get<std::string>().find("kiln_mm"), std::string::npos);
  EXPECT_TRUE(out["build_cache_hit"].get<bool>()) << "the same source was built just before";
}

// --default-variant N schedules the kernel as an untuned model would run it: variant 0 is
// tiled, the last untiled; a variant beyond the last, or with --trace, is refused.
TEST_F(KernelCommandTest, DefaultVariantsAreShownCheckedAndTimed) {
  std::string file = Write("mm.tir", kMatmul);
  runtime::ProcessResult run = Tune(With(
      {file, "--default-variant", "0", "--show", "scheduled", "--threads", "1"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  for (const char* part : {"(default schedule, variant 0)", "T.vectorized", "correctness  ok"}) {
    EXPECT_NE(run.output.find(part), std::string::npos) << part << " in:\n" << run.output;
  }
  run = Tune(With({file, "--default-variant", "0", "--json"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  json out = LastJson(run);
  EXPECT_EQ(out["correct"], true) << out.dump();
  EXPECT_EQ(out["default_variant"], 0);
  EXPECT_NE(out["hash"], out["scheduled_hash"]);

  run = Tune({file, "--default-variant", "9", "--json"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--default-variant 9: function mm has "), std::string::npos)
      << run.output;
  std::string trace = Write("empty_trace.json", "[[], []]");
  run = Tune({file, "--default-variant", "0", "--trace", trace});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("give one of them"), std::string::npos) << run.output;
}

TEST_F(KernelCommandTest, SymbolicShapesNeedTheirDims) {
  std::string file = Write("sym.tir", kSymbolic);
  runtime::ProcessResult run = Tune({file, "--json"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("give it a value with --dim n=VALUE"), std::string::npos) << run.output;
  EXPECT_EQ(LastJson(run)["correct"], false);

  run = Tune(With({file, "--dim", "n=48", "--json"}, kQuickTiming));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  json out = LastJson(run);
  EXPECT_EQ(out["correct"], true) << out.dump();
  EXPECT_EQ(out["flops"].get<double>(), 48.0 * 8);
}

TEST_F(KernelCommandTest, MalformedInputNamesThePlace) {
  std::string bad = Write("bad.tir",
                          "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                          "    for i in range(4)\n        A[i] = T.float32(0)\n");
  runtime::ProcessResult run = Tune({bad});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("bad.tir:3:"), std::string::npos) << run.output;

  std::string file = Write("mm.tir", kMatmul);
  run = Tune({file, "--trace", Write("notjson.json", "[[[\"GetBlock\", ")});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("notjson.json: not valid JSON"), std::string::npos) << run.output;

  run = Tune({file, "--trace", Write("unknown.json", R"([[["GetBlock", [], ["C", "mm"], ["b0"]],
                                         ["Explode", ["b0"], [], []]], []])")});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("instruction 1"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("Explode"), std::string::npos) << run.output;

  run = Tune(
      {file, "--trace", Write("misfit.json", R"([[["GetBlock", [], ["D", "mm"], ["b0"]]], []])")});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("does not fit function mm"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("instruction 0"), std::string::npos) << run.output;

  std::string two = Write("two.tir", std::string(kMatmul) + "\n" + kSymbolic);
  run = Tune({two});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("choose one with --func NAME"), std::string::npos) << run.output;
  run = Tune(With({two, "--func", "mm", "--show", "none"}, kQuickTiming));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("== lowered =="), std::string::npos) << run.output;

  run = Tune({file, "--target", "tpu"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--target"), std::string::npos) << run.output;
}

// Without a Mac, --target metal runs the MSL on the CPU shim, checks it against the
// interpreter, and says in its JSON that the device is an emulation.
TEST_F(KernelCommandTest, MetalRunsOnTheCpuShimAndSaysSo) {
  std::string file = Write("mm.tir", kMatmul);
  runtime::ProcessResult run = Tune(With({file, "--target", "metal", "--json"}, kQuickTiming));
  json out = LastJson(run);
  if (out["error_kind"] == "input" &&
      out["message"].get<std::string>().find("no metal device") != std::string::npos) {
    GTEST_SKIP() << "skipped: " << out["message"];
  }
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(out["correct"], true) << out.dump();
  EXPECT_EQ(out["device"], "metal");
  EXPECT_EQ(out["emulated"], true) << out.dump();
  EXPECT_EQ(out["device_name"], "Metal (CPU shim)");
  EXPECT_EQ(out["device_key"], "metal-emulated-cpu-shim");
  EXPECT_NE(out["reference"].get<std::string>().find("interpreter"), std::string::npos);
}

TEST_F(KernelCommandTest, TvmKernelsWithIndexInputsAndPaddingAreChecked) {
  // TVM 0.27's take (int64 indices into a symbolic axis) and padding under T.if_then_else:
  // measured through the whole path, inputs drawn where the kernels can run.
  for (const char* name : {"take_index.tir", "pad_if_then_else.tir"}) {
    std::string file = std::string(KILN_SOURCE_DIR) + "/tests/ir/testdata/tir/tvm/" + name;
    runtime::ProcessResult run =
        Tune(With({file, "--dim", "vocab=5", "--target", "llvm", "--json"}, kQuickTiming));
    ASSERT_EQ(run.exit_code, 0) << name << "\n" << run.output;
    json out = LastJson(run);
    EXPECT_EQ(out["correct"], true) << name << ": " << out.dump();
  }
}

TEST_F(KernelCommandTest, DialectOptionChoosesThePrintedTensorIR) {
  std::string file = Write("mm.tir", kMatmul);
  runtime::ProcessResult current =
      Tune(With({file, "--show", "scheduled", "--json"}, kQuickTiming));
  ASSERT_EQ(current.exit_code, 0) << current.output;
  std::string text = LastJson(current)["scheduled"].get<std::string>();
  EXPECT_NE(text.find("with T.sblock(\"C\")"), std::string::npos) << text;
  EXPECT_NE(text.find("\"tirx.noalias\": True"), std::string::npos) << text;
  runtime::ProcessResult older =
      Tune(With({file, "--show", "scheduled", "--dialect", "tvm-0.23", "--json"}, kQuickTiming));
  ASSERT_EQ(older.exit_code, 0) << older.output;
  text = LastJson(older)["scheduled"].get<std::string>();
  EXPECT_NE(text.find("with T.block(\"C\")"), std::string::npos) << text;
  EXPECT_NE(text.find("\"tir.noalias\": T.bool(True)"), std::string::npos) << text;
  runtime::ProcessResult unknown = Tune({file, "--dialect", "tvm-9"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unknown TensorIR dialect 'tvm-9'"), std::string::npos)
      << unknown.output;
}

}  // namespace
}  // namespace kiln::cli
