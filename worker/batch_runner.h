// BatchRunner: what a worker does with one measure batch, without any socket: keep the
// batch's workloads (sent once, then referred to by hash), parse each candidate's scheduled
// function, measure the batch through the device's runtime::Measurer (which builds ahead in
// parallel and runs one at a time), and answer one result per candidate. A candidate that
// brings its own inputs and expected values (a validation's kernel call) is measured alone
// against them, and its outputs go back with its result when asked for. A candidate's fault
// (its text does not parse, it does not build, it is wrong) is its result; a failure of the
// machinery is reported per candidate as a machinery error, and the worker goes on.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "ir/function.h"
#include "runtime/fault_injection.h"
#include "runtime/measurer.h"
#include "schemas/messages.h"

namespace kiln::worker {

struct BatchRunnerOptions {
  std::string device_kind = "cpu";  // runtime::CreateMeasurer's kind ("cpu", "fake")
  std::string worker_id = {};
  std::string cache_dir = {};  // empty: the runtime's default
  int build_jobs = 1;
  size_t max_cached_workloads = 1024;
  // Broken results for matching tasks, for testing validation (runtime/fault_injection.h).
  std::optional<runtime::FaultSpec> fault = std::nullopt;
};

class BatchRunner {
 public:
  explicit BatchRunner(BatchRunnerOptions options);
  // Measures every candidate of `batch`, in order.
  schemas::ResultsMsg Run(const schemas::MeasureBatchMsg& batch);
  size_t cached_workloads() const { return workloads_.size(); }

 private:
  runtime::Measurer& MeasurerFor(const schemas::MeasureSettings& settings);
  // A candidate with given values (a validation's call): measured alone against them, its
  // outputs returned when asked for.
  void MeasureGiven(const schemas::MeasureBatchMsg& batch, const schemas::CandidateMsg& c,
                    const ir::PrimFunc& workload, const ir::PrimFunc& scheduled,
                    schemas::CandidateResultMsg& out);

  BatchRunnerOptions options_;
  std::map<std::string, ir::PrimFunc> workloads_;
  std::unique_ptr<runtime::Measurer> measurer_;
  schemas::MeasureSettings measurer_settings_;
};

}  // namespace kiln::worker
