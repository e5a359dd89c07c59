// The XGBoost cost model: features, pack-sum training through the C API, save and load.
#include "cost_model/xgb_cost_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

#include "ir/structural.h"
#include "support/error.h"
#include "support/logging.h"
#include "support/stable_hash.h"

namespace kiln::cost_model {

namespace {

constexpr const char* kFormat = "kiln-xgb-cost-model";
constexpr int kFormatVersion = 1;

void XgbCheck(int rc, const char* what) {
  KILN_CHECK(rc == 0, ErrorKind::kInternal,
             std::string("XGBoost ") + what + " failed: " + XGBGetLastError());
}

// An owned DMatrix over rows of features.
class Matrix {
 public:
  Matrix(const std::vector<FeatureRow>& rows, int threads) {
    static const FeatureRow kEmpty{};
    const float* data = rows.empty() ? kEmpty.data() : rows[0].data();
    XgbCheck(XGDMatrixCreateFromMat_omp(data, rows.size(), kNumStoreFeatures,
                                        std::numeric_limits<float>::quiet_NaN(), &handle_, threads),
             "XGDMatrixCreateFromMat");
  }
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

// Row predictions of `booster` on `m` (the trees' raw sum: base_score is 0).
std::vector<float> PredictMatrix(BoosterHandle booster, const Matrix& m, bool training) {
  bst_ulong len = 0;
  const float* out = nullptr;
  XgbCheck(XGBoosterPredict(booster, m.get(), 0, 0, training ? 1 : 0, &len, &out),
           "XGBoosterPredict");
  return std::vector<float>(out, out + len);
}

BoosterHandle NewBooster(const std::vector<DMatrixHandle>& cache, const XgbOptions& o) {
  BoosterHandle b = nullptr;
  XgbCheck(XGBoosterCreate(cache.data(), cache.size(), &b), "XGBoosterCreate");
  auto set = [&](const char* k, const std::string& v) {
    XgbCheck(XGBoosterSetParam(b, k, v.c_str()), "XGBoosterSetParam");
  };
  set("max_depth", std::to_string(o.max_depth));
  set("eta", std::to_string(o.eta));
  set("gamma", std::to_string(o.gamma));
  set("min_child_weight", std::to_string(o.min_child_weight));
  set("nthread", std::to_string(o.num_threads));
  set("seed", std::to_string(o.seed));
  set("tree_method", "hist");
  // A candidate's score is the sum of its rows: a constant base per row would count once
  // per store.
  set("base_score", "0");
  set("verbosity", "0");
  return b;
}

// The features of every candidate, extracted on up to `threads` threads (candidates are
// independent; the lowering passes share no state). A candidate whose features cannot be
// extracted gets no value and its error in `errors`.
std::vector<std::optional<std::vector<FeatureRow>>> ExtractAll(
    const std::vector<search::CostModelCandidate>& candidates, int threads,
    std::vector<std::string>& errors) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    KILN_CHECK(candidates[i].scheduled != nullptr, ErrorKind::kInternal,
               "cost model: candidate " + std::to_string(i) + " has no function");
  }
  std::vector<std::optional<std::vector<FeatureRow>>> features(candidates.size());
  errors.assign(candidates.size(), "");
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      try {
        features[i] = PerStoreFeatures(*candidates[i].scheduled);
      } catch (const std::exception& e) {
        // A worker thread must not let anything escape; the candidate is only unscorable.
        errors[i] = e.what();
      }
    }
  };
  // Small batches are not worth a thread.
  size_t extra = std::min<size_t>(std::max(threads, 1) - 1, candidates.size() / 32);
  std::vector<std::thread> pool;
  for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return features;
}

// XGBoost trusts its model bytes: a damaged booster can crash it while loading or predicting.
// The saved model carries this digest of them, checked before XGBoost sees them.
uint64_t Digest(const std::vector<uint8_t>& bytes) {
  StableHasher hasher;
  for (uint8_t b : bytes) hasher.Byte(b);
  return hasher.value();
}

std::vector<uint8_t> FloatBytes(const std::vector<FeatureRow>& rows) {
  std::vector<uint8_t> bytes(rows.size() * sizeof(FeatureRow));
  if (!rows.empty()) std::memcpy(bytes.data(), rows.data(), bytes.size());
  return bytes;
}

}  // namespace

XgbCostModel::XgbCostModel(XgbOptions options) : options_(options), rng_(options.seed) {
  KILN_CHECK(options_.max_depth > 0 && options_.eta > 0 && options_.max_rounds > 0 &&
                 options_.num_threads > 0 && options_.validation_fraction >= 0 &&
                 options_.validation_fraction < 1 && options_.retrain_growth >= 0,
             ErrorKind::kUnsupported,
             "XgbOptions: max_depth, eta, max_rounds and num_threads must be positive, "
             "validation_fraction in [0, 1), retrain_growth non-negative");
}

XgbCostModel::~XgbCostModel() {
  if (booster_ != nullptr) XGBoosterFree(booster_);
}

size_t XgbCostModel::num_samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& [hash, w] : workloads_) n += w.run_seconds.size();
  return n;
}

bool XgbCostModel::trained() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return booster_ != nullptr;
}

int XgbCostModel::num_rounds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_rounds_;
}

size_t XgbCostModel::trained_samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return trained_samples_;
}

void XgbCostModel::Update(const search::TuneContext& context,
                          const std::vector<search::CostModelCandidate>& candidates,
                          const std::vector<double>& run_seconds) {
  KILN_CHECK(candidates.size() == run_seconds.size(), ErrorKind::kInternal,
             "XgbCostModel::Update: " + std::to_string(candidates.size()) + " candidates but " +
                 std::to_string(run_seconds.size()) + " run times");
  KILN_CHECK(context.workload.defined(), ErrorKind::kInternal,
             "XgbCostModel::Update: the tune context has no workload");
  // Features outside the lock: they are the expensive part.
  std::vector<std::string> errors;
  std::vector<std::optional<std::vector<FeatureRow>>> extracted =
      ExtractAll(candidates, options_.feature_threads, errors);
  std::vector<std::vector<FeatureRow>> features;
  std::vector<double> times;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!extracted[i]) {
      KILN_LOG_WARN("cost model: candidate {} of {} skipped, no features: {}", i, context.task_name,
                    errors[i]);
      continue;
    }
    features.push_back(std::move(*extracted[i]));
    times.push_back(run_seconds[i]);
  }
  uint64_t hash = ir::StructuralHash(context.workload);
  std::lock_guard<std::mutex> lock(mutex_);
  Workload& w = workloads_[hash];
  for (size_t i = 0; i < features.size(); ++i) {
    w.run_seconds.push_back(times[i]);
    w.row_counts.push_back(features[i].size());
    w.rows.insert(w.rows.end(), features[i].begin(), features[i].end());
  }
  size_t total = 0;
  for (const auto& [h, wl] : workloads_) total += wl.run_seconds.size();
  bool first = trained_samples_ == 0;
  if (total > 0 && total >= options_.min_samples &&
      (first || static_cast<double>(total) >=
                    (1.0 + options_.retrain_growth) * static_cast<double>(trained_samples_))) {
    Train();
    trained_samples_ = total;
  }
}

void XgbCostModel::Train() {
  // Every candidate with its label: best time of its workload over its own time.
  struct Sample {
    const FeatureRow* rows;
    size_t count;
    float label;
  };
  std::vector<Sample> samples;
  for (const auto& [hash, w] : workloads_) {
    double best = std::numeric_limits<double>::infinity();
    for (double t : w.run_seconds) {
      if (t > 0) best = std::min(best, t);
    }
    size_t offset = 0;
    for (size_t c = 0; c < w.run_seconds.size(); ++c) {
      double t = w.run_seconds[c];
      float label = 0;
      if (t > 0 && std::isfinite(best)) {
        label = options_.label == XgbLabel::kThroughput
                    ? static_cast<float>(best / t)
                    : static_cast<float>(std::max(0.0, 1 + std::log2(best / t) / kLogLabelSpan));
      }
      samples.push_back(Sample{w.rows.data() + offset, w.row_counts[c], label});
      offset += w.row_counts[c];
    }
  }
  // Held-out candidates, drawn with the model's seed.
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[rng_.UniformInt(0, static_cast<int64_t>(i))]);
  }
  size_t num_valid = static_cast<size_t>(options_.validation_fraction * samples.size());
  if (samples.size() - num_valid < 1) num_valid = 0;
  auto gather = [&](size_t begin, size_t end, std::vector<FeatureRow>& rows, RowGroups& groups,
                    std::vector<float>& labels) {
    for (size_t i = begin; i < end; ++i) {
      const Sample& s = samples[order[i]];
      rows.insert(rows.end(), s.rows, s.rows + s.count);
      groups.AddGroup(s.count);
      labels.push_back(s.label);
    }
  };
  std::vector<FeatureRow> train_rows, valid_rows;
  RowGroups train_groups, valid_groups;
  std::vector<float> train_labels, valid_labels;
  gather(0, order.size() - num_valid, train_rows, train_groups, train_labels);
  gather(order.size() - num_valid, order.size(), valid_rows, valid_groups, valid_labels);

  Matrix train(train_rows, options_.num_threads);
  std::unique_ptr<Matrix> valid;
  std::vector<DMatrixHandle> cache = {train.get()};
  if (num_valid > 0) {
    valid = std::make_unique<Matrix>(valid_rows, options_.num_threads);
    cache.push_back(valid->get());
  }
  BoosterHandle booster = NewBooster(cache, options_);
  std::vector<float> grad, hess;
  // Early stopping watches the held-out candidates' average peak score (the model's top
  // candidates against the true top); without a held-out part, the training error.
  double best_metric = -std::numeric_limits<double>::infinity();
  int best_rounds = 0;
  try {
    for (int round = 0; round < options_.max_rounds; ++round) {
      std::vector<float> pred = PredictMatrix(booster, train, true);
      PackSumGradients(pred.data(), train_groups, train_labels, {}, grad, hess);
      XgbCheck(XGBoosterBoostOneIter(booster, train.get(), grad.data(), hess.data(), grad.size()),
               "XGBoosterBoostOneIter");
      double metric = valid ? PackSumAveragePeakScore(PredictMatrix(booster, *valid, false).data(),
                                                      valid_groups, valid_labels, options_.peak_k)
                            : -PackSumRmse(PredictMatrix(booster, train, false).data(),
                                           train_groups, train_labels);
      if (metric > best_metric) {
        best_metric = metric;
        best_rounds = round + 1;
      } else if (round + 1 - best_rounds >= options_.early_stopping_rounds) {
        break;
      }
    }
    int rounds = 0;
    XgbCheck(XGBoosterBoostedRounds(booster, &rounds), "XGBoosterBoostedRounds");
    if (best_rounds < rounds) {
      BoosterHandle sliced = nullptr;
      XgbCheck(XGBoosterSlice(booster, 0, best_rounds, 1, &sliced), "XGBoosterSlice");
      XGBoosterFree(booster);
      booster = sliced;
    }
  } catch (...) {
    XGBoosterFree(booster);
    throw;
  }
  if (booster_ != nullptr) XGBoosterFree(booster_);
  booster_ = booster;
  booster_label_ = options_.label;
  num_rounds_ = best_rounds;
  KILN_LOG_DEBUG("cost model: trained on {} candidates ({} held out), {} rounds, metric {}",
                 samples.size(), num_valid, best_rounds, best_metric);
}

std::vector<double> XgbCostModel::PredictRows(const std::vector<FeatureRow>& rows,
                                              const RowGroups& groups) {
  Matrix m(rows, options_.num_threads);
  std::vector<float> pred = PredictMatrix(booster_, m, false);
  std::vector<double> scores = PackSum(pred.data(), groups);
  if (booster_label_ == XgbLabel::kLogThroughput) {
    // Back to normalized throughput, the scale the search's score-proportional choice of
    // parents expects (a candidate half as fast is half as likely a parent).
    for (double& s : scores) s = std::exp2((s - 1) * kLogLabelSpan);
  }
  return scores;
}

std::vector<double> XgbCostModel::Predict(
    const search::TuneContext& context, const std::vector<search::CostModelCandidate>& candidates) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (booster_ == nullptr) {
      std::vector<double> scores(candidates.size());
      for (double& s : scores) s = rng_.UniformReal();
      return scores;
    }
  }
  std::vector<std::string> errors;
  std::vector<std::optional<std::vector<FeatureRow>>> extracted =
      ExtractAll(candidates, options_.feature_threads, errors);
  std::vector<FeatureRow> rows;
  RowGroups groups;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!extracted[i]) {
      KILN_LOG_DEBUG("cost model: candidate {} of {} unscorable: {}", i, context.task_name,
                     errors[i]);
      groups.AddGroup(0);
      continue;
    }
    rows.insert(rows.end(), extracted[i]->begin(), extracted[i]->end());
    groups.AddGroup(extracted[i]->size());
  }
  std::vector<double> scores;
  if (rows.empty()) {
    scores.assign(candidates.size(), 0.0);
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    scores = PredictRows(rows, groups);
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!extracted[i]) scores[i] = kUnscorableScore;
  }
  return scores;
}

std::vector<uint8_t> XgbCostModel::Save() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::json doc;
  doc["format"] = kFormat;
  doc["version"] = kFormatVersion;
  doc["num_features"] = kNumStoreFeatures;
  doc["trained_samples"] = trained_samples_;
  doc["num_rounds"] = num_rounds_;
  // Absent in models saved before the logarithmic label: those learnt the throughput.
  doc["label"] = booster_label_ == XgbLabel::kLogThroughput ? "log_throughput" : "throughput";
  if (booster_ != nullptr) {
    bst_ulong len = 0;
    const char* raw = nullptr;
    XgbCheck(XGBoosterSaveModelToBuffer(booster_, R"({"format": "ubj"})", &len, &raw),
             "XGBoosterSaveModelToBuffer");
    // The buffer lives only until the next call on the booster: copy it now.
    std::vector<uint8_t> booster(raw, raw + len);
    doc["booster_digest"] = Digest(booster);
    doc["booster"] = nlohmann::json::binary(std::move(booster));
  }
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& [hash, w] : workloads_) {
    nlohmann::json entry;
    entry["hash"] = hash;
    entry["run_seconds"] = w.run_seconds;
    entry["row_counts"] = w.row_counts;
    entry["rows"] = nlohmann::json::binary(FloatBytes(w.rows));
    workloads.push_back(std::move(entry));
  }
  doc["workloads"] = std::move(workloads);
  return nlohmann::json::to_cbor(doc);
}

void XgbCostModel::Load(const std::vector<uint8_t>& bytes) {
  auto fail = [](const std::string& what) {
    return Error(ErrorKind::kParse, "saved cost model: " + what);
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::from_cbor(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("not CBOR (") + e.what() + ")");
  }
  std::map<uint64_t, Workload> workloads;
  size_t trained_samples = 0;
  int num_rounds = 0;
  XgbLabel label = XgbLabel::kThroughput;
  BoosterHandle booster = nullptr;
  try {
    if (!doc.is_object() || doc.value("format", "") != kFormat) {
      throw fail(std::string("format is not \"") + kFormat + "\"");
    }
    int version = doc.at("version").get<int>();
    if (version != kFormatVersion) {
      throw fail("version " + std::to_string(version) + ", this build reads version " +
                 std::to_string(kFormatVersion));
    }
    if (doc.at("num_features").get<int>() != kNumStoreFeatures) {
      throw fail("num_features is " + doc.at("num_features").dump() + ", expected " +
                 std::to_string(kNumStoreFeatures));
    }
    trained_samples = doc.at("trained_samples").get<size_t>();
    num_rounds = doc.at("num_rounds").get<int>();
    std::string label_name = doc.value("label", "throughput");
    if (label_name != "throughput" && label_name != "log_throughput") {
      throw fail("label \"" + label_name + "\", expected throughput or log_throughput");
    }
    label = label_name == "log_throughput" ? XgbLabel::kLogThroughput : XgbLabel::kThroughput;
    for (const nlohmann::json& entry : doc.at("workloads")) {
      Workload w;
      w.run_seconds = entry.at("run_seconds").get<std::vector<double>>();
      w.row_counts = entry.at("row_counts").get<std::vector<size_t>>();
      const auto& raw = entry.at("rows").get_binary();
      // Counted against the bytes present, so that no count can overflow the total.
      const size_t max_rows = raw.size() / sizeof(FeatureRow);
      size_t total = 0;
      for (size_t count : w.row_counts) {
        if (count > max_rows - total) {
          total = max_rows + 1;
          break;
        }
        total += count;
      }
      if (w.row_counts.size() != w.run_seconds.size() || total > max_rows ||
          raw.size() != total * sizeof(FeatureRow)) {
        throw fail("workload " + entry.at("hash").dump() +
                   ": run times, row counts and feature bytes disagree");
      }
      w.rows.resize(total);
      if (total > 0) std::memcpy(w.rows.data(), raw.data(), raw.size());
      workloads[entry.at("hash").get<uint64_t>()] = std::move(w);
    }
    if (doc.contains("booster")) {
      const auto& raw = doc.at("booster").get_binary();
      if (Digest(raw) != doc.at("booster_digest").get<uint64_t>()) {
        throw fail("the booster's bytes are damaged (digest mismatch)");
      }
      // XGBoost trusts the structure of what it loads: a cut document can make it allocate
      // what a length field claims (gigabytes). A complete UBJSON document is checked first.
      try {
        if (!nlohmann::json::from_ubjson(raw).is_object()) {
          throw fail("booster does not load: not a UBJSON object");
        }
      } catch (const nlohmann::json::exception& e) {
        throw fail(std::string("booster does not load: not a complete UBJSON document (") +
                   e.what() + ")");
      }
      XgbCheck(XGBoosterCreate(nullptr, 0, &booster), "XGBoosterCreate");
      if (XGBoosterLoadModelFromBuffer(booster, raw.data(), raw.size()) != 0) {
        throw fail(std::string("booster does not load: ") + XGBGetLastError());
      }
      XgbCheck(XGBoosterSetParam(booster, "nthread", std::to_string(options_.num_threads).c_str()),
               "XGBoosterSetParam");
    }
  } catch (const nlohmann::json::exception& e) {
    if (booster != nullptr) XGBoosterFree(booster);
    throw fail(std::string("malformed (") + e.what() + ")");
  } catch (...) {
    if (booster != nullptr) XGBoosterFree(booster);
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (booster_ != nullptr) XGBoosterFree(booster_);
  booster_ = booster;
  workloads_ = std::move(workloads);
  trained_samples_ = trained_samples;
  num_rounds_ = num_rounds;
  booster_label_ = label;
}

std::unique_ptr<search::CostModel> MakeXgbCostModel(const XgbOptions& options) {
  return std::make_unique<XgbCostModel>(options);
}

}  // namespace kiln::cost_model
