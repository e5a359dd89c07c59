// JobOptions: the per-job search and measurement options a client sends with a submit (the
// Submit message's JSON `options` object), validated at the edge so that a bad value is an
// error of the submit naming the field, never a failure of the job later. Every option is
// optional: an absent one keeps the coordinator's default.
//   {"strategy": "evolutionary", "seed": 7, "population": 256, "trials_per_round": 32,
//    "trials_per_task": 0, "task_scheduler": "gradient", "cost_model": "xgb",
//    "measure_untuned": true, "min_repeat_ms": 50, "num_threads": 2, "family_share": 0.15,
//    "dims": {"batch": 1}, "default_dim": 128,
//    "buckets": [{"name": "seq", "values": [16, 32], "weights": {"32": 2}}]}
// The last three specialise an ONNX model with symbolic dims as `tune run` does
// (ir/model/model_tasks.h): bound dims, the value of the dims left, and shape buckets.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/model/model_tasks.h"
#include "schemas/messages.h"
#include "search/tuner.h"

namespace kiln::coordinator {

struct JobOptions {
  std::optional<std::string> strategy;        // "evolutionary" or "random"
  std::optional<uint64_t> seed;               // every random draw of the job
  std::optional<int> population;              // the evolutionary search's population
  std::optional<int> trials_per_round;        // 0: chosen from the budget
  std::optional<int64_t> trials_per_task;     // 0: only the global budget
  std::optional<std::string> task_scheduler;  // "gradient" or "round-robin"
  std::optional<std::string> cost_model;      // "xgb", "random" or "none"
  std::optional<bool> measure_untuned;        // time each workload as written
  std::optional<double> min_repeat_ms;        // timing: a repeat lasts at least this long
  std::optional<uint32_t> num_threads;        // threads of a parallel kernel; 0: every core
  std::optional<double> family_share;         // a bucket family follower's share of its lead
  std::map<std::string, int64_t> dims;        // symbolic dims bound in every bucket
  std::optional<int64_t> default_dim;         // the dims neither bound nor bucketed
  ir::model::BucketSpec buckets;
  // "auto", "on" or "off": the tuning pipeline's Winograd rewrite of 3x3 convolutions, which
  // changes the model's tasks (ir/relax/transform/winograd_conv2d.h); absent: off.
  std::optional<std::string> winograd;
  // "auto", "always" or "never": the ONNX importer's block-sparse attention, which changes the
  // model's tasks (ir/frontend/onnx/sparse_attention_mode.h); absent: auto.
  std::optional<std::string> sparse_attention;
};

// How a submitted model is specialised: the options' dims, default_dim and buckets.
ir::model::ModelTaskOptions ModelTaskOptionsOf(const JobOptions& options);

// kiln::Error(kParse) naming the field and what it expected for an unknown field or a bad
// value; `json` must be an object.
JobOptions ParseJobOptions(const nlohmann::json& json);
nlohmann::json JobOptionsToJson(const JobOptions& options);

// The options over the coordinator's defaults.
void ApplyJobOptions(const JobOptions& options, search::TunerOptions& tuner,
                     schemas::MeasureSettings& settings, std::string& cost_model);

}  // namespace kiln::coordinator
