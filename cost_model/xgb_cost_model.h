// XgbCostModel: the search's learned cost model. Each candidate (a scheduled function) becomes
// one row of per-store features per store (cost_model/features/); a gradient-boosted tree
// ensemble (XGBoost, through its C API) predicts a value per row and their sum (MetaSchedule's
// pack-sum squared error) is trained on the logarithm of the per-workload normalized
// throughput (best time of the workload / the candidate's time; 0 for a failed candidate; see
// XgbLabel); the score is that sum turned back into normalized throughput. Until the first
// training (64 measured samples by default) scores are random; it retrains when the data has
// grown by 20%, stopping early once the training error stops
// improving (or, as an option, on a held-out part). Save and Load carry the trees and the
// training data, so a saved model ranks candidates at once in a new job and keeps learning
// from what it knew.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cost_model/features/per_store_features.h"
#include "cost_model/pack_sum.h"
#include "search/schedule/random.h"
#include "search/strategy/cost_model.h"

namespace kiln::cost_model {

// What the model learns for a candidate of a workload whose best time is `best`:
// kThroughput, MetaSchedule's normalized throughput best / t; kLogThroughput, its logarithm
// 1 + log2(best / t) / kLogLabelSpan, floored at 0 (0 for a failure either way). Predictions
// are normalized throughput in both cases. The logarithm is the default: a random matmul
// space spans three orders of magnitude, best / t squeezes nearly every candidate against 0,
// and the model learnt little beyond "not terrible". Trained on two random rounds of a matmul
// 1024 tuning, it ranked the next, guided round's candidates (all fair ones) with Kendall tau
// 0.05 on best / t and 0.23 on the logarithm; on 70/30 splits of two such tunings, 0.15 and
// 0.42 against 0.38 and 0.52 (bench_cost_model --eval).
enum class XgbLabel { kThroughput, kLogThroughput };
inline constexpr double kLogLabelSpan = 10;

struct XgbOptions {
  XgbLabel label = XgbLabel::kLogThroughput;
  int max_depth = 10;
  double eta = 0.2;
  double gamma = 0.001;
  double min_child_weight = 0;
  // XGBoost's OpenMP threads spin while they wait: on cores shared with builds and runs, one
  // thread trains faster than two (0.3 s against 9 s for 280 candidates on a busy machine).
  int num_threads = 1;
  // Threads extracting features in Predict and Update (batches of 32 candidates or more).
  // One by default: on a busy 2-core machine two were slower (0.49 s against 0.30 s per 1000
  // candidates), the IR's shared reference counts bouncing between the cores.
  int feature_threads = 1;
  int max_rounds = 300;            // boosting rounds at most per training
  int early_stopping_rounds = 50;  // stop when the error watched has not improved for this long
  // Share of the candidates held out to stop training early on their average peak score; 0:
  // train on all and stop on the training error, as MetaSchedule does. 0 by default: a search
  // retrains from a few hundred candidates, a fifth of them is a few dozen whose peak score is
  // noise, and training stopped after a handful of rounds (7 on the committed matmul data),
  // its scores barely above the random warm-up's even on the candidates it was trained on.
  double validation_fraction = 0;
  size_t peak_k = 32;  // early stopping: average peak score of the top this many
  // Random scores until this many candidates were measured: the first round of 64 less the
  // tail that is measured while the next round is searched (search/tuner.h), so that the
  // second round is guided (MetaSchedule waits for 100, which leaves two rounds unguided).
  // Trained on the first 64 committed matmul candidates, the model ranks 200 others with
  // Kendall tau 0.35, where random scores give 0.
  size_t min_samples = 48;
  double retrain_growth = 0.2;  // retrain once the data grew by this fraction
  uint64_t seed = 1;
};

// The score a candidate gets when its features cannot be extracted: below any prediction.
inline constexpr double kUnscorableScore = -1e3;

class XgbCostModel : public search::CostModel {
 public:
  explicit XgbCostModel(XgbOptions options = {});
  ~XgbCostModel() override;
  XgbCostModel(const XgbCostModel&) = delete;
  XgbCostModel& operator=(const XgbCostModel&) = delete;

  void Update(const search::TuneContext& context,
              const std::vector<search::CostModelCandidate>& candidates,
              const std::vector<double>& run_seconds) override;
  std::vector<double> Predict(const search::TuneContext& context,
                              const std::vector<search::CostModelCandidate>& candidates) override;
  std::vector<uint8_t> Save() const override;
  // kiln::Error(kParse) naming what is wrong when `bytes` is not a saved model; the model is
  // unchanged then.
  void Load(const std::vector<uint8_t>& bytes) override;

  // Measured candidates held, over all workloads.
  size_t num_samples() const;
  // True once a booster has been trained (or loaded).
  bool trained() const;
  // Rounds kept by the last training (after early stopping).
  int num_rounds() const;
  // Samples held when the model was last trained (0: never).
  size_t trained_samples() const;

 private:
  struct Workload {
    std::vector<double> run_seconds;  // per candidate
    std::vector<size_t> row_counts;   // per candidate
    std::vector<FeatureRow> rows;     // all candidates' rows, in order
  };
  void Train();
  std::vector<double> PredictRows(const std::vector<FeatureRow>& rows, const RowGroups& groups);

  XgbOptions options_;
  mutable std::mutex mutex_;
  std::map<uint64_t, Workload> workloads_;  // by structural hash of the workload
  size_t trained_samples_ = 0;
  void* booster_ = nullptr;                         // BoosterHandle
  XgbLabel booster_label_ = XgbLabel::kThroughput;  // what booster_ was trained on
  int num_rounds_ = 0;
  search::RandomEngine rng_;
};

std::unique_ptr<search::CostModel> MakeXgbCostModel(const XgbOptions& options = {});

}  // namespace kiln::cost_model
