// bench_cost_model: what the cost model costs the search and how well it ranks, on the
// committed datasets. Prints feature extraction time per candidate (lowering and extraction
// apart), training time on a dataset, prediction time per 1000 candidates (features
// included), and ranking quality (Kendall tau, top-8 recall) on held-out candidates of the
// trained workload and on a second workload. `--json`: one object on the last line.
//
//   bench_cost_model [--json] [--data DIR] [--eval TRAIN[,TEST]] [--show FILE:INDEX]
//                    [--throughput-label] [--max-rounds N]
//                    [--early-stopping N]
//                    [--validation F] [--threads N] [--feature-threads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
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

// Best true throughput among the `k` best-scored over the best of all: what a round that
// measures the model's top k would find.
double TopKPeak(const std::vector<double>& scores, const std::vector<double>& run_seconds,
                size_t k) {
  std::vector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  double best = 0, picked = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    double t = run_seconds[order[i]] > 0 ? 1 / run_seconds[order[i]] : 0;
    best = std::max(best, t);
    if (i < k) picked = std::max(picked, t);
  }
  return best > 0 ? picked / best : 0;
}

// `--eval TRAIN[,TEST]`: the model trained on TRAIN ranks TEST; with TRAIN alone, five random
// 70/30 splits of it (averaged). For datasets written by bench_tune --dump-dir.
int Eval(const std::string& files, const XgbOptions& options, bool json) {
  size_t comma = files.find(',');
  tools::Dataset train = tools::LoadDataset(files.substr(0, comma));
  std::optional<tools::Dataset> test;
  if (comma != std::string::npos) test = tools::LoadDataset(files.substr(comma + 1));
  double tau = 0, recall = 0, peak8 = 0, peak32 = 0;
  int runs = test ? 1 : 5;
  for (int run = 0; run < runs; ++run) {
    std::vector<search::CostModelCandidate> fit, held;
    std::vector<double> fit_s, held_s;
    if (test) {
      fit = Candidates(train, 0, train.scheduled.size());
      fit_s = train.run_seconds;
      held = Candidates(*test, 0, test->scheduled.size());
      held_s = test->run_seconds;
    } else {
      search::RandomEngine rng(static_cast<uint64_t>(run) + 1);
      for (size_t i = 0; i < train.scheduled.size(); ++i) {
        bool into_fit = rng.UniformReal() < 0.7;
        (into_fit ? fit : held).push_back({&train.scheduled[i]});
        (into_fit ? fit_s : held_s).push_back(train.run_seconds[i]);
      }
    }
    XgbOptions o = options;
    o.min_samples = 1;
    XgbCostModel model(o);
    model.Update(Context(train), fit, fit_s);
    std::vector<double> scores = model.Predict(Context(test ? *test : train), held);
    if (runs > 1)
      std::printf("  split %d: kendall tau %.3f\n", run, tools::KendallTau(scores, held_s));
    tau += tools::KendallTau(scores, held_s) / runs;
    recall += tools::TopKRecall(scores, held_s, 8) / runs;
    peak8 += TopKPeak(scores, held_s, 8) / runs;
    peak32 += TopKPeak(scores, held_s, 32) / runs;
  }
  std::printf("%s: kendall tau %.3f, top-8 recall %.3f, best of top 8 %.3f, of top 32 %.3f\n",
              files.c_str(), tau, recall, peak8, peak32);
  if (json) {
    nlohmann::json out = {{"kendall_tau", tau},
                          {"top8_recall", recall},
                          {"top8_peak", peak8},
                          {"top32_peak", peak32}};
    std::cout << out.dump() << "\n";
  }
  return 0;
}

// `--show FILE:INDEX`: the named non-zero features of one candidate of a dataset, store by
// store, with its time: what the model sees of it.
int Show(const std::string& spec) {
  size_t colon = spec.rfind(':');
  KILN_CHECK(colon != std::string::npos, ErrorKind::kParse, "--show FILE:INDEX expected");
  tools::Dataset d = tools::LoadDataset(spec.substr(0, colon));
  size_t index = std::stoul(spec.substr(colon + 1));
  KILN_CHECK(index < d.scheduled.size(), ErrorKind::kParse,
             "--show: the dataset has " + std::to_string(d.scheduled.size()) + " candidates");
  std::printf("candidate %zu: %.6f s\n", index, d.run_seconds[index]);
  std::vector<FeatureRow> rows = PerStoreFeatures(d.scheduled[index]);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::printf("store %zu:", r);
    for (int f = 0; f < kNumStoreFeatures; ++f) {
      if (rows[r][f] != 0) std::printf(" %s=%.2f", StoreFeatureNames()[f].c_str(), rows[r][f]);
    }
    std::printf("\n");
  }
  return 0;
}

int Run(int argc, char** argv) {
  bool json = false;
  std::string eval;
  XgbOptions options;
  std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/data/cost_model";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--show" && i + 1 < argc) {
      return Show(argv[++i]);
    } else if (a == "--throughput-label") {
      options.label = XgbLabel::kThroughput;
    } else if (a == "--eval" && i + 1 < argc) {
      eval = argv[++i];
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
                                         " (use --json, --data DIR, --eval TRAIN[,TEST], "
                                         "--show FILE:INDEX, --throughput-label, "
                                         "--max-rounds N, "
                                         "--early-stopping N, --validation F, --threads N, "
                                         "--feature-threads N)");
    }
  }
  if (!eval.empty()) return Eval(eval, options, json);
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
