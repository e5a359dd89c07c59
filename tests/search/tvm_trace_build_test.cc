// TVM's tuning records (tests/data/tvm/database/, both databases) through the whole C path:
// each record's trace is replayed by Kiln on its workload (the TVMScript printed next to the
// database), and the scheduled function is built with the C target, run in the sandbox and
// checked against the reference (the interpreter, or the unscheduled function built where the
// interpreter would be slow), as `tune kernel --json` measures a candidate. Records with thread
// bindings (GPU schedules) are left out.
#include <gtest/gtest.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/text/parser.h"
#include "runtime/cpu_measurer.h"
#include "search/schedule/trace.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/testing/golden.h"

namespace kiln::search {
namespace {

using nlohmann::json;

TEST(TvmTraceBuild, EveryRecordBuildsAndMatchesTheReference) {
  std::vector<std::string> names;
  std::vector<runtime::MeasureCandidate> candidates;
  for (const char* folder : {"database/handwritten", "database"}) {
    std::filesystem::path dir = kiln::testing::SourcePath(std::string("tests/data/tvm/") + folder);
    std::istringstream lines(kiln::testing::ReadTextFile(dir / "database_tuning_record.json"));
    std::string line;
    for (int i = 0; std::getline(lines, line); ++i) {
      json record = json::parse(line);
      // Thread bindings are for GPU targets; the C target refuses them by design.
      if (record.dump().find("\"Bind\"") != std::string::npos) continue;
      std::filesystem::path path =
          dir / ("workload_" + std::to_string(record.at(0).get<int64_t>()) + ".tir");
      ir::PrimFunc workload = ir::ParsePrimFunc(kiln::testing::ReadTextFile(path), path.string());
      names.push_back(std::string(folder) + " record " + std::to_string(i));
      candidates.push_back(
          {workload, ReplayTrace(workload, Trace::FromJSON(record.at(1).at(0))), {}});
    }
  }
  ASSERT_GE(candidates.size(), 20u);
  runtime::testing::ScratchDir dir;
  runtime::MeasureOptions options;
  options.cache_dir = dir.Sub("cache");
  options.sandbox_path = runtime::FindSandboxExecutable(KILN_SANDBOX_PATH);
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 0};
  options.num_threads = 1;
  options.build_jobs = 2;
  options.c_flags = {"-O1", "-fopenmp", "-shared", "-fPIC", "-std=c11"};  // quick builds
  runtime::CpuMeasurer measurer(options);
  std::vector<runtime::MeasureResult> results = measurer.MeasureBatch(candidates);
  ASSERT_EQ(results.size(), candidates.size());
  // Records the C path does not build or run correctly yet are listed, with the error kind, in
  // tests/search/testdata/tvm_build.expected (KILN_UPDATE_GOLDEN=1 rewrites it); the messages
  // go to the log.
  std::string failures;
  for (size_t i = 0; i < results.size(); ++i) {
    const runtime::MeasureResult& r = results[i];
    if (r.ok() && r.correctness_checked) continue;
    failures += names[i] + ": " + std::string(runtime::MeasureErrorKindName(r.error_kind)) + "\n";
    std::cerr << names[i] << ": " << r.message.substr(0, 400) << "\n";
  }
  EXPECT_EQ(kiln::testing::CheckGoldenFile(
                kiln::testing::SourcePath("tests/search/testdata/tvm_build.expected"), failures),
            "")
      << "of " << results.size() << " records";
}

}  // namespace
}  // namespace kiln::search
