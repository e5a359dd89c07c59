// JobOptions: parsing with a message per field, and application over the defaults.
#include "coordinator/job_options.h"

#include <set>

#include "support/error.h"

namespace kiln::coordinator {
namespace {

using nlohmann::json;

[[noreturn]] void Bad(const std::string& field, const std::string& expected, const json& value) {
  throw Error(ErrorKind::kParse,
              "submit options: " + field + " must be " + expected + ", not " + value.dump());
}

std::string OneOf(const json& value, const std::string& field,
                  const std::set<std::string>& allowed) {
  std::string names;
  for (const std::string& a : allowed) names += (names.empty() ? "" : " or ") + a;
  if (!value.is_string() || !allowed.count(value.get<std::string>())) Bad(field, names, value);
  return value.get<std::string>();
}

int64_t Integer(const json& value, const std::string& field, int64_t lo, int64_t hi) {
  if (!value.is_number_integer()) Bad(field, "an integer", value);
  // Unsigned values above int64 read as negative through get<int64_t>: compare unsigned.
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(hi)) {
    Bad(field, "in " + std::to_string(lo) + ".." + std::to_string(hi), value);
  }
  int64_t v = value.get<int64_t>();
  if (v < lo || v > hi) Bad(field, "in " + std::to_string(lo) + ".." + std::to_string(hi), value);
  return v;
}

}  // namespace

JobOptions ParseJobOptions(const json& j) {
  KILN_CHECK(j.is_object(), ErrorKind::kParse, "submit options: a JSON object expected");
  JobOptions o;
  for (const auto& [key, value] : j.items()) {
    if (key == "strategy") {
      o.strategy = OneOf(value, key, {"evolutionary", "random"});
    } else if (key == "seed") {
      if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<int64_t>() < 0)) {
        Bad(key, "a non-negative integer", value);
      }
      o.seed = value.get<uint64_t>();
    } else if (key == "population") {
      o.population = static_cast<int>(Integer(value, key, 1, 1 << 20));
    } else if (key == "trials_per_round") {
      o.trials_per_round = static_cast<int>(Integer(value, key, 0, 1 << 16));
    } else if (key == "trials_per_task") {
      o.trials_per_task = Integer(value, key, 0, 10'000'000);
    } else if (key == "task_scheduler") {
      o.task_scheduler = OneOf(value, key, {"gradient", "round-robin"});
    } else if (key == "cost_model") {
      o.cost_model = OneOf(value, key, {"xgb", "random", "none"});
    } else if (key == "measure_untuned") {
      if (!value.is_boolean()) Bad(key, "true or false", value);
      o.measure_untuned = value.get<bool>();
    } else if (key == "min_repeat_ms") {
      if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 60'000)) {
        Bad(key, "a number of milliseconds in 0..60000", value);
      }
      o.min_repeat_ms = value.get<double>();
    } else if (key == "family_share") {
      if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 1)) {
        Bad(key, "a number in 0..1", value);
      }
      o.family_share = value.get<double>();
    } else if (key == "num_threads") {
      o.num_threads = static_cast<uint32_t>(Integer(value, key, 0, 4096));
    } else if (key == "dims") {
      if (!value.is_object()) Bad(key, "an object of dim name to value", value);
      for (const auto& [dim, v] : value.items()) {
        if (dim.empty()) Bad(key, "an object with non-empty dim names", value);
        o.dims[dim] = Integer(v, "dims." + dim, 1, int64_t{1} << 40);
      }
    } else if (key == "default_dim") {
      o.default_dim = Integer(value, key, 1, int64_t{1} << 40);
    } else if (key == "buckets") {
      o.buckets = ir::model::BucketSpecFromJson(value, "submit options: buckets");
    } else if (key == "winograd") {
      o.winograd = OneOf(value, key, {"auto", "on", "off"});
    } else if (key == "sparse_attention") {
      o.sparse_attention = OneOf(value, key, {"auto", "always", "never"});
    } else {
      throw Error(ErrorKind::kParse,
                  "submit options: unknown option '" + key +
                      "' (known: strategy, seed, population, trials_per_round, trials_per_task, "
                      "task_scheduler, cost_model, measure_untuned, min_repeat_ms, num_threads, "
                      "family_share, dims, default_dim, buckets, winograd, sparse_attention)");
    }
  }
  return o;
}

json JobOptionsToJson(const JobOptions& o) {
  json j = json::object();
  if (o.strategy) j["strategy"] = *o.strategy;
  if (o.seed) j["seed"] = *o.seed;
  if (o.population) j["population"] = *o.population;
  if (o.trials_per_round) j["trials_per_round"] = *o.trials_per_round;
  if (o.trials_per_task) j["trials_per_task"] = *o.trials_per_task;
  if (o.task_scheduler) j["task_scheduler"] = *o.task_scheduler;
  if (o.cost_model) j["cost_model"] = *o.cost_model;
  if (o.measure_untuned) j["measure_untuned"] = *o.measure_untuned;
  if (o.min_repeat_ms) j["min_repeat_ms"] = *o.min_repeat_ms;
  if (o.num_threads) j["num_threads"] = *o.num_threads;
  if (o.family_share) j["family_share"] = *o.family_share;
  if (!o.dims.empty()) j["dims"] = o.dims;
  if (o.default_dim) j["default_dim"] = *o.default_dim;
  if (!o.buckets.empty()) j["buckets"] = ir::model::BucketSpecToJson(o.buckets);
  if (o.winograd) j["winograd"] = *o.winograd;
  if (o.sparse_attention) j["sparse_attention"] = *o.sparse_attention;
  return j;
}

ir::model::ModelTaskOptions ModelTaskOptionsOf(const JobOptions& o) {
  ir::model::ModelTaskOptions out;
  out.dims = o.dims;
  if (o.default_dim) out.default_dim = *o.default_dim;
  out.buckets = o.buckets;
  if (o.winograd) {
    out.pipeline.winograd.mode = *ir::relax::transform::ParseWinogradMode(*o.winograd);
  }
  if (o.sparse_attention) {
    out.sparse_attention = *ir::frontend::onnx::ParseSparseAttentionMode(*o.sparse_attention);
  }
  return out;
}

void ApplyJobOptions(const JobOptions& o, search::TunerOptions& tuner,
                     schemas::MeasureSettings& settings, std::string& cost_model) {
  if (o.strategy) tuner.strategy = *o.strategy;
  if (o.seed) tuner.seed = *o.seed;
  if (o.population) tuner.evolutionary.population_size = *o.population;
  if (o.trials_per_round) tuner.trials_per_round = *o.trials_per_round;
  if (o.trials_per_task) tuner.max_trials_per_task = *o.trials_per_task;
  if (o.task_scheduler) tuner.task_scheduler = *o.task_scheduler;
  if (o.cost_model) cost_model = *o.cost_model;
  if (o.measure_untuned) tuner.measure_untuned = *o.measure_untuned;
  if (o.min_repeat_ms) settings.timing.min_repeat_ms = *o.min_repeat_ms;
  if (o.num_threads) settings.num_threads = *o.num_threads;
  if (o.family_share) tuner.family_follower_share = *o.family_share;
}

}  // namespace kiln::coordinator
