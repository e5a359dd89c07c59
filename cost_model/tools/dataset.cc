// Dataset loading and ranking measures for the cost-model tests.
#include "cost_model/tools/dataset.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "ir/text/parser.h"
#include "search/schedule/trace.h"
#include "support/error.h"

namespace kiln::cost_model::tools {

Dataset LoadDataset(const std::string& path) {
  std::ifstream in(path);
  KILN_CHECK(in.good(), ErrorKind::kIO, path + ": cannot open the dataset");
  std::stringstream text;
  text << in.rdbuf();
  Dataset d;
  try {
    nlohmann::json doc = nlohmann::json::parse(text.str());
    d.name = doc.at("name").get<std::string>();
    d.workload = ir::ParsePrimFunc(doc.at("workload").get<std::string>(), path);
    for (const nlohmann::json& record : doc.at("records")) {
      search::Trace trace = search::Trace::FromJSON(record.at("trace"));
      d.scheduled.push_back(search::ReplayTrace(d.workload, trace));
      d.run_seconds.push_back(record.at("run_s").get<double>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kParse, path + ": not a cost-model dataset (" + e.what() + ")");
  }
  return d;
}

namespace {

std::vector<double> Throughputs(const std::vector<double>& run_seconds) {
  std::vector<double> t;
  for (double s : run_seconds) t.push_back(s > 0 ? 1.0 / s : 0.0);
  return t;
}

}  // namespace

double KendallTau(const std::vector<double>& scores, const std::vector<double>& run_seconds) {
  std::vector<double> truth = Throughputs(run_seconds);
  double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    for (size_t j = i + 1; j < scores.size(); ++j) {
      double dx = scores[i] - scores[j], dy = truth[i] - truth[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) {
        ties_x += 1;
      } else if (dy == 0) {
        ties_y += 1;
      } else if ((dx > 0) == (dy > 0)) {
        concordant += 1;
      } else {
        discordant += 1;
      }
    }
  }
  double denom = std::sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y));
  return denom == 0 ? 0 : (concordant - discordant) / denom;
}

double TopKRecall(const std::vector<double>& scores, const std::vector<double>& run_seconds,
                  size_t k) {
  std::vector<double> truth = Throughputs(run_seconds);
  std::vector<size_t> by_score(scores.size()), by_truth(scores.size());
  std::iota(by_score.begin(), by_score.end(), 0);
  std::iota(by_truth.begin(), by_truth.end(), 0);
  std::stable_sort(by_score.begin(), by_score.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::stable_sort(by_truth.begin(), by_truth.end(),
                   [&](size_t a, size_t b) { return truth[a] > truth[b]; });
  k = std::min(k, scores.size());
  size_t hits = 0;
  for (size_t i = 0; i < k; ++i) {
    if (std::find(by_score.begin(), by_score.begin() + k, by_truth[i]) != by_score.begin() + k)
      ++hits;
  }
  return k == 0 ? 0 : static_cast<double>(hits) / static_cast<double>(k);
}

}  // namespace kiln::cost_model::tools
