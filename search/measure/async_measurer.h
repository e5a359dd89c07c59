// AsyncMeasurer: how the search hands candidates to measurement. It submits a batch and
// collects results as they arrive, so that sampling and mutation overlap with building and
// timing. One implementation measures on this machine (local_measurer.h: builds on every
// core, runs one at a time through the sandboxed runtime); the coordinator of the service
// implements the same interface over its workers, without a change to the search.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/host_tensor.h"
#include "runtime/measure_result.h"
#include "runtime/reference_store.h"
#include "search/schedule/trace.h"

namespace kiln::search {

struct MeasureRequest {
  uint64_t id = 0;                           // unique within one AsyncMeasurer
  std::string task_name = {};                // for logs
  ir::PrimFunc workload = {};                // unscheduled: defines what is correct
  ir::PrimFunc scheduled = {};               // the candidate after postprocessing
  Trace trace = {};                          // how `scheduled` was made (the record)
  std::map<std::string, int64_t> dims = {};  // values of symbolic dims
  // The workload as written, timed for comparison: not a candidate of the search, and not
  // a tuning record.
  bool untuned = false;
  // Given inputs and expected values instead of the seeded ones (runtime::MeasureCandidate::
  // reference: a validation's kernel call), and whether the tensors after the run come back
  // (the service's workers send them; the local measurer does not).
  std::shared_ptr<const runtime::Reference> reference = nullptr;
  bool return_outputs = false;
};

struct MeasureResponse {
  uint64_t id = 0;
  runtime::MeasureResult result;
  std::string worker;  // who measured it ("local", a worker id)
  // Non-empty when the machinery failed on this request (no compiler, a reference that could
  // not be established, a sandbox that did not start): the candidate is not at fault, and
  // `result` means nothing and must not be stored as its record.
  std::string machinery_error = {};
  // With MeasureRequest::return_outputs: every tensor parameter after the run, by index.
  std::map<int, ir::HostTensor> outputs = {};
};

class AsyncMeasurer {
 public:
  virtual ~AsyncMeasurer() = default;
  // Queues requests; returns at once.
  virtual void Submit(std::vector<MeasureRequest> requests) = 0;
  // Results that have arrived, waiting up to `timeout_s` for at least one when none has.
  // Each submitted id is answered exactly once.
  virtual std::vector<MeasureResponse> Collect(double timeout_s) = 0;
  // Requests submitted and not yet collected.
  virtual size_t Pending() const = 0;
};

}  // namespace kiln::search
