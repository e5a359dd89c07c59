// kiln-cost-model-dataset: measures random schedules of one workload on this CPU and writes
// them as a cost-model dataset (tests/data/cost_model/*.json): the workload's TVMScript, and
// per candidate its trace and median run time (0 when it failed, with the error kind).
//
//   kiln-cost-model-dataset --workload matmul --size 256 --count 300 --out matmul_256.json
//
// The file is rewritten after every batch, so an interrupted run keeps what it measured.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cost_model/tools/random_tiling.h"
#include "cost_model/tools/workloads.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "runtime/measurer.h"
#include "support/error.h"

namespace {

using namespace kiln;

struct Args {
  std::string workload = "matmul";
  int size = 256;
  int channels = 32;
  int count = 300;
  uint64_t seed = 1;
  int threads = 1;
  std::string out;
};

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    KILN_CHECK(i + 1 < argc, ErrorKind::kParse, flag + " needs a value");
    std::string value = argv[++i];
    if (flag == "--workload") {
      args.workload = value;
    } else if (flag == "--size") {
      args.size = std::stoi(value);
    } else if (flag == "--channels") {
      args.channels = std::stoi(value);
    } else if (flag == "--count") {
      args.count = std::stoi(value);
    } else if (flag == "--seed") {
      args.seed = std::stoull(value);
    } else if (flag == "--threads") {
      args.threads = std::stoi(value);
    } else if (flag == "--out") {
      args.out = value;
    } else {
      throw Error(ErrorKind::kParse, "unknown option " + flag);
    }
  }
  KILN_CHECK(!args.out.empty(), ErrorKind::kParse, "--out FILE is required");
  KILN_CHECK(args.workload == "matmul" || args.workload == "conv2d", ErrorKind::kParse,
             "--workload must be matmul or conv2d");
  return args;
}

int Run(const Args& args) {
  bool matmul = args.workload == "matmul";
  std::string script = matmul ? cost_model::tools::MatmulScript(args.size)
                              : cost_model::tools::Conv2dScript(args.channels, args.size);
  ir::PrimFunc workload = ir::ParsePrimFunc(script, args.workload);
  cost_model::tools::RandomTilingOptions tiling;
  tiling.block = matmul ? "C" : "conv";

  runtime::MeasureOptions options;
  options.timing.number = 1;
  options.timing.repeat = 3;
  options.timing.min_repeat_ms = 20;
  options.num_threads = args.threads;
  options.build_jobs = 2;
  options.run_time_limit_s = 20;
  std::unique_ptr<runtime::Measurer> measurer = runtime::CreateMeasurer("cpu", options);

  nlohmann::json doc;
  doc["name"] = args.workload + "_" + std::to_string(args.size);
  doc["workload"] = script;
  doc["target"] = "llvm";
  doc["threads"] = args.threads;
  doc["records"] = nlohmann::json::array();

  std::set<uint64_t> seen;
  uint64_t seed = args.seed;
  int measured = 0;
  while (measured < args.count) {
    std::vector<search::Trace> traces;
    std::vector<runtime::MeasureCandidate> batch;
    while (static_cast<int>(batch.size()) < std::min(8, args.count - measured)) {
      std::optional<search::Trace> trace =
          cost_model::tools::SampleRandomTiling(workload, tiling, seed++);
      if (!trace) continue;
      ir::PrimFunc scheduled = search::ReplayTrace(workload, *trace);
      if (!seen.insert(ir::StructuralHash(scheduled)).second) continue;
      traces.push_back(*trace);
      batch.push_back({workload, scheduled});
    }
    std::vector<runtime::MeasureResult> results = measurer->MeasureBatch(batch);
    for (size_t i = 0; i < results.size(); ++i) {
      nlohmann::json record;
      record["trace"] = traces[i].ToJSON();
      record["run_s"] = results[i].ok() ? results[i].median_seconds : 0.0;
      if (!results[i].ok()) {
        record["error"] = std::string(runtime::MeasureErrorKindName(results[i].error_kind));
      }
      doc["records"].push_back(record);
    }
    measured += static_cast<int>(results.size());
    std::ofstream(args.out) << doc.dump() << "\n";
    std::cerr << measured << "/" << args.count << " measured\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseArgs(argc, argv));
  } catch (const kiln::Error& e) {
    std::cerr << "kiln-cost-model-dataset: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kiln-cost-model-dataset: " << e.what() << "\n";
    return 1;
  }
}
