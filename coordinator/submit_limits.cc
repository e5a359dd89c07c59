// Checks of a submission against the coordinator's limits.
#include "coordinator/submit_limits.h"

#include <string>

#include "support/error.h"

namespace kiln::coordinator {
namespace {

void AtMost(int64_t value, int64_t limit, const std::string& what, const std::string& flag) {
  KILN_CHECK(value <= limit, ErrorKind::kParse,
             "submit refused: " + what + " is " + std::to_string(value) +
                 ", past this coordinator's limit of " + std::to_string(limit) + " (" + flag + ")");
}

}  // namespace

void CheckSubmitRequest(const SubmitLimits& limits, int64_t model_bytes, int64_t trials,
                        const JobOptions& options, int64_t unfinished_jobs) {
  AtMost(model_bytes, limits.max_model_bytes, "the model's size in bytes", "--max-model-mb");
  AtMost(trials, limits.max_trials, "trials", "--max-trials");
  if (options.population) {
    AtMost(*options.population, limits.max_population, "population", "--max-population");
  }
  for (const auto& [dim, value] : options.dims) {
    AtMost(value, limits.max_dim, "dim " + dim, "--max-dim");
  }
  if (options.default_dim) {
    AtMost(*options.default_dim, limits.max_dim, "the default dim", "--max-dim");
  }
  for (const ir::model::ShapeBucket& bucket : options.buckets.Expand()) {
    for (const auto& [dim, value] : bucket.dims) {
      AtMost(value, limits.max_dim, "bucket value " + dim, "--max-dim");
    }
  }
  AtMost(unfinished_jobs + 1, limits.max_unfinished_jobs, "queued or running jobs with this one",
         "--max-jobs");
}

void CheckSubmitTasks(const SubmitLimits& limits, int64_t tasks) {
  AtMost(tasks, limits.max_tasks, "kernels to tune", "--max-tasks");
}

}  // namespace kiln::coordinator
