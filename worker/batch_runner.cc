// BatchRunner: workload cache, parsing at the edge, and one measurer per measurement settings.
#include "worker/batch_runner.h"

#include <stdlib.h>

#include <filesystem>

#include "ir/text/parser.h"
#include "schemas/given_params.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::worker {

BatchRunner::BatchRunner(BatchRunnerOptions options) : options_(std::move(options)) {}

runtime::Measurer& BatchRunner::MeasurerFor(const schemas::MeasureSettings& settings) {
  if (measurer_ == nullptr || !(measurer_settings_ == settings)) {
    runtime::MeasureOptions m;
    m.target = settings.target;
    m.timing = settings.timing;
    m.build_time_limit_s = settings.build_time_limit_s;
    m.run_time_limit_s = settings.run_time_limit_s;
    m.input_seed = settings.input_seed;
    m.num_threads = static_cast<int>(settings.num_threads);
    m.cache_dir = options_.cache_dir;
    m.build_jobs = options_.build_jobs;
    measurer_ = runtime::CreateMeasurer(options_.device_kind, m);
    if (options_.fault) measurer_ = runtime::WithFault(std::move(measurer_), *options_.fault);
    measurer_settings_ = settings;
  }
  return *measurer_;
}

void BatchRunner::MeasureGiven(const schemas::MeasureBatchMsg& batch,
                               const schemas::CandidateMsg& c, const ir::PrimFunc& workload,
                               const ir::PrimFunc& scheduled, schemas::CandidateResultMsg& out) {
  // The call's own inputs and expected values, in a folder of its own for the run.
  const char* base = std::getenv("TMPDIR");
  std::string dir_pattern = std::string(base && *base ? base : "/tmp") + "/kiln-given-XXXXXX";
  if (mkdtemp(dir_pattern.data()) == nullptr) {
    out.machinery_error = "cannot create a folder from " + dir_pattern;
    return;
  }
  try {
    runtime::MeasureCandidate candidate{workload, scheduled, c.dims};
    candidate.reference = schemas::ReferenceFromGiven(
        c.given, dir_pattern, (batch.batch_id << 20) ^ c.id, "the values the client gave");
    runtime::MeasureDetails details;
    out.result = MeasurerFor(batch.settings).Measure(candidate, &details);
    if (c.return_outputs) out.outputs = schemas::OutputsToMsg(details.outputs);
  } catch (const std::exception& e) {
    out.machinery_error = e.what();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_pattern, ec);
}

schemas::ResultsMsg BatchRunner::Run(const schemas::MeasureBatchMsg& batch) {
  schemas::ResultsMsg out;
  out.batch_id = batch.batch_id;
  out.worker_id = options_.worker_id;
  out.results.resize(batch.candidates.size());
  for (const schemas::WorkloadText& w : batch.workloads) {
    if (workloads_.count(w.hash)) continue;
    if (workloads_.size() >= options_.max_cached_workloads) workloads_.clear();
    try {
      workloads_[w.hash] = ir::ParsePrimFunc(w.tvmscript, "workload " + w.hash);
    } catch (const Error& e) {
      KILN_LOG_WARN("worker: workload {} ({}) does not parse: {}", w.hash, w.name, e.what());
    }
  }
  std::vector<runtime::MeasureCandidate> candidates;
  std::vector<size_t> slots;  // index in the batch of candidates[i]
  for (size_t i = 0; i < batch.candidates.size(); ++i) {
    const schemas::CandidateMsg& c = batch.candidates[i];
    out.results[i].id = c.id;
    auto it = workloads_.find(c.workload_hash);
    if (it == workloads_.end()) {
      out.results[i].machinery_error = "worker " + options_.worker_id + " has no workload " +
                                       c.workload_hash + " (never sent, or it did not parse)";
      continue;
    }
    ir::PrimFunc scheduled;
    try {
      scheduled = ir::ParsePrimFunc(c.scheduled, "candidate " + std::to_string(c.id));
    } catch (const Error& e) {
      out.results[i].result.error_kind = runtime::MeasureErrorKind::kBuildError;
      out.results[i].result.message = std::string("scheduled function: ") + e.what();
      continue;
    }
    if (!c.given.empty()) {
      MeasureGiven(batch, c, it->second, scheduled, out.results[i]);
      continue;
    }
    candidates.push_back({it->second, scheduled, c.dims});
    slots.push_back(i);
  }
  if (candidates.empty()) return out;
  try {
    std::vector<runtime::MeasureResult> results =
        MeasurerFor(batch.settings).MeasureBatch(candidates);
    for (size_t k = 0; k < slots.size() && k < results.size(); ++k) {
      out.results[slots[k]].result = std::move(results[k]);
    }
  } catch (const std::exception& e) {
    // The machinery failed (no compiler, no reference): no candidate is at fault.
    KILN_LOG_ERROR("worker {}: measuring batch {} failed: {}", options_.worker_id, batch.batch_id,
                   e.what());
    for (size_t slot : slots) out.results[slot].machinery_error = e.what();
    measurer_.reset();
  }
  return out;
}

}  // namespace kiln::worker
