// SubmitLimits: how much one submission may ask of the coordinator. A client is authenticated
// but not trusted to be reasonable: a model of gigabytes, a budget of millions of trials, a
// dim of a billion (a kernel the reference interpreter could never check) or a queue of
// hundreds of jobs would hold the service for everyone. A submission past a limit is refused
// before anything is stored, with the limit and the value named.
#pragma once

#include <cstdint>

#include "coordinator/job_options.h"

namespace kiln::coordinator {

struct SubmitLimits {
  int64_t max_model_bytes = int64_t{512} << 20;
  int64_t max_trials = 1'000'000;
  int64_t max_tasks = 20'000;          // kernels of the model, over all its buckets
  int64_t max_dim = int64_t{1} << 20;  // a bound dim, default dim or bucket value
  int max_population = 16'384;
  int64_t max_unfinished_jobs = 64;  // queued or running, from every client together
};

// What is known before the model is read: kiln::Error(kParse) naming the limit.
void CheckSubmitRequest(const SubmitLimits& limits, int64_t model_bytes, int64_t trials,
                        const JobOptions& options, int64_t unfinished_jobs);
// What the model came to: kiln::Error(kParse) naming the limit.
void CheckSubmitTasks(const SubmitLimits& limits, int64_t tasks);

}  // namespace kiln::coordinator
