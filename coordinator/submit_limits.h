// SubmitLimits: how much one submission may ask of the coordinator. A client is authenticated
// but not trusted to be reasonable: a model of gigabytes, a budget of millions of trials, a
// dim of a billion (a kernel the reference interpreter could never check) or a queue of
// hundreds of jobs would hold the service for everyone. Jobs queued or running are bounded per
// client (by its CurveZMQ public key), so that one client cannot fill the queue for the others,
// and over all clients together. A submission past a limit is refused before anything is
// stored, with the limit and the value named (and the client, for its jobs).
#pragma once

#include <cstdint>
#include <string>

#include "coordinator/job_options.h"

namespace kiln::coordinator {

struct SubmitLimits {
  int64_t max_model_bytes = int64_t{512} << 20;
  int64_t max_trials = 1'000'000;
  int64_t max_tasks = 20'000;          // kernels of the model, over all its buckets
  int64_t max_dim = int64_t{1} << 20;  // a bound dim, default dim or bucket value
  int max_population = 16'384;
  int64_t max_unfinished_jobs = 64;             // queued or running, of every client together
  int64_t max_unfinished_jobs_per_client = 16;  // queued or running, of one client
};

// Jobs queued or running before a submission.
struct UnfinishedJobs {
  int64_t all = 0;     // of every client
  int64_t client = 0;  // of the submitting client
};

// What is known before the model is read: kiln::Error(kParse) naming the limit. `client` is
// the submitting client (coordinator/server.h's ClientContext).
void CheckSubmitRequest(const SubmitLimits& limits, int64_t model_bytes, int64_t trials,
                        const JobOptions& options, const std::string& client,
                        UnfinishedJobs unfinished);
// What the model came to: kiln::Error(kParse) naming the limit.
void CheckSubmitTasks(const SubmitLimits& limits, int64_t tasks);

// A client as messages and job listings show it: a public key's first 8 characters and
// "...", a shorter name as it is.
std::string ClientLabel(const std::string& client);

}  // namespace kiln::coordinator
