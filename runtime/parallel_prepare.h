// PrepareInParallel and PrepareThenRun: the build-ahead step measurers share. Lowering, code
// generation, the build and the reference of each candidate of a batch are prepared on up to
// `jobs` threads, before the candidates run one at a time on the device (runs are never
// concurrent: they would disturb each other's timing).
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace kiln::runtime {

// `prepare(candidate)` for every candidate, in order, on up to `jobs` threads. After all have
// finished, the exception of the first candidate (in order) that raised one is rethrown.
template <typename Prepared, typename Candidate, typename Prepare>
std::vector<Prepared> PrepareInParallel(const std::vector<Candidate>& candidates, int jobs,
                                        Prepare prepare) {
  std::vector<Prepared> prepared(candidates.size());
  std::vector<std::exception_ptr> errors(candidates.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      try {
        prepared[i] = prepare(candidates[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  jobs = std::max(1, std::min<int>(jobs, static_cast<int>(candidates.size())));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return prepared;
}

// A measurer's batch: every candidate prepared as above, then `run(candidate, prepared)` for
// each in order, one at a time.
template <typename Prepared, typename Result, typename Candidate, typename Prepare, typename Run>
std::vector<Result> PrepareThenRun(const std::vector<Candidate>& candidates, int jobs,
                                   Prepare prepare, Run run) {
  std::vector<Prepared> prepared = PrepareInParallel<Prepared>(candidates, jobs, prepare);
  std::vector<Result> results;
  results.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) results.push_back(run(candidates[i], prepared[i]));
  return results;
}

}  // namespace kiln::runtime
