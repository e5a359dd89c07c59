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

std::string ClientLabel(const std::string& client) {
  return client.size() > 12 ? client.substr(0, 8) + "..." : client;
}

void CheckSubmitRequest(const SubmitLimits& limits, int64_t model_bytes, int64_t trials,
                        const JobOptions& options, const std::string& client,
                        UnfinishedJobs unfinished) {
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
  // The client's own limit first: it is the one the client can do something about.
  AtMost(unfinished.client + 1, limits.max_unfinished_jobs_per_client,
         "queued or running jobs of client '" + ClientLabel(client) + "' with this one",
         "--max-jobs-per-client");
  AtMost(unfinished.all + 1, limits.max_unfinished_jobs,
         "queued or running jobs of every client with this one from client '" +
             ClientLabel(client) + "'",
         "--max-jobs");
}

void CheckSubmitTasks(const SubmitLimits& limits, int64_t tasks) {
  AtMost(tasks, limits.max_tasks, "kernels to tune", "--max-tasks");
}

}  // namespace kiln::coordinator
