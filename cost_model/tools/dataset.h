// The cost-model datasets (tests/data/cost_model/*.json, written by kiln-cost-model-dataset):
// a workload and its measured candidates, replayed into scheduled functions; and the ranking
// measures the model's tests pin and its benchmark prints.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::cost_model::tools {

struct Dataset {
  std::string name;
  ir::PrimFunc workload;
  std::vector<ir::PrimFunc> scheduled;  // one per record
  std::vector<double> run_seconds;      // 0 for a failed candidate
};

// Reads the dataset at `path` and replays every trace on its workload; kiln::Error(kParse)
// naming the file when it is not one.
Dataset LoadDataset(const std::string& path);

// Kendall's tau-b between predicted scores and true throughputs (1 / seconds; failures 0).
double KendallTau(const std::vector<double>& scores, const std::vector<double>& run_seconds);

// Of the `k` fastest candidates, the fraction among the `k` best-scored.
double TopKRecall(const std::vector<double>& scores, const std::vector<double>& run_seconds,
                  size_t k);

}  // namespace kiln::cost_model::tools
