// bench_cost_model: what the cost model costs the search and how well it ranks, on the
// committed datasets. Prints feature extraction time per candidate (lowering and extraction
// apart), training time on a dataset, prediction time per 1000 candidates (features
// included), and ranking quality (Kendall tau, top-8 recall) on held-out candidates of the
// trained workload and on a second workload. `--json`: one object on the last line.
//
//   bench_cost_model [--json] [--data DIR] [--max-rounds N] [--early-stopping N]
//                    [--validation F] [--threads N] [--feature-threads N]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "cost_model/features/per_store_features.h"
#include "cost_model/tools/dataset.h"
#include "cost_model/xgb_cost_model.h"
#include "support/error.h"

namespace {

using namespace kiln;
using namespace kiln::cost_model;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

search::TuneContext Context(const tools::Dataset& d) {
  search::TuneContext c;
  c.workload = d.workload;
  c.task_name = d.name;
  return c;
}

std::vector<search::CostModelCandidate> Candidates(const tools::Dataset& d, size_t begin,
                                                   size_t end) {
  std::vector<search::CostModelCandidate> c;
  for (size_t i = begin; i < end; ++i) c.push_back({&d.scheduled[i]});
  return c;
}

std::vector<double> Times(const tools::Dataset& d, size_t begin, size_t end) {
  return {d.run_seconds.begin() + begin, d.run_seconds.begin() + end};
}

int Run(int argc, char** argv) {
  bool json = false;
  XgbOptions options;
  std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/data/cost_model";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--data" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--max-rounds" && i + 1 < argc) {
      options.max_rounds = std::stoi(argv[++i]);
    } else if (a == "--early-stopping" && i + 1 < argc) {
      options.early_stopping_rounds = std::stoi(argv[++i]);
    } else if (a == "--validation" && i + 1 < argc) {
      options.validation_fraction = std::stod(argv[++i]);
    } else if (a == "--feature-threads" && i + 1 < argc) {
      options.feature_threads = std::stoi(argv[++i]);
    } else if (a == "--threads" && i + 1 < argc) {
      options.num_threads = std::stoi(argv[++i]);
    } else {
      throw Error(ErrorKind::kParse, "unknown option " + a +
                                         " (use --json, --data DIR, --max-rounds N, "
                                         "--early-stopping N, --validation F, --threads N, "
                                         "--feature-threads N)");
    }
  }
  tools::Dataset matmul = tools::LoadDataset(dir + "/matmul_256.json");
  tools::Dataset conv = tools::LoadDataset(dir + "/conv2d_28.json");
  const size_t n = matmul.scheduled.size();

  // Features: lowering and extraction timed apart, over every candidate.
  double lower_s = 0, extract_s = 0;
  size_t rows = 0;
  for (const ir::PrimFunc& f : matmul.scheduled) {
    auto t = Clock::now();
    ir::PrimFunc lowered = LowerForFeatures(f);
    lower_s += Since(t);
    t = Clock::now();
    rows += ExtractStoreFeatures(lowered).size();
    extract_s += Since(t);
  }

  // Ranking of held-out candidates of the trained workload.
  const size_t split = n * 7 / 10;
  XgbCostModel held_out(options);
  auto t = Clock::now();
  held_out.Update(Context(matmul), Candidates(matmul, 0, split), Times(matmul, 0, split));
  double train_s = Since(t);
  std::vector<double> scores = held_out.Predict(Context(matmul), Candidates(matmul, split, n));
  double tau = tools::KendallTau(scores, Times(matmul, split, n));
  double recall = tools::TopKRecall(scores, Times(matmul, split, n), 8);

  // Trained on all of one workload, ranking another.
  XgbCostModel full(options);
  full.Update(Context(matmul), Candidates(matmul, 0, n), Times(matmul, 0, n));
  std::vector<double> conv_scores =
      full.Predict(Context(conv), Candidates(conv, 0, conv.scheduled.size()));
  double conv_tau = tools::KendallTau(conv_scores, conv.run_seconds);
  double conv_recall = tools::TopKRecall(conv_scores, conv.run_seconds, 8);

  // Prediction as the search calls it: a round of candidates at once.
  std::vector<search::CostModelCandidate> round;
  while (round.size() < 2000) {
    for (const ir::PrimFunc& f : matmul.scheduled) round.push_back({&f});
  }
  round.resize(2000);
  t = Clock::now();
  full.Predict(Context(matmul), round);
  double predict_s = Since(t);

  nlohmann::json out;
  out["candidates"] = n;
  out["stores_per_candidate"] = static_cast<double>(rows) / static_cast<double>(n);
  out["lower_us_per_candidate"] = 1e6 * lower_s / static_cast<double>(n);
  out["extract_us_per_candidate"] = 1e6 * extract_s / static_cast<double>(n);
  out["train_candidates"] = split;
  out["train_s"] = train_s;
  out["train_rounds"] = held_out.num_rounds();
  out["predict_s_per_1000"] = predict_s / 2;
  out["heldout_kendall_tau"] = tau;
  out["heldout_top8_recall"] = recall;
  out["second_workload_kendall_tau"] = conv_tau;
  out["second_workload_top8_recall"] = conv_recall;
  std::printf("features: lower %.0f us + extract %.0f us per candidate (%.1f stores)\n",
              out["lower_us_per_candidate"].get<double>(),
              out["extract_us_per_candidate"].get<double>(),
              out["stores_per_candidate"].get<double>());
  std::printf("train: %zu candidates in %.2f s (%d rounds kept)\n", split, train_s,
              held_out.num_rounds());
  std::printf("predict: %.3f s per 1000 candidates, features included\n", predict_s / 2);
  std::printf("%s held out: kendall tau %.3f, top-8 recall %.3f\n", matmul.name.c_str(), tau,
              recall);
  std::printf("%s after training on %s: kendall tau %.3f, top-8 recall %.3f\n", conv.name.c_str(),
              matmul.name.c_str(), conv_tau, conv_recall);
  if (json) std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_cost_model: " << e.what() << "\n";
    return 1;
  }
}
